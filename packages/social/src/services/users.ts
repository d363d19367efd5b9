/**
 * Profiles: created on first use, addressed by an opaque publicId and a full
 * handle `Name#1234` whose 4-digit discriminator is unique per display name
 * (case-insensitive), allocated with a unique index and retries.
 */
import { randomInt } from 'node:crypto';
import { isUniqueViolation, randomToken, type Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { limitSearch } from './limits.js';
import { hasBlocked } from '../queries/relations.js';
import { insertUser, searchByHandle, searchByPrefix, setDisplayName, setName, userByAccount, userByHandle, userByPublicId } from '../queries/users.js';

export { userByAccount, userById } from '../queries/users.js';

export const DEFAULT_DISPLAY_NAME = 'Player';
const DISPLAY_NAME = /^[\p{L}\p{N}_.\- ]{2,32}$/u;
const FULL_HANDLE = /^(.+)#(\d{4})$/;
const ALLOCATION_ATTEMPTS = 25;

export const fullHandle = (u: Pick<UserRow, 'display_name' | 'discriminator'>) => `${u.display_name}#${u.discriminator}`;

/** What a user looked like, as a report's snapshot keeps it. */
export const profileSnapshot = (u: UserRow) => ({
  publicId: u.public_id,
  fullHandle: fullHandle(u),
  displayName: u.display_name,
  avatarUrl: u.avatar_url,
  status: u.status,
});
export const newPublicId = () => `p_${randomToken(16)}`;
const randomDiscriminator = () => String(randomInt(1, 10_000)).padStart(4, '0');

export function normaliseDisplayName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, ' ');
  if (!DISPLAY_NAME.test(name)) {
    throw socialError('invalid_display_name', 'displayName must be 2–32 letters, digits, spaces, "_", "-" or "."', { field: 'displayName' });
  }
  return name;
}

