/**
 * Groups: clans and guilds per game (docs/social.md, "Groups"; docs/decisions/0027-groups.md).
 *
 * A group belongs to the game it was created from (none: the deployment's no-game space) and is searched, joined and
 * changed only from that game; another game reads it only when its cross-game visibility is `full`. Roles: the
 * built-in owner (rank 100), admin (50) and member (0), and up to ten roles a group defines (ranks 1–49) with a set
 * of permissions; nobody acts on a member of equal or higher rank or grants a role at or above their own. Joining:
 * `open` at once, `request` by a join request a permitted member accepts, `invite` by an invite only; bans keep a
 * player out, blocks between a player and the owner (or the inviter) refuse the join.
 */
import { isUniqueViolation } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import {
  allGroupsOf,
  deleteGroup,
  deleteGroupMember,
  groupsOf,
  insertGroup,
  insertGroupMember,
  lockGroup,
  memberIds,
  memberOf,
  memberPage,
  membershipCount,
  searchGroups,
  setMemberRole,
  successor,
  updateGroup,
  type GroupColumns,
  type GroupRow,
  type JoinPolicy,
} from '../queries/groups.js';
import { socialError, rateLimited } from './errors.js';
import { publishNotification, storeNotifications } from './notifications.js';
import { authority, demand, groupDto, groupEvent, groupLimit, groupLimits, groupMemberDto, memberLeft, ownGameGroup, spaceOf, visibleGroup } from './group-access.js';
import { assertGuestAllowed, type GuestCaller } from './guest-restrictions.js';
import { filterText, reportFlagged } from './text-filter.js';
import { readPresences, viewPresence } from './presence.js';
import { assertAvatarUrl } from './users.js';
import { limitSearch } from './limits.js';


const METADATA_MAX_BYTES = 2048;
const DESCRIPTION_MAX = 500;
const TAG = /^[\p{L}\p{N}]{2,5}$/u;
// A BCP 47 tag in its common shapes: a language, then script, region or variant subtags.
export const LANGUAGE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8}){0,3}$/;

export interface GroupInput {
  name?: string;
  tag?: string;
  description?: string;
  language?: string | null;
  avatarUrl?: string | null;
  metadata?: Record<string, unknown> | null;
  joinPolicy?: JoinPolicy;
  memberLimit?: number;
}

// ------------------------------------------------------------ validation

/** Checks and normalises a group's settings over `base` (the current ones when editing); the text through the game's filter. */
function groupColumns(ctx: Ctx, game: GameContext, input: GroupInput, base: GroupColumns | undefined, members: number): { columns: GroupColumns; flagged: FlaggedText[] } {
  const flagged: FlaggedText[] = [];
  let name = base?.name;
  if (input.name !== undefined) {
    const n = input.name.trim();
    const length = [...n].length;
    // Control and format characters were normalised away already (the kit's text input).
    if (length < 3 || length > 32) throw socialError('invalid_group_name', 'A group name is 3 to 32 characters', { field: 'name' });
    const f = filterText(ctx, game, 'name', n);
    if (f.flagged) flagged.push({ field: 'name', text: f.text });
    name = f.text;
  }
  let tag = base?.tag;
  if (input.tag !== undefined) {
    if (!TAG.test(input.tag)) throw socialError('invalid_group_tag', 'A group tag is 2 to 5 letters or digits', { field: 'tag' });
    const f = filterText(ctx, game, 'tag', input.tag);
    if (f.flagged) flagged.push({ field: 'tag', text: f.text });
    tag = f.text;
  }
  if (name === undefined || tag === undefined) throw socialError('validation_failed', 'name and tag are required');
  let description = base?.description ?? '';
  if (input.description !== undefined) {
    const d = input.description.trim();
    if ([...d].length > DESCRIPTION_MAX) throw socialError('validation_failed', `description is at most ${DESCRIPTION_MAX} characters`, { field: 'description' });
    const f = filterText(ctx, game, 'description', d);
    if (f.flagged) flagged.push({ field: 'description', text: f.text });
    description = f.text;
  }
  let language = base?.language ?? null;
  if (input.language !== undefined) {
    if (input.language !== null && (input.language.length > 35 || !LANGUAGE.test(input.language))) {
      throw socialError('invalid_language', 'language is a language tag such as en or pt-BR', { field: 'language' });
    }
    language = input.language;
  }
  let avatarUrl = base?.avatarUrl ?? null;
  if (input.avatarUrl !== undefined) {
    if (input.avatarUrl) assertAvatarUrl(input.avatarUrl);
    avatarUrl = input.avatarUrl || null;
  }
  let metadata = base?.metadata ?? null;
  if (input.metadata !== undefined) {
    metadata = input.metadata === null ? null : JSON.stringify(input.metadata);
    if (metadata !== null && Buffer.byteLength(metadata) > METADATA_MAX_BYTES) throw socialError('metadata_too_large', 'metadata is over 2 KiB as JSON', { field: 'metadata' });
  }
  // The default never exceeds the deployment's highest limit.
  const limits = groupLimits(ctx, game);
  const memberLimit = input.memberLimit ?? base?.memberLimit ?? limits.defaultMemberLimit;
  // An edit keeps a limit the game has since lowered below (the group is not shrunk under its members), unless it
  // changes the limit.
  const allowedMax = input.memberLimit === undefined && base ? Math.max(limits.maxMemberLimit, base.memberLimit) : limits.maxMemberLimit;
  if (memberLimit < 2 || memberLimit > allowedMax || memberLimit < members) {
    throw socialError('invalid_member_limit', `memberLimit must be between ${Math.max(2, members)} and ${limits.maxMemberLimit}`, { field: 'memberLimit' });
  }
  return {
    columns: { name, nameKey: name.toLowerCase(), tag, description, language, avatarUrl, metadata, joinPolicy: input.joinPolicy ?? base?.joinPolicy ?? 'request', memberLimit },
    flagged,
  };
}

