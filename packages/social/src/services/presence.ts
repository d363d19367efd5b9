/**
 * Presence lives in the state store under `presence:<internal id>` with a TTL
 * (Social:Presence:TtlSeconds); a user whose entry lapsed reads as `offline`.
 * Rich presence carries the game it was set from (origin) and that game's
 * cross-game visibility; every view of it goes through `viewPresence`.
 */
import { AppError, defineWire } from '@platform/kit';
import type { Ctx, CrossGameVisibility, GameContext, UserRow } from '../context.js';
import { groupedReads } from './grouped-reads.js';
import { requireUser } from './users.js';
import { socialError } from './errors.js';
import { areFriends } from '../queries/friends.js';
import { blockedEitherWay } from '../queries/relations.js';
import type { PresenceSource, PresenceState, RichPresence, RichPresenceView, StoredPresence, VisibleState } from './presence-types.js';

export type { PresenceState, VisibleState, RichPresence, RichPresenceView, StoredPresence, PresenceSource } from './presence-types.js';

const RANK: Record<CrossGameVisibility, number> = { isolated: 0, summary: 1, full: 2 };
const key = (userId: string) => `presence:${userId}`;

const STATES: readonly string[] = ['online', 'away', 'busy', 'dnd', 'invisible'];
const VISIBILITIES: readonly string[] = ['isolated', 'summary', 'full'];
/**
 * The presence record every node reads from the state store (docs/decisions/0020-versioned-messages.md): version 1,
 * `{v?, state, richPresence, originGameId, originVisibility, updatedAt}`; the previous release read it member by
 * member, so `v` is written.
 */
export const PRESENCE_RECORD_WIRE = defineWire<StoredPresence>({
  name: 'social.presence',
  read: {
    1: (m) => {
      if (typeof m.state !== 'string' || !STATES.includes(m.state)) return undefined;
      const rich = m.richPresence && typeof m.richPresence === 'object' ? (m.richPresence as RichPresence) : null;
      return {
        state: m.state as PresenceState,
        richPresence: rich,
        originGameId: typeof m.originGameId === 'string' ? m.originGameId : null,
        originVisibility: (typeof m.originVisibility === 'string' && VISIBILITIES.includes(m.originVisibility) ? m.originVisibility : 'isolated') as CrossGameVisibility,
        updatedAt: typeof m.updatedAt === 'string' ? m.updatedAt : '',
      };
    },
  },
  writes: 1,
  write: (p) => ({ state: p.state, richPresence: p.richPresence, originGameId: p.originGameId, originVisibility: p.originVisibility, updatedAt: p.updatedAt }),
});
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

/** How much of a presence set in game `origin` a viewer in `game` sees (the cross-game rule, docs/social.md). */
export type ViewLevel = 'same' | 'full' | 'summary' | 'none';

function viewLevel(originGameId: string | null, originVisibility: CrossGameVisibility, game: GameContext): ViewLevel {
  if (game.gameId !== null && game.gameId === originGameId) return 'same';
  if (game.gameId === null || originGameId === null) return 'none';
  const level = Math.min(RANK[game.visibility], RANK[originVisibility]);
  return level === RANK.full ? 'full' : level === RANK.summary ? 'summary' : 'none';
}

/** Rich presence at a view level (`self`: the owner, who sees everything). */
function richAt(level: ViewLevel | 'self', rp: RichPresence | null | undefined, originGameId: string | null): RichPresenceView | undefined {
  if (!rp) return undefined;
  if (level === 'self' || level === 'same' || level === 'full') return { ...rp, joinable: rp.joinable ?? false, ...(originGameId ? { originGameId } : {}) };
  if (level === 'summary') return { ...(rp.activity !== undefined ? { activity: rp.activity } : {}), joinable: false };
  return undefined;
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
  const level = viewLevel(p.originGameId, p.originVisibility, game);
  const richPresence = richAt(self ? 'self' : level, p.richPresence, p.originGameId);
  return { state: p.state, ...(richPresence ? { richPresence } : {}), sameGame: level === 'same' };
}

/** The source of friendPresenceChanged for `owner`'s presence `p`. */
export function presenceSource(p: StoredPresence | null, owner: Pick<UserRow, 'public_id' | 'invisible'>): PresenceSource {
  if (!p || p.state === 'invisible' || owner.invisible) return { publicId: owner.public_id, state: 'offline' };
  return {
    publicId: owner.public_id,
    state: p.state,
    ...(p.richPresence ? { richPresence: p.richPresence } : {}),
    ...(p.originGameId ? { originGameId: p.originGameId, originVisibility: p.originVisibility } : {}),
  };
}

/** The view level of a source for a socket in `game`: sockets at the same level get the same payload. */
export function presenceViewLevel(src: PresenceSource, game: GameContext): ViewLevel {
  return viewLevel(src.originGameId ?? null, src.originVisibility ?? 'isolated', game);
}

/** The friendPresenceChanged payload for a socket in `game`: what GET /v1/friends from that game shows. */
export function friendPresenceData(src: PresenceSource, game: GameContext): { publicId: string; state: VisibleState; richPresence?: RichPresenceView; sameGame: boolean } {
  const level = presenceViewLevel(src, game);
  const richPresence = richAt(level, src.richPresence, src.originGameId ?? null);
  return { publicId: src.publicId, state: src.state, ...(richPresence ? { richPresence } : {}), sameGame: level === 'same' };
}

/**
 * friendPresenceChanged to the owner's friends: one source for all of them; each receiving socket gets the
 * view of its own game context (docs/social-realtime.md, "Presence to friends, per game context").
 * `current`: the owner's presence when the caller has just written (or cleared) it, so it is not read back.
 */
export async function notifyPresence(ctx: Ctx, owner: UserRow, current?: StoredPresence | null, written?: Promise<unknown>): Promise<void> {
  // The friends who did not mute the owner (the mute filter, applied here) in one statement shared with the
  // presence changes happening at the same moment; the owner's presence (unless known) read meanwhile.
  const [friends, p] = await Promise.all([groupedReads(ctx.db).unmutedFriends(owner.id), current === undefined ? readPresence(ctx, owner.id) : current]);
  // Nothing is announced that was not stored (the write, sent before the read on the same connection, has
  // normally been answered by now).
  await written;
  if (!friends.length) return;
  await ctx.events.presenceToUsers(friends, presenceSource(p, owner), { actorId: owner.id, actorPublicId: owner.public_id, mutesApplied: true });
}

/** Presences of several users in one round trip (MGET), failing open as described above. */
export async function readPresences(ctx: Ctx, userIds: string[]): Promise<(StoredPresence | null)[]> {
  let raw: (string | null)[];
  try {
    raw = await ctx.state.getMany(userIds.map(key));
  } catch (err) {
    if (err instanceof AppError && err.code === 'state_unavailable') return userIds.map(() => null);
    throw err;
  }
  // A record this release cannot read (a version from a release two ahead) reads as no presence: offline.
  return raw.map((r) => {
    const read = r ? PRESENCE_RECORD_WIRE.decode(r) : undefined;
    return read?.ok ? read.value : null;
  });
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
  const written = ctx.state.set(key(user.id), PRESENCE_RECORD_WIRE.encode(stored), ctx.config.presenceTtlSeconds * 1000);
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
