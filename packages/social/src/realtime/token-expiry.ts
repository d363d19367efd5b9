/**
 * A socket's credential over its life (docs/social-realtime.md, "Token expiry and re-authentication"): a
 * socket opened with an access token is closed with 4004 `token_expired` once that token has been expired for
 * longer than `Social:Realtime:TokenGraceSeconds`, unless an `authenticate` frame presented a newer token of
 * the same account meanwhile. The frame goes through the same authenticator as every HTTP request, so
 * whatever that refuses (a bad signature, an expired or revoked token) it refuses here too. API-key sockets
 * carry no expiry.
 */
import type { Authenticator } from '../services/auth.js';
import type { Ctx } from '../context.js';
import { CLOSE, closeConn, type Connection, type Sender } from './connection.js';

/** setTimeout's longest delay; a later deadline is re-armed when the timer fires. */
const MAX_TIMER_MS = 2_147_483_647;

export interface ExpiryDeps {
  ctx: Ctx;
  sender: Sender;
}

/** One error frame, then the close with 4004 and the code as the reason (the refusal style). */
function expire({ sender }: ExpiryDeps, conn: Connection): void {
  if (conn.closing) return;
  sender.sendError(conn, 'token_expired', 'The access token of this socket expired; reconnect with a new one, or send authenticate before the grace ends');
  closeConn(conn, CLOSE.tokenExpired, 'token_expired');
}

/** (Re)starts the socket's expiry timer from its principal; nothing for a socket without an expiry. */
export function armExpiry(deps: ExpiryDeps, conn: Connection): void {
  disarmExpiry(conn);
  const expiresAt = conn.principal.expiresAt;
  if (expiresAt === undefined || conn.closing) return;
  const deadline = expiresAt + deps.ctx.config.tokenGraceSeconds * 1000;
  const fire = () => {
    conn.expiryTimer = undefined;
    if (Date.now() < deadline) armExpiry(deps, conn);
    else expire(deps, conn);
  };
  conn.expiryTimer = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())));
  conn.expiryTimer.unref();
}

export function disarmExpiry(conn: Connection): void {
  if (conn.expiryTimer) clearTimeout(conn.expiryTimer);
  conn.expiryTimer = undefined;
}

/**
 * The `authenticate` frame: a token of the socket's account replaces the socket's credential (its expiry
 * follows the new token, even an earlier one) and is answered `authenticated {expiresAt}`. A token the
 * authenticator refuses throws its error (`unauthorized`, `key_set_unavailable` …: an error frame); a valid
 * token of another account is answered `account_mismatch`. Either way the socket stays open and keeps the
 * credential it had.
 */
export async function authenticateFrame(deps: ExpiryDeps & { authenticator: Authenticator }, conn: Connection, token: string): Promise<void> {
  const principal = await deps.authenticator.authenticate({ authorization: `Bearer ${token}` });
  if (conn.closing) return;
  if (principal.accountId !== conn.principal.accountId) {
    return deps.sender.sendError(conn, 'account_mismatch', 'The token is for another account; the socket keeps its credential');
  }
  conn.principal = principal;
  armExpiry(deps, conn);
  const expiresAt = principal.expiresAt === undefined ? null : new Date(principal.expiresAt).toISOString();
  deps.sender.sendFrame(conn, 'authenticated', { expiresAt });
}