const columnsOf = (g: GroupRow): GroupColumns => ({
  name: g.name,
  nameKey: g.name_key,
  tag: g.tag,
  description: g.description,
  language: g.language,
  avatarUrl: g.avatar_url,
  metadata: g.metadata === null ? null : JSON.stringify(g.metadata),
  joinPolicy: g.join_policy,
  memberLimit: g.member_limit,
});

interface FlaggedText {
  field: 'name' | 'tag' | 'description';
  text: string;
}

/** A flagged name, tag or description opens a report about its author (context `group:<id>`), as a flagged display name does. */
async function reportFlaggedGroupText(ctx: Ctx, game: GameContext, author: UserRow, groupId: string, flagged: FlaggedText[]): Promise<void> {
  for (const f of flagged) await reportFlagged(ctx, game, author, { kind: 'group', groupId, ...f });
}

// ------------------------------------------------------------ create, read, edit, disband

export async function createGroup(ctx: Ctx, me: UserRow, input: GroupInput & { name: string; tag: string }, caller: GuestCaller) {
  await assertGuestAllowed(ctx, caller, 'group_create');
  const { columns, flagged } = groupColumns(ctx, caller.game, input, undefined, 1);
  const space = spaceOf(caller.game);
  const limits = groupLimits(ctx, caller.game);
  if ((await membershipCount(ctx.db, me.id, space)) >= limits.perPlayer) throw groupLimit();
  const d = limits.createdPerDay > 0 ? await ctx.state.hit(`limit:group-create:${space}:${me.id}`, limits.createdPerDay, 86_400_000) : { allowed: false, retryAfterMs: 86_400_000 };
  if (!d.allowed) {
    ctx.metrics.rateLimited('group_create');
    throw rateLimited(`At most ${limits.createdPerDay} groups a day`, d.retryAfterMs);
  }
  let g: GroupRow;
  try {
    g = await ctx.db.transaction(async (tx) => {
      const row = await insertGroup(tx, space, me.id, columns);
      await insertGroupMember(tx, row.id, me.id, 'owner');
      return { ...row, member_count: 1 };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
  await reportFlaggedGroupText(ctx, caller.game, me, g.id, flagged);
  return groupDto(g, 'owner');
}

const nameTaken = () => socialError('group_name_taken', 'Another group of this game has that name', { field: 'name' });


export async function getGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string) {
  const g = await visibleGroup(ctx, game, id);
  const m = await memberOf(ctx.db, g.id, me.id);
  return groupDto(g, m?.role);
}

export async function editGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string, input: GroupInput) {
  const { g, flagged } = await ctx.db.transaction(async (tx) => {
    const current = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, current.id, me);
    demand(a, 'edit');
    const { columns, flagged } = groupColumns(ctx, game, input, columnsOf(current), current.member_count);
    return { g: await updateGroup(tx, current.id, columns), flagged };
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  });
  await reportFlaggedGroupText(ctx, game, me, g.id, flagged);
  return groupDto(g, (await memberOf(ctx.db, g.id, me.id))?.role);
}

/** The owner disbands the group: every member hears groupDisbanded. */
export async function disbandGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string): Promise<void> {
  const { g, members, notes } = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    if (a.member.role !== 'owner') throw socialError('group_permission_denied', 'Only the owner disbands the group', { permission: 'disband' });
    const members = await memberIds(tx, g.id);
    await deleteGroup(tx, g.id);
    // One statement for every member's inbox entry, whatever the group's size.
    const notes = await storeNotifications(ctx, tx, members.filter((userId) => userId !== me.id), 'groupDisbanded', me, { groupId: g.id, name: g.name });
    return { g, members, notes };
  });
  await groupEvent(ctx, members, 'groupDisbanded', { groupId: g.id, name: g.name }, me);
  for (const note of notes) await publishNotification(ctx, note);
}

