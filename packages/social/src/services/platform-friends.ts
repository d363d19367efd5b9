/**
 * Platform friends (docs/social.md, "Platform friends"; decision 0030): the Steam friends of a player who signed in
 * with Steam (auth's Social:PlatformFriends:SteamProvider identity) and who also play the game, imported per
 * (player, game). Social does not see the sign-in: the player's first request in a game context, and again the first
 * after Social:PlatformFriends:RefreshSeconds, claims the refresh in the database (one statement, so every node agrees
 * and one wins) and runs it in the background. What the game's `PlatformFriends` says is done with them: `suggest`
 * (suggestions, source `platform`), `befriend` (friends at once, both ways), `off` (nothing). A private profile is no
 * friends; a failing platform or auth is logged and counted, keeps the previous import and never fails the request.
 */
import { DEFAULT_PLATFORM_FRIENDS, type PlatformFriendsMode } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { steamFriendList, SteamFriendsError } from '../adapters/steam-friends.js';
import { befriendFromPlatform } from './friends.js';
import { befriendable, claimRefresh, importsOf, markBefriended, playersOfGame, recordOutcome, refreshesOf, replaceImport } from '../queries/platform-friends.js';
import { usersByIds } from '../queries/users.js';
import { userSummary } from './users.js';

/** How a refresh ended (the metric's `outcome`, and the refresh row's). */
export type RefreshOutcome = 'imported' | 'private' | 'no_identity' | 'platform_failed' | 'auth_failed' | 'failed';

type Log = { warn(obj: object, msg: string): void };
interface NodeState {
  log: Log;
  /** Per (player, game): when this node need not ask the database again (bounded). */
  nextDue: Map<string, number>;
  running: Set<Promise<void>>;
}
const REMEMBER_MAX = 50_000;
const nodes = new WeakMap<Ctx, NodeState>();

export const platformFriendsMode = (game: GameContext | undefined): PlatformFriendsMode => game?.platformFriends ?? DEFAULT_PLATFORM_FRIENDS;

/** This node's refreshes: started with the app; `settle` waits for those running (the app's close). */
export function startPlatformFriends(ctx: Ctx, log: Log): { settle(): Promise<void> } {
  const state: NodeState = { log, nextDue: new Map(), running: new Set() };
  nodes.set(ctx, state);
  return {
    async settle() {
      await Promise.allSettled([...state.running]);
    },
  };
}

/**
 * At a player's request in a game context: claims and starts the refresh when due (nothing when the game's mode is
 * `off` or no Steam Web API key is set). Never throws; the refresh itself runs in the background.
 */
export async function refreshPlatformFriends(ctx: Ctx, me: UserRow, game: GameContext | undefined): Promise<void> {
  const state = nodes.get(ctx);
  const mode = platformFriendsMode(game);
  if (!state || !game?.gameId || !ctx.config.steamApiKey || mode === 'off') return;
  const gameId = game.gameId;
  const key = `${me.id}|${gameId}`;
  const now = ctx.now();
  const due = state.nextDue.get(key);
  if (due !== undefined && now.getTime() < due) return;
  const intervalMs = ctx.config.platformFriendsRefreshSeconds * 1000;
  let last: Date | undefined;
  try {
    last = await claimRefresh(ctx.db, me.id, gameId, now, new Date(now.getTime() - intervalMs));
  } catch (err) {
    state.log.warn({ err }, 'platform friends: refresh not claimed');
    return;
  }
  if (state.nextDue.size >= REMEMBER_MAX) state.nextDue.clear();
  state.nextDue.set(key, (last ?? now).getTime() + intervalMs);
  if (last) return;
  const job: Promise<void> = runRefresh(ctx, state, me, gameId, mode).finally(() => state.running.delete(job));
  state.running.add(job);
}

async function runRefresh(ctx: Ctx, state: NodeState, me: UserRow, gameId: string, mode: PlatformFriendsMode): Promise<void> {
  let outcome: RefreshOutcome;
  try {
    outcome = await importFriends(ctx, me, gameId, mode);
  } catch (err) {
    outcome = err instanceof SteamFriendsError ? 'platform_failed' : err instanceof AuthLookupError ? 'auth_failed' : 'failed';
    // The reason and status only: the request URL holds the Web API key.
    const detail = err instanceof SteamFriendsError ? { reason: err.reason, status: err.status } : { err: err instanceof AuthLookupError ? err.cause : err };
    state.log.warn({ ...detail, gameId, outcome }, 'platform friends: refresh failed (the previous import stays)');
  }
  ctx.metrics.platformFriendsRefreshed(outcome);
  await recordOutcome(ctx.db, me.id, gameId, outcome).catch((err: unknown) => state.log.warn({ err }, 'platform friends: outcome not recorded'));
}

class AuthLookupError extends Error {}

async function viaAuth<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new AuthLookupError('auth did not answer', { cause: err });
  }
}

async function importFriends(ctx: Ctx, me: UserRow, gameId: string, mode: PlatformFriendsMode): Promise<RefreshOutcome> {
  const provider = ctx.config.steamProvider;
  const steamId = await viaAuth(() => ctx.authAdmin.platformUserId(me.account_id, provider));
  if (steamId === undefined) return 'no_identity';
  const list = await steamFriendList({ baseUrl: ctx.config.steamApiUrl, apiKey: ctx.config.steamApiKey ?? '', timeoutMs: ctx.config.platformFriendsTimeoutMs }, steamId);
  const steamIds = list.visible ? list.steamIds : [];
  const accounts = steamIds.length ? await viaAuth(() => ctx.authAdmin.platformAccounts(provider, steamIds)) : new Map<string, string>();
  const players = await playersOfGame(ctx.db, [...accounts.values()], gameId, me.id);
  const ids = players.map((p) => p.id);
  const at = ctx.now();
  await replaceImport(ctx.db, me.id, gameId, provider, ids, at, list.visible);
  if (mode === 'befriend') await befriendAll(ctx, me, gameId, ids, at);
  return list.visible ? 'imported' : 'private';
}

/** `befriend`: each importable friend becomes a friend (a full friend list or a block skips them; the row stays). */
async function befriendAll(ctx: Ctx, me: UserRow, gameId: string, ids: string[], at: Date): Promise<void> {
  const declinedSince = new Date(at.getTime() - ctx.config.declineDays * 86_400_000);
  const order = await befriendable(ctx.db, me.id, ids, declinedSince);
  // One read for the rows; the befriendable order is kept (a full friend list stops the later ones).
  const rows = new Map((await usersByIds(ctx.db, order)).map((u) => [u.id, u]));
  for (const id of order) {
    const other = rows.get(id);
    if (other && (await befriendFromPlatform(ctx, me, other))) await markBefriended(ctx.db, me.id, gameId, id, at);
  }
}

/** Export: the player's imported platform friends per game, and each game's last refresh. */
export async function exportPlatformFriends(ctx: Ctx, me: UserRow) {
  return {
    platformFriends: (await importsOf(ctx.db, me.id)).map((u) => ({
      ...userSummary(u),
      gameId: u.game_id,
      provider: u.provider,
      importedAt: new Date(u.imported_at).toISOString(),
      ...(u.befriended_at ? { befriendedAt: new Date(u.befriended_at).toISOString() } : {}),
    })),
    platformFriendRefreshes: (await refreshesOf(ctx.db, me.id)).map((r) => ({ gameId: r.game_id, refreshedAt: new Date(r.refreshed_at).toISOString(), outcome: r.outcome })),
  };
}
