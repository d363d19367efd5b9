/**
 * The player's own sessions: list them, end one, end all others. Every ending goes through the revoker (the deny
 * set, the bus and the outbox announce it: social closes the sockets of those sessions), reason `logout`.
 */
import { displayTextOrNull } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { isLiveSessionOf, liveSessionsOf } from '../queries/sessions.js';
import { audit, type AuditContext } from './audit.js';

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

export async function listOwnSessions(ctx: AuthContext, accountId: string, currentSid: string): Promise<{ sessions: SessionView[] }> {
  const rows = await liveSessionsOf(ctx.db, accountId, MAX_LISTED_SESSIONS);
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
}

/** Ends one of the account's live sessions (the current one too: that is a sign-out). 404 for any other id. */
export async function endOwnSession(ctx: AuthContext, accountId: string, sessionId: string, who: AuditContext): Promise<void> {
  if (!(await isLiveSessionOf(ctx.db, accountId, sessionId))) throw fail('session_not_found', 'No such session');
  const { sessions } = await ctx.revoker.revoke(
    { reason: 'logout', accountId, sessionId },
    {
      after: async (tx, ended) => {
        if (ended.length) await audit(tx, who, 'logout', accountId, { session_id: sessionId, by: 'owner' });
      },
    },
  );
  // Ended by a concurrent sign-out between the check and the revocation: gone either way.
  if (!sessions.length) throw fail('session_not_found', 'No such session');
}

/** Ends every live session of the account but the current one; answers how many ended. */
export async function endOtherSessions(ctx: AuthContext, accountId: string, currentSid: string, who: AuditContext): Promise<{ ended: number }> {
  const { sessions } = await ctx.revoker.revoke(
    { reason: 'logout', accountId, exceptSessionId: currentSid },
    {
      after: async (tx, ended) => {
        if (ended.length) await audit(tx, who, 'logout', accountId, { session_ids: ended, by: 'owner', kept: currentSid });
      },
    },
  );
  return { ended: sessions.length };
}
