/**
 * The upgrade of GET /v1/ws: path and method (refused with a plain HTTP error: not a socket of ours), then the
 * per-node socket caps, authentication (same rules as HTTP, plus a token in the `bearer` subprotocol or the
 * `access_token` query parameter) and tenancy (headers, or the client key in the `clientKey` query
 * parameter). A refusal from there on is answered by the client's kind (docs/social-realtime.md, "Refused
 * connections"): a browser (it sends `Origin` with every handshake) hides the status of a refused upgrade and
 * reports only 1006, so its handshake completes to tell it in band (an error frame and a 4xxx close code); any
 * other client gets the specification's HTTP status (401, 429 and 503 with Retry-After, 400 …) and the error body.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { AppError } from '@platform/kit';
import type { Authenticator, Principal } from '../services/auth.js';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { socialErrors, type SocialErrorCode } from '../services/errors.js';
import { gameCredentials, type TenancyResolver } from '../adapters/registry-client.js';
import { ensureUser } from '../services/users.js';
import { refreshPlatformFriends } from '../services/platform-friends.js';
import type { Log } from './connection.js';

export const WS_PATH = '/v1/ws';

/** The access token of a browser client: subprotocols ["bearer", "<token>"], or ?access_token=. */
export function socketToken(req: IncomingMessage): string | undefined {
  const proto = req.headers['sec-websocket-protocol'];
  if (typeof proto === 'string') {
    const list = proto.split(',').map((s) => s.trim());
    const i = list.indexOf('bearer');
    if (i >= 0 && list[i + 1]) return list[i + 1];
  }
  const q = new URL(req.url ?? '/', 'http://localhost').searchParams.get('access_token');
  return q || undefined;
}

/** Writes an HTTP error response on a socket that asked for an upgrade, and closes it. */
function writeError(socket: Duplex, status: number, code: string, message: string, retryAfterSeconds?: number): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ code, message, requestId: randomUUID(), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      (retryAfterSeconds !== undefined ? `Retry-After: ${retryAfterSeconds}\r\n` : '') +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * A browser sends `Origin` on every WebSocket handshake (the page's origin) and cannot read the status of a
 * refused one; a client that sends none (a game engine, a server, `ws` in Node) can.
 */
export const fromBrowser = (req: IncomingMessage): boolean => req.headers.origin !== undefined;

/** An error of social's list, with its listed status, as a plain HTTP answer (not a WebSocket handshake of ours). */
const reject = (socket: Duplex, code: SocialErrorCode, message: string) => writeError(socket, socialErrors.status(code), code, message);

/** Why a connection is refused: the status it would have over HTTP picks the close code (4000 + status). */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  retryAfterSeconds?: number;
}

const refusal = (code: SocialErrorCode, message: string, retryAfterSeconds?: number): Refusal => ({
  status: socialErrors.status(code),
  code,
  message,
  ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
});

export interface UpgradeDeps {
  ctx: Ctx;
  log: Log;
  authenticator: Authenticator;
  tenancy: TenancyResolver;
  draining(): boolean;
  /** Completes the handshake (the socket is uncounted when it closes: here, on the TCP socket's close). */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, user: UserRow, game: GameContext, principal: Principal): void;
  /** Completes the handshake only to send the refusal (an error frame) and close (browsers). */
  refuse(req: IncomingMessage, socket: Duplex, head: Buffer, refusal: Refusal): void;
  /** The refusal of a game credential revoked while the upgrade was checked (undefined: not revoked). */
  revokedCredential(game: GameContext): Refusal | undefined;
  /** An upgrade refused because as many were being authenticated as the node allows (server_busy). */
  shed(): void;
}

/** The profile and game of the caller, as for an HTTP request (an AppError otherwise). */
async function authenticate(deps: UpgradeDeps, req: IncomingMessage): Promise<{ user: UserRow; game: GameContext; principal: Principal }> {
  const headers: Record<string, string | string[] | undefined> = { ...req.headers };
  const token = socketToken(req);
  if (token && headers.authorization === undefined && headers['x-api-key'] === undefined) headers.authorization = `Bearer ${token}`;
  const principal = await deps.authenticator.authenticate(headers);
  const clientKey = new URL(req.url ?? '/', 'http://localhost').searchParams.get('clientKey');
  const game = await deps.tenancy.resolve(gameCredentials(req.headers, clientKey));
  const user = await ensureUser(deps.ctx, principal.accountId, principal.handleHint);
  // A socket in a game context is a first contact as a request is (docs/social.md, "Platform friends").
  await refreshPlatformFriends(deps.ctx, user, game);
  return { user, game, principal };
}

