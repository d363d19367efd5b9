/**
 * Presence lives in the state store under `presence:<internal id>` with a TTL
 * (Social:Presence:TtlSeconds); a user whose entry lapsed reads as `offline`.
 * Rich presence carries the game it was set from (origin) and that game's
 * cross-game visibility; every view of it goes through `viewPresence`.
 */
import { AppError } from '@platform/kit';
import type { Ctx, CrossGameVisibility, GameContext, UserRow } from './context.js';
import { groupedReads } from './grouped-reads.js';
import { requireUser } from './users.js';
import { socialError } from './errors.js';
import { areFriends } from '../queries/friends.js';
import { blockedEitherWay } from '../queries/relations.js';

export type PresenceState = 'online' | 'away' | 'busy' | 'dnd' | 'invisible';
export type VisibleState = Exclude<PresenceState, 'invisible'> | 'offline';

export interface RichPresence {
  gameId?: string;
  activity?: string;
  partyId?: string;
  joinable?: boolean;
  sessionHandle?: string;
  extra?: Record<string, unknown>;
  join?: { lobbyId?: string; bag?: Record<string, unknown> };
}

/** Rich presence as a viewer sees it. */
export type RichPresenceView = Partial<RichPresence> & { joinable: boolean; originGameId?: string };

export interface StoredPresence {
  state: PresenceState;
  richPresence: RichPresence | null;
  originGameId: string | null;
  originVisibility: CrossGameVisibility;
  updatedAt: string;
}

const RANK: Record<CrossGameVisibility, number> = { isolated: 0, summary: 1, full: 2 };
const key = (userId: string) => `presence:${userId}`;
const MAX_EXTRA_BYTES = 2048;

export function normaliseState(raw: string): PresenceState {
  const s = raw.toLowerCase();
  if (s === 'online' || s === 'away' || s === 'busy' || s === 'dnd' || s === 'invisible') return s;
  throw socialError('invalid_state', 'state must be online, away, busy, dnd or invisible', { field: 'state' });
}

export function validateRichPresence(rp: RichPresence): RichPresence {
  if (rp.extra !== undefined && Buffer.byteLength(JSON.stringify(rp.extra)) > MAX_EXTRA_BYTES) {
    throw socialError('rich_presence_too_large', 'richPresence.extra must serialise to at most 2 KiB', { field: 'richPresence.extra' });
  }
  if (rp.join?.bag !== undefined && Buffer.byteLength(JSON.stringify(rp.join.bag)) > MAX_EXTRA_BYTES) {
    throw socialError('rich_presence_too_large', 'richPresence.join.bag must serialise to at most 2 KiB', { field: 'richPresence.join.bag' });
  }
  return { ...rp, joinable: rp.joinable ?? false };
}

/**
 * Presence fails open: while the state store is unreachable every user reads
 * as `offline` (friend lists, profiles and parties keep working; /readyz
 * reports the outage). Setting presence still fails with 503 state_unavailable.
 */
export async function readPresence(ctx: Ctx, userId: string): Promise<StoredPresence | null> {
  return (await readPresences(ctx, [userId]))[0];
}

/**
 * What `viewer` (in game context `game`) sees of `owner`'s presence. The
 * owner sees everything; others see `offline` for invisible users, and rich
 * presence filtered by the stricter of both games' cross-game visibility.
 */
export function viewPresence(
  p: StoredPresence | null,
  owner: Pick<UserRow, 'id' | 'invisible'>,
  viewerId: string,
  game: GameContext,
): { state: VisibleState | PresenceState; richPresence?: RichPresenceView; sameGame: boolean } {
  const self = owner.id === viewerId;
  if (!p) return { state: 'offline', sameGame: false };
  const hidden = !self && (p.state === 'invisible' || owner.invisible);
  if (hidden) return { state: 'offline', sameGame: false };
  const sameGame = game.gameId !== null && game.gameId === p.originGameId;
  const out: { state: VisibleState | PresenceState; richPresence?: RichPresenceView; sameGame: boolean } = { state: p.state, sameGame };
  const rp = p.richPresence;
  if (!rp) return out;
  const full: RichPresenceView = { ...rp, joinable: rp.joinable ?? false, ...(p.originGameId ? { originGameId: p.originGameId } : {}) };
  if (self || sameGame) {
    out.richPresence = full;
    return out;
  }
  if (game.gameId === null || p.originGameId === null) return out;
  const level = Math.min(RANK[game.visibility], RANK[p.originVisibility]);
  if (level === RANK.summary) out.richPresence = { ...(rp.activity !== undefined ? { activity: rp.activity } : {}), joinable: false };
  else if (level === RANK.full) out.richPresence = full;
  return out;
}

/**
 * friendPresenceChanged, built per recipient: the recipient's game context is
 * the game their own presence was last set from (no presence = no game).
 * `current`: the owner's presence when the caller has just written (or cleared) it, so it is not read back.
 */
