/**
 * Revocations reach open sockets (docs/social-realtime.md, "Limits and close codes"): a notice closes, on this
 * node, the sockets it names — a session's sockets for a session revocation (4002 `session_revoked`), every
 * socket of the account for an account revocation whose tokens were issued up to it (4003 `account_disabled`
 * for a lock or ban, 4001 `account_deleted` for a deletion, 4004 `token_expired` for a role taken away (the
 * client refreshes); another account reason closes with 4002).
 */
import { ROLES_CHANGED, type Revocation } from '../services/revocations.js';
import { CLOSE, closeConn, type Connection } from './connection.js';

/** The close code and reason of a revocation. */
export function revocationClose(r: Pick<Revocation, 'scope' | 'reason'>): { code: number; reason: string } {
  if (r.scope === 'account' && r.reason === 'account_deleted') return { code: CLOSE.accountDeleted, reason: 'account_deleted' };
  if (r.scope === 'account' && (r.reason === 'account_locked' || r.reason === 'account_banned')) return { code: CLOSE.accountDisabled, reason: 'account_disabled' };
  // A role taken away: the token is stale, the session lives on; the client reconnects with a refreshed token.
  if (r.scope === 'account' && r.reason === ROLES_CHANGED) return { code: CLOSE.tokenExpired, reason: 'token_expired' };
  return { code: CLOSE.sessionRevoked, reason: 'session_revoked' };
}

/** True when the revocation ends this socket's token. */
function affects(r: Revocation, conn: Connection): boolean {
  const p = conn.principal;
  if (p.sid && r.sids.includes(p.sid)) return true;
  if (r.scope !== 'account' || p.accountId !== r.accountId) return false;
  // Tokens issued after the revocation (a new sign-in once an account is active again, or right after a password
  // reset) stay: compared in milliseconds, not whole seconds.
  return p.issuedAt === undefined || p.issuedAt <= r.revokedAt;
}

/** Closes this node's sockets the revocation names; returns how many. */
export function closeRevokedSockets(all: Iterable<Connection>, r: Revocation): number {
  const { code, reason } = revocationClose(r);
  let closed = 0;
  for (const conn of all) {
    if (conn.closing || !affects(r, conn)) continue;
    closeConn(conn, code, reason);
    closed++;
  }
  return closed;
}
