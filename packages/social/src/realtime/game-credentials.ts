/**
 * The registry's credential notices (kit GAME_CREDENTIALS_CHANNEL) on this node: the game's cached tenancy
 * resolutions are dropped (HTTP requests and new sockets ask the registry again, and are refused), and every open
 * socket established with a credential the notice revokes gets an error frame `game_credentials_revoked` and is
 * closed with 4005 (docs/social-realtime.md). A socket whose upgrade checked its credential just before the notice
 * arrived is refused as a new one would be (`refusedCredential`).
 */
import { GAME_CREDENTIALS_CHANNEL, parseGameCredentialsNotice, revokesCredential, type StateStore, type TextFilters, type Unsubscribe } from '@platform/kit';
import type { GameContext } from '../context.js';
import { socialErrors } from '../services/errors.js';
import type { TenancyResolver } from '../adapters/registry-client.js';
import { CLOSE, closeConn, type Connection, type Log, type Sender } from './connection.js';

export const GAME_CREDENTIALS_REVOKED = 'game_credentials_revoked';

/** How long a revoked socket waits for the client's closing handshake before it is cut. */
const REVOKED_LINGER_MS = 2000;

const MESSAGES = {
  secret_replaced: 'The game secret this connection was opened with was replaced',
  client_key_replaced: 'The client key this connection was opened with was replaced',
  game_deleted: 'The game this connection was opened for was deleted',
} as const;

export interface GameCredentialDeps {
  bus: StateStore;
  tenancy: TenancyResolver;
  log: Log;
  sender: Sender;
  connections: ReadonlySet<Connection>;
  /** Where a text_filter_changed notice's settings go: sockets already open filter with them at once. */
  textFilters: TextFilters;
}

/** Subscribes this node to the notices; resolves to the unsubscribe (undefined when subscribing failed: logged). */
export function followGameCredentials(deps: GameCredentialDeps): Promise<Unsubscribe | undefined> {
  const { log } = deps;
  return deps.bus
    .subscribe(GAME_CREDENTIALS_CHANNEL, (raw) => {
      const notice = parseGameCredentialsNotice(raw);
      if (!notice) return log.warn('unreadable game credentials notice dropped');
      deps.tenancy.forget(notice);
      if (notice.change === 'text_filter_changed' && notice.textFilter) deps.textFilters.note(notice.gameId, notice.textFilter);
      // Changes of the game context, not of a credential: no socket is closed.
      if (notice.change === 'visibility_changed' || notice.change === 'text_filter_changed') return;
      let closed = 0;
      for (const conn of deps.connections) {
        const cred = conn.game.credential;
        if (conn.closing || !cred || !revokesCredential(notice, cred)) continue;
        deps.sender.sendError(conn, GAME_CREDENTIALS_REVOKED, MESSAGES[notice.change]);
        closeConn(conn, CLOSE.gameCredentialsRevoked, GAME_CREDENTIALS_REVOKED);
        setTimeout(() => conn.ws.terminate(), REVOKED_LINGER_MS).unref();
        closed++;
      }
      log.info({ gameId: notice.gameId, change: notice.change, closed }, 'game credentials notice');
    })
    .catch((err) => {
      log.error({ err }, 'game credentials notices not subscribed: replaced credentials work until the cache lapses');
      return undefined;
    });
}

/**
 * The refusal for a socket whose credential was revoked while its upgrade was under way (undefined: not revoked):
 * what a new socket with that credential gets.
 */
export function refusedCredential(tenancy: TenancyResolver, game: GameContext): { status: number; code: string; message: string } | undefined {
  if (!tenancy.revokedSince(game)) return undefined;
  const code = game.credential?.kind === 'client' ? 'invalid_client_key' : 'invalid_game_credentials';
  const message = code === 'invalid_client_key' ? 'The client key is not valid (unknown or replaced)' : 'The game key or secret is not valid';
  return { status: socialErrors.status(code), code, message };
}