export async function notifyPresence(ctx: Ctx, owner: UserRow, current?: StoredPresence | null, written?: Promise<unknown>): Promise<void> {
  // The friends who did not mute the owner (the mute filter of toUsers, applied here), in one statement
  // shared with the presence changes happening at the same moment.
  const friends = await groupedReads(ctx.db).unmutedFriends(owner.id);
  // Every friend's presence (and the owner's, unless known) in one read, then local delivery and one
  // message for the other nodes.
  const presences = current === undefined ? await readPresences(ctx, [owner.id, ...friends]) : [current, ...(await readPresences(ctx, friends))];
  // Nothing is announced that was not stored (the write, sent before the read on the same connection, has
  // normally been answered by now).
  await written;
  const p = presences[0];
  // What a friend sees depends only on the game they are in: one data object per game context, shared by
  // every friend in it (the realtime layer then encodes each shared object once).
  const byGame = new Map<string, unknown>();
  const recipients = friends.map((friend, i) => {
    const fp = presences[i + 1];
    // The common case, a friend in no game, needs no key built (gameOf gives them all the same context).
    const key = fp?.originGameId ? `${fp.originGameId}\u0000${fp.originVisibility}` : '';
    let data = byGame.get(key);
    if (data === undefined) {
      const view = viewPresence(p, owner, friend, gameOf(fp));
      data = { publicId: owner.public_id, state: view.state, ...(view.richPresence ? { richPresence: view.richPresence } : {}), sameGame: view.sameGame };
      byGame.set(key, data);
    }
    return { userId: friend, data };
  });
  await ctx.events.toUsers('friendPresenceChanged', recipients, { actorId: owner.id, actorPublicId: owner.public_id, mutesApplied: true });
}

/** Presences of several users in one round trip (MGET), failing open as described above. */
async function readPresences(ctx: Ctx, userIds: string[]): Promise<(StoredPresence | null)[]> {
  let raw: (string | null)[];
  try {
    raw = await ctx.state.getMany(userIds.map(key));
  } catch (err) {
    if (err instanceof AppError && err.code === 'state_unavailable') return userIds.map(() => null);
    throw err;
  }
  return raw.map((r) => (r ? (JSON.parse(r) as StoredPresence) : null));
}

/** The game a user is in, as their presence says (no presence or no game: none). */
function gameOf(p: StoredPresence | null): GameContext {
  return p?.originGameId ? { gameId: p.originGameId, visibility: p.originVisibility } : { gameId: null, visibility: 'isolated' };
}

/** The game a user is currently in, as their own presence says. */
export async function currentGame(ctx: Ctx, userId: string): Promise<GameContext> {
  return gameOf(await readPresence(ctx, userId));
}

export async function setPresence(
  ctx: Ctx,
  user: UserRow,
  game: GameContext,
  input: { state?: string; richPresence?: RichPresence | null },
  /** The presence as just read by the caller, when it has it. */
  known?: StoredPresence | null,
): Promise<StoredPresence> {
  const current = known !== undefined ? known : await readPresence(ctx, user.id);
  const state = input.state !== undefined ? normaliseState(input.state) : (current?.state ?? 'online');
  let richPresence: RichPresence | null;
  let originGameId = current?.originGameId ?? null;
  let originVisibility = current?.originVisibility ?? 'isolated';
  if (input.richPresence === undefined) {
    richPresence = current?.richPresence ?? null;
  } else {
    richPresence = input.richPresence === null ? null : validateRichPresence(input.richPresence);
    originGameId = game.gameId;
    originVisibility = game.visibility;
  }
  const stored: StoredPresence = { state, richPresence, originGameId, originVisibility, updatedAt: ctx.now().toISOString() };
  // The write and the friends' reads are independent: in flight together, announced once the write is done.
  const written = ctx.state.set(key(user.id), JSON.stringify(stored), ctx.config.presenceTtlSeconds * 1000);
  written.catch(() => {}); // awaited below; a rejection meanwhile is not unhandled
  try {
    await notifyPresence(ctx, user, stored, written);
  } catch (err) {
    // A failed write is the error to report (and must not go unhandled when the reads failed first).
    await written;
    throw err;
  }
  return stored;
}

/** Refreshes the TTL without changing anything (realtime heartbeat). */
export async function heartbeat(ctx: Ctx, userId: string): Promise<boolean> {
  const current = await ctx.state.get(key(userId));
  if (!current) return false;
  await ctx.state.set(key(userId), current, ctx.config.presenceTtlSeconds * 1000);
  return true;
}

export async function clearPresence(ctx: Ctx, userId: string): Promise<void> {
  await ctx.state.del(key(userId));
}

/** Presence of another user: visible to themselves and to friends (no block). */
export async function presenceOf(ctx: Ctx, viewer: UserRow, game: GameContext, publicId: string) {
  const hidden = () => socialError('not_visible', 'This user’s presence is not visible to you');
  let owner: UserRow;
  try {
    owner = await requireUser(ctx.db, publicId);
  } catch {
    throw hidden();
  }
  if (owner.id !== viewer.id) {
    if (!(await areFriends(ctx.db, viewer.id, owner.id)) || (await blockedEitherWay(ctx.db, viewer.id, owner.id))) throw hidden();
  }
  const view = viewPresence(await readPresence(ctx, owner.id), owner, viewer.id, game);
  return { publicId: owner.public_id, state: view.state, ...(view.richPresence ? { richPresence: view.richPresence } : {}) };
}