export async function searchGameGroups(
  ctx: Ctx,
  me: UserRow,
  game: GameContext,
  q: { prefix?: string; tag?: string; language?: string; open?: boolean; limit?: number; cursor?: string },
) {
  await limitSearch(ctx, me.id, 'group');
  const limit = q.limit ?? 20;
  const afterKey = q.cursor === undefined ? undefined : ctx.cursors.open(CURSOR_KIND, q.cursor, spaceOf(game));
  if (q.cursor !== undefined && afterKey === undefined) throw badCursor();
  const prefix = q.prefix?.trim().toLowerCase();
  const rows = await searchGroups(ctx.db, {
    gameId: spaceOf(game),
    ...(prefix ? { prefix } : {}),
    ...(q.tag ? { tag: q.tag } : {}),
    ...(q.language ? { language: q.language } : {}),
    openOnly: q.open ?? false,
    ...(afterKey !== undefined ? { afterKey } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { groups: page.map((g) => groupDto(g)), nextCursor: rows.length > limit && last ? ctx.cursors.seal(CURSOR_KIND, last.name_key, spaceOf(game)) : null };
}

const CURSOR_KIND = 'groups';
const badCursor = () => socialError('invalid_cursor', 'The cursor is not one this list gave', { field: 'cursor' });
const MEMBERS_CURSOR = 'group-members';

export async function myGroups(ctx: Ctx, me: UserRow, game: GameContext) {
  return { groups: (await groupsOf(ctx.db, me.id, spaceOf(game))).map((g) => groupDto(g, g.role)) };
}

export async function groupMembers(ctx: Ctx, me: UserRow, game: GameContext, id: string, q: { limit?: number; cursor?: string }) {
  const g = await visibleGroup(ctx, game, id);
  const limit = q.limit ?? 50;
  let after: { at: string; userId: string } | undefined;
  if (q.cursor !== undefined) {
    const [at, userId] = ctx.cursors.open(MEMBERS_CURSOR, q.cursor, g.id)?.split('|') ?? [];
    if (!at || !userId) throw badCursor();
    after = { at, userId };
  }
  const rows = await memberPage(ctx.db, g.id, me.id, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  // Online or offline only (docs/social.md, "Groups"): what a member's friends see is theirs to share, not the group's.
  const presences = await readPresences(ctx, page.map((m) => m.id));
  return {
    members: page.map((m, i) => ({ ...groupMemberDto(m), online: viewPresence(presences[i], m, me.id, game).state !== 'offline' })),
    nextCursor: rows.length > limit && last ? ctx.cursors.seal(MEMBERS_CURSOR, `${last.joined_key}|${last.id}`, g.id) : null,
  };
}

// ------------------------------------------------------------ export and erasure

export async function exportGroups(ctx: Ctx, me: UserRow) {
  return (await allGroupsOf(ctx.db, me.id)).map((g) => ({ groupId: g.id, name: g.name, tag: g.tag, role: g.role, joinedAt: new Date(g.joined_at).toISOString() }));
}

/**
 * Erasure: the player leaves every group. An owned group passes to the highest-ranked other member (the
 * longest-standing among equals), or goes when the owner was alone in it.
 */
export async function leaveAllGroups(ctx: Ctx, me: UserRow): Promise<void> {
  for (const g of await allGroupsOf(ctx.db, me.id)) {
    const heir = await ctx.db.transaction(async (tx) => {
      const locked = await lockGroup(tx, g.id);
      if (!locked) return undefined;
      const m = await memberOf(tx, g.id, me.id);
      if (!m) return undefined;
      let heir: string | undefined;
      if (m.role === 'owner') {
        heir = (await successor(tx, g.id, me.id))?.user_id;
        if (!heir) {
          await deleteGroup(tx, g.id);
          return undefined;
        }
        await setMemberRole(tx, g.id, heir, 'owner');
      }
      await deleteGroupMember(tx, g.id, me.id);
      return { heir };
    });
    if (!heir) continue;
    await memberLeft(ctx, g.id, me, 'deleted', []);
    if (heir.heir) {
      const m = await memberOf(ctx.db, g.id, heir.heir);
      if (m) await groupEvent(ctx, await memberIds(ctx.db, g.id), 'groupRoleChanged', { groupId: g.id, publicId: m.public_id, role: 'owner' });
    }
  }
}
