/**
 * The player's own sessions: list them, end one, end all others. Every ending goes through the revoker (the deny
 * set, the bus and the outbox announce it: social closes the sockets of those sessions), reason `logout`.
 */
import { displayTextOrNull, type Database } from '@platform/kit';
import { fail } from '../errors.js';
import { isLiveSessionOf, liveSessionsOf } from '../queries/sessions.js';
import { audit, type AuditContext } from './audit.js';
import type { Revoker } from './revocation.js';

/** At most this many sessions are listed (the most recently used). */
export const MAX_LISTED_SESSIONS = 200;

export interface SessionView {
  id: string;
  current: boolean;
  device: { id: string | null; platform: string | null; name: string | null };
  auth_method: string;
  client_id: string | null;
  ip_prefix: string | null;
  region: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
}

export function createOwnSessionService(db: Database, revoker: Revoker) {
  return {
    async list(accountId: string, currentSid: string): Promise<{ sessions: SessionView[] }> {
      const rows = await liveSessionsOf(db, accountId, MAX_LISTED_SESSIONS);
      return {
        sessions: rows.map((r) => ({
          id: r.id,
          current: r.id === currentSid,
          device: { id: r.device_id, platform: r.platform, name: displayTextOrNull(r.device_name) },
          auth_method: r.auth_method,
          client_id: r.client_id,
          ip_prefix: r.ip_cidr,
          region: r.region,
          created_at: r.created_at.toISOString(),
          last_used_at: new Date(r.last_used_at).toISOString(),
          expires_at: r.expires_at.toISOString(),
        })),
      };
    },

    /** Ends one of the account's live sessions (the current one too: that is a sign-out). 404 for any other id. */
    async end(accountId: string, sessionId: string, ctx: AuditContext): Promise<void> {
      if (!(await isLiveSessionOf(db, accountId, sessionId))) throw fail('session_not_found', 'No such session');
      const { sessions } = await revoker.revoke(
        { reason: 'logout', accountId, sessionId },
        {
          after: async (tx, ended) => {
            if (ended.length) await audit(tx, ctx, 'logout', accountId, { session_id: sessionId, by: 'owner' });
          },
        },
      );
      // Ended by a concurrent sign-out between the check and the revocation: gone either way.
      if (!sessions.length) throw fail('session_not_found', 'No such session');
    },

    /** Ends every live session of the account but the current one; answers how many ended. */
    async endOthers(accountId: string, currentSid: string, ctx: AuditContext): Promise<{ ended: number }> {
      const { sessions } = await revoker.revoke(
        { reason: 'logout', accountId, exceptSessionId: currentSid },
        {
          after: async (tx, ended) => {
            if (ended.length) await audit(tx, ctx, 'logout', accountId, { session_ids: ended, by: 'owner', kept: currentSid });
          },
        },
      );
      return { ended: sessions.length };
    },
  };
}

export type OwnSessionService = ReturnType<typeof createOwnSessionService>;