/** Open sockets (counted from the accepted upgrade to the close) per user and per remote address. */
class SocketCounts {
  private readonly byUser = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  addressFull(address: string, max: number): boolean {
    return (this.byAddress.get(address) ?? 0) >= max;
  }

  userFull(userId: string, max: number): boolean {
    return (this.byUser.get(userId) ?? 0) >= max;
  }

  /** Counts one socket; the returned function uncounts it (once, however often called). */
  add(userId: string, address: string): () => void {
    SocketCounts.count(this.byUser, userId, 1);
    SocketCounts.count(this.byAddress, address, 1);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      SocketCounts.count(this.byUser, userId, -1);
      SocketCounts.count(this.byAddress, address, -1);
    };
  }

  private static count(m: Map<string, number>, k: string, d: number): void {
    const n = (m.get(k) ?? 0) + d;
    if (n > 0) m.set(k, n);
    else m.delete(k);
  }
}

const shuttingDown = refusal('shutting_down', 'This node is shutting down; reconnect', 1);
const busy = refusal('server_busy', 'This node is accepting as many connections as it can; retry with jitter', 1);

/** The server's `upgrade` listener. */
export function createUpgradeHandler(deps: UpgradeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void> {
  const { config } = deps.ctx;
  const counts = new SocketCounts();
  // Upgrades between the request and the end of their authentication. A reconnect storm (a node restarted with
  // thousands of sockets) would otherwise queue every handshake behind token checks and registry reads until
  // clients time out and retry: past the bound they are refused at once with Retry-After, which the SDK jitters.
  let pending = 0;
  return async (req, socket, head) => {
    const path = (req.url ?? '/').split('?')[0];
    // The kit's req serializer redacts access_token in the URL; headers are not logged.
    deps.log.info({ req }, 'websocket upgrade');
    if (path !== WS_PATH) return reject(socket, 'route_not_found', `No route ${path}`);
    if (req.method !== 'GET' || String(req.headers.upgrade).toLowerCase() !== 'websocket') {
      return reject(socket, 'upgrade_required', 'GET /v1/ws must be a WebSocket upgrade');
    }
    // In band for a browser, the HTTP status for any other client (the spec's 401, 429, 400, 503).
    const refuse = (r: Refusal) => (fromBrowser(req) ? deps.refuse(req, socket, head, r) : writeError(socket, r.status, r.code, r.message, r.retryAfterSeconds));
    if (deps.draining()) return refuse(shuttingDown);
    // Caps per node (docs/social-realtime.md): per remote address before any work, per user once known.
    const address = req.socket.remoteAddress ?? 'unknown';
    if (counts.addressFull(address, config.wsMaxSocketsPerAddress)) {
      return refuse(refusal('too_many_sockets', 'Too many open sockets from this address', 5));
    }
    if (pending >= config.wsMaxPendingUpgrades) {
      deps.shed();
      return refuse(busy);
    }
    let caller: { user: UserRow; game: GameContext; principal: Principal };
    pending++;
    try {
      caller = await authenticate(deps, req);
    } catch (err) {
      if (err instanceof AppError) {
        if (err.status >= 500) deps.log.error({ err: err.cause ?? err, code: err.code }, 'websocket upgrade failed');
        return refuse({ status: err.status, code: err.code, message: err.message });
      }
      deps.log.error({ err }, 'websocket upgrade failed');
      return refuse(refusal('internal_error', 'The upgrade could not be handled'));
    } finally {
      pending--;
    }
    if (deps.draining()) return refuse(shuttingDown);
    const revoked = deps.revokedCredential(caller.game);
    if (revoked) return refuse(revoked);
    if (counts.userFull(caller.user.id, config.wsMaxSocketsPerUser) || counts.addressFull(address, config.wsMaxSocketsPerAddress)) {
      return refuse(refusal('too_many_sockets', 'Too many open sockets for this user; close one first', 5));
    }
    // `on`, not `once`: the release uncounts once however often called, and a once-wrapper per socket is memory held.
    socket.on('close', counts.add(caller.user.id, address));
    deps.accept(req, socket, head, caller.user, caller.game, caller.principal);
  };
}