/** The profile of an account, created on first use. */
export async function ensureUser(ctx: Ctx, accountId: string, handleHint?: string): Promise<UserRow> {
  const existing = await userByAccount(ctx.db, accountId);
  if (existing) return existing;
  let name = DEFAULT_DISPLAY_NAME;
  if (handleHint) {
    try {
      name = normaliseDisplayName(handleHint.replace(/#\d{4}$/, ''));
    } catch {
      name = DEFAULT_DISPLAY_NAME;
    }
  }
  for (let i = 0; i < ALLOCATION_ATTEMPTS; i++) {
    try {
      const row = await insertUser(ctx.db, { accountId, publicId: newPublicId(), displayName: name, nameKey: name.toLowerCase(), discriminator: randomDiscriminator() });
      if (row) return row;
      const raced = await userByAccount(ctx.db, accountId);
      if (raced) return raced;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw socialError('name_unavailable', 'No free discriminator for this display name');
}

/**
 * The profile of an account named by a server caller (a moderation notice): an existing profile, or one made
 * now only for an account the auth service knows as active (never for an unknown, deleted, locked or banned
 * one); otherwise 404 `user_not_found`.
 */
export async function userForAccountNotice(ctx: Ctx, accountId: string): Promise<UserRow> {
  const existing = await userByAccount(ctx.db, accountId);
  if (existing) return existing;
  const confirmed = await ctx.authAdmin.activeAccount(accountId);
  if (confirmed === undefined) throw socialError('user_not_found', 'No active account has this id');
  return ensureUser(ctx, confirmed);
}

/** Renames a user; keeps the discriminator when only the letter case changes. */
export async function rename(ctx: Ctx, user: UserRow, displayName: string): Promise<UserRow> {
  const name = normaliseDisplayName(displayName);
  const key = name.toLowerCase();
  if (key === user.name_key) return setDisplayName(ctx.db, user.id, name);
  for (let i = 0; i < ALLOCATION_ATTEMPTS; i++) {
    try {
      return await setName(ctx.db, user.id, { displayName: name, nameKey: key, discriminator: i === 0 ? user.discriminator : randomDiscriminator() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw socialError('name_unavailable', 'No free discriminator for this display name');
}

/** Resolves `Name#1234` (case-insensitive name) or a publicId to a user. */
export async function findByHandle(db: Queryable, handle: string): Promise<UserRow | undefined> {
  const m = FULL_HANDLE.exec(handle.trim());
  if (!m) return undefined;
  return userByHandle(db, m[1].trim().toLowerCase(), m[2]);
}

export const findByPublicId = userByPublicId;

/** The target of a body naming a user by exactly one of handle/publicId. */
export async function resolveTarget(
  db: Queryable,
  body: { handle?: string; publicId?: string },
  names: { handle: string; publicId: string } = { handle: 'handle', publicId: 'publicId' },
): Promise<UserRow> {
  const given = [body.handle, body.publicId].filter((v) => v !== undefined);
  if (given.length !== 1) throw socialError('target_required', `Give exactly one of ${names.handle} or ${names.publicId}`);
  const u = body.handle !== undefined ? await findByHandle(db, body.handle) : await findByPublicId(db, body.publicId!);
  if (!u) throw socialError('user_not_found', 'No such user');
  return u;
}

export async function requireUser(db: Queryable, publicId: string): Promise<UserRow> {
  const u = await findByPublicId(db, publicId);
  if (!u) throw socialError('user_not_found', 'No such user');
  return u;
}

/**
 * A user the caller addresses (notes, mutes, blocks): one who has blocked the caller answers exactly as a
 * user who does not exist, so a block cannot be detected (docs/social.md, "Blocks and mutes").
 */
export async function requireAddressableUser(db: Queryable, me: { id: string }, publicId: string): Promise<UserRow> {
  const u = await findByPublicId(db, publicId);
  if (!u || (u.id !== me.id && (await hasBlocked(db, u.id, me.id)))) throw socialError('user_not_found', 'No such user');
  return u;
}

// ------------------------------------------------------------ search

/**
 * Search by exact `Name#1234` or by name prefix, among the players seen in the caller's game (everyone without a
 * game context); blocks hide both ways; a prefix finds only players who are `searchable`.
 */
export async function searchUsers(ctx: Ctx, me: UserRow, game: GameContext, handle: string, limit: number, offset: number) {
  const q = handle.trim();
  if (!q) throw socialError('validation_failed', 'handle must not be empty', { field: 'handle' });
  const exact = /^(.+)#(\d{4})$/.exec(q);
  if (!exact && [...q].length < ctx.config.searchMinPrefix) {
    throw socialError('prefix_too_short', `A name prefix needs at least ${ctx.config.searchMinPrefix} characters (or search an exact Name#1234)`, { field: 'handle' });
  }
  await limitSearch(ctx, me.id, 'player');
  const rows = exact
    ? await searchByHandle(ctx.db, me.id, game.gameId, exact[1].trim().toLowerCase(), exact[2])
    : await searchByPrefix(ctx.db, me.id, game.gameId, q.toLowerCase(), limit, offset);
  return rows.map((u) => userSummary(u, { friend: u.friend }));
}

// ------------------------------------------------------------ relations

/**
 * The block rule for anything the caller sends to a target (requests,
 * invites): a target who blocked the caller looks absent (404), a target the
 * caller blocked is named (409) so the caller can unblock.
 */
export async function assertNotBlocked(db: Queryable, caller: string, target: string): Promise<void> {
  if (await hasBlocked(db, target, caller)) throw socialError('user_not_found', 'No such user');
  if (await hasBlocked(db, caller, target)) throw socialError('you_blocked_user', 'You blocked this user; unblock them first');
}

// ------------------------------------------------------------ views

export function profileDto(u: UserRow) {
  return {
    displayName: u.display_name,
    avatarUrl: u.avatar_url,
    status: u.status,
    visibility: u.visibility,
    invisible: u.invisible,
    searchable: u.searchable,
  };
}

export function meDto(u: UserRow) {
  return { publicId: u.public_id, handle: u.display_name, discriminator: u.discriminator, fullHandle: fullHandle(u), profile: profileDto(u) };
}

/** UserSummary: avatarUrl only when the profile is public or the viewer is a friend. */
export function userSummary(u: UserRow, opts: { friend?: boolean } = {}) {
  const out: { publicId: string; fullHandle: string; displayName: string; avatarUrl?: string } = { publicId: u.public_id, fullHandle: fullHandle(u), displayName: u.display_name };
  if (u.avatar_url && (u.visibility === 'public' || opts.friend)) out.avatarUrl = u.avatar_url;
  return out;
}

/** An avatar (a player's, a group's) is an https URL: 400 invalid_avatar_url otherwise. */
export function assertAvatarUrl(url: string): void {
  let ok = false;
  try {
    ok = new URL(url).protocol === 'https:';
  } catch {
    ok = false;
  }
  if (!ok) throw socialError('invalid_avatar_url', 'avatarUrl must be an https URL', { field: 'avatarUrl' });
}
