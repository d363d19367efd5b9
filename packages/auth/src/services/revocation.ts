/**
 * Every revocation of sessions goes through `revoke` (docs/auth.md, "Revocation"): logout, refresh-token
 * reuse, an operator locking or banning an account, account deletion, and whatever later ends sessions
 * (password reset, "end my other sessions", sanctions). In one transaction with the change that causes it,
 * the sessions end (revoked, every refresh token spent) and a `revocation` notice is written to the outbox;
 * after the commit the sids go on the deny set, the notice is published on the bus (`auth:revocation`, for
 * verifiers sharing the state store) and the outbox delivers it to its targets (verifiers without the bus),
 * waited for at most AUTH_OUTBOX_REVOCATION_WAIT_MS before the caller answers.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Queryable, StateStore } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import { insertRevocationNotice } from '../queries/outbox.js';
import { spendAccountTokens, spendTokensOfSessions, spendUnusedSessionTokens } from '../queries/tokens.js';
import { revokeAccountSessions, revokeAccountSessionsExcept, revokeSession } from '../queries/sessions.js';
import type { OutboxWorker } from './outbox.js';
import { BUS_NOTICE_WIRE, OUTBOX_NOTICE_WIRE } from './notice-wire.js';

export const DENY_SID = 'deny:sid';
export const DENY_JTI = 'deny:jti';
/** `deny:account:<account id>` = unix milliseconds: the account's tokens issued up to then are refused (account scope). */
export const DENY_ACCOUNT_PREFIX = 'deny:account:';

/** The bus channel of revocation notices (the same payload as the outbox notice). */
export const REVOCATION_CHANNEL = 'auth:revocation';

/**
 * Why sessions ended. Session scope (the listed sessions): `logout`, `token_reused`. Account scope (every
 * session of the account, and every token of it issued up to `revoked_at`): `account_locked`,
 * `account_banned`, `account_deleted`. A subscriber treats a reason it does not know by its scope.
 */
export type RevocationReason =
  | 'logout'
  | 'token_reused'
  | 'account_locked'
  | 'account_banned'
  | 'account_deleted'
  // a password reset ends every session of the account (services/email.ts)
  | 'password_reset'
  // the first proof of the account's mailbox claimed it for the mailbox's owner (services/email.ts)
  | 'account_claimed'
  // a role was taken away (services/admin.ts): no session ends, the tokens issued before carry the old roles and
  // are refused everywhere; the client refreshes for a token with the new roles
  | 'roles_changed'
  // an admin reset the account's sign-in factors (services/factor-reset.ts): every session ends
  | 'factors_reset';

const ACCOUNT_SCOPE: ReadonlySet<RevocationReason> = new Set<RevocationReason>([
  'account_locked',
  'account_banned',
  'account_deleted',
  'password_reset',
  'account_claimed',
  'roles_changed',
  'factors_reset',
]);

/** The notice, on the bus and (with `id` and `type` first) in the outbox; snake_case like every auth payload. */
export interface RevocationNotice {
  id: string;
  type: 'revocation';
  reason: RevocationReason;
  scope: 'session' | 'account';
  account_id: string;
  /** The sessions ended (at most MAX_SIDS per notice; more are split into several notices). */
  sids: string[];
  /** When the sessions ended (ISO 8601, milliseconds). */
  revoked_at: string;
  /** Until when a token of these sessions may still be presented (revoked_at + the longest access-token life). */
  until: string;
}

export const MAX_SIDS = 500;

export interface RevocationTarget {
  reason: RevocationReason;
  accountId: string;
  /** Session scope: the session to end. */
  sessionId?: string;
  /** Session scope: every live session of the account except this one ("end my other sessions"). */
  exceptSessionId?: string;
  /** The access token presented (logout with a Bearer token): its jti goes on the deny set too. */
  jti?: string;
  /** Sessions to deny and announce although they were not live (the presented token's, on a retried deletion). */
  alsoSids?: string[];
  /** Account scope without ending a session (`roles_changed`): only the tokens issued up to now are refused. */
  keepSessions?: boolean;
}

export interface RevokeOptions<T> {
  /** The change itself, in the same transaction, before the sessions end (status, deletion mark); may throw. */
  before?: (tx: Queryable) => Promise<T>;
  /** In the same transaction, with the sessions ended now (audit entries, other notices). */
  after?: (tx: Queryable, sessions: string[], value: T) => Promise<void>;
}

export interface Revoker {
  /** Longest life of an access token issued now (TTL plus clock skew): how long a deny entry must last. */
  readonly maxAccessTtlMs: number;
  revoke<T = undefined>(target: RevocationTarget, opts?: RevokeOptions<T>): Promise<{ sessions: string[]; value: T }>;
}

interface Logger {
  warn(obj: object, msg: string): void;
}

/** The outbox as the revoker needs it: a process without a worker (the grant-role CLI) leaves delivery to the service's. */
type Delivery = Pick<OutboxWorker, 'deliverNow'>;

function notices(target: RevocationTarget, endedNow: number, sids: string[], maxAccessTtlMs: number): RevocationNotice[] {
  const scope = ACCOUNT_SCOPE.has(target.reason) ? 'account' : 'session';
  // A session revocation that ended nothing (a retried logout) announces nothing again (its first notice is
  // in the outbox); an account revocation always announces (it also refuses tokens of a session opened while it ran).
  if (scope === 'session' && !endedNow) return [];
  const now = Date.now();
  const base = {
    type: 'revocation' as const,
    reason: target.reason,
    scope,
    account_id: target.accountId,
    revoked_at: new Date(now).toISOString(),
    until: new Date(now + maxAccessTtlMs).toISOString(),
  } as const;
  const out: RevocationNotice[] = [];
  for (let i = 0; i === 0 || i < sids.length; i += MAX_SIDS) out.push({ id: randomUUID(), ...base, sids: sids.slice(i, i + MAX_SIDS) });
  return out;
}

export function createRevoker(deps: { config: AuthConfig; db: Database; state: StateStore; outbox?: Delivery; log: Logger }): Revoker {
  const { config, db, state, outbox, log } = deps;
  const maxAccessTtlMs = config.accessTtlSeconds * 1000 + 60_000;

  async function announce(target: RevocationTarget, sids: string[], written: RevocationNotice[]): Promise<void> {
    // The deny set first: auth's own endpoints refuse the tokens from now on.
    await Promise.all(sids.map((sid) => state.setAdd(DENY_SID, sid, maxAccessTtlMs)));
    if (target.jti) await state.setAdd(DENY_JTI, target.jti, maxAccessTtlMs);
    // Account scope: the account's tokens issued up to the notice (to the millisecond) too.
    const cut = written.find((n) => n.scope === 'account');
    if (cut) await state.set(`${DENY_ACCOUNT_PREFIX}${target.accountId}`, String(Date.parse(cut.revoked_at)), maxAccessTtlMs);
    // The bus is best effort (the outbox row is the durable copy): a failed publish is logged, not thrown.
    await Promise.all(
      written.map((n) => state.publish(REVOCATION_CHANNEL, BUS_NOTICE_WIRE.encode({ ...n })).catch((err) => log.warn({ err, notice: n.id }, 'revocation not published on the bus'))),
    );
    if (written.length && outbox) await outbox.deliverNow(config.revocationWaitMs);
  }

  return {
    maxAccessTtlMs,
    async revoke<T>(target: RevocationTarget, opts: RevokeOptions<T> = {}) {
      const { sessions, value, sids, written } = await db.transaction(async (tx) => {
        const value = (await opts.before?.(tx)) as T;
        let sessions: string[];
        if (target.keepSessions) {
          sessions = [];
        } else if (target.sessionId) {
          sessions = (await revokeSession(tx, target.sessionId)) ? [target.sessionId] : [];
          await spendUnusedSessionTokens(tx, target.sessionId);
        } else if (target.exceptSessionId) {
          sessions = await revokeAccountSessionsExcept(tx, target.accountId, target.exceptSessionId);
          if (sessions.length) await spendTokensOfSessions(tx, sessions);
        } else {
          sessions = await revokeAccountSessions(tx, target.accountId);
          await spendAccountTokens(tx, target.accountId);
        }
        await opts.after?.(tx, sessions, value);
        const sids = [...new Set([...sessions, ...(target.alsoSids ?? [])])];
        const written = notices(target, sessions.length, sids, maxAccessTtlMs);
        for (const n of written) await insertRevocationNotice(tx, n.id, OUTBOX_NOTICE_WIRE.encodeObject({ ...n }));
        return { sessions, value, sids, written };
      });
      await announce(target, sids, written);
      return { sessions, value };
    },
  };
}
