/** Self-service: profile edits, privacy export and erasure. */
import type { Ctx, GameContext, ProfileVisibility, UserRow } from '../context.js';
import { listBlocked, listFriends } from './friends.js';
import { exportNotifications } from './notifications.js';
import { removeMember } from './parties.js';
import { clearPresence, notifyPresence } from './presence.js';
import { assertAvatarUrl, fullHandle, profileDto, rename, userSummary } from './users.js';
import { exportRecentPlayers } from './matches.js';
import { listingOfParty } from './party-listings.js';
import { declinesBy } from '../queries/suggestions.js';
import { exportPlatformFriends } from './platform-friends.js';
import { filterText, reportFlagged, type FilterOutcome } from './text-filter.js';
import { friendIds } from '../queries/friends.js';
import { notesBy } from '../queries/notes.js';
import { messagesBy } from '../queries/chat.js';
import { currentPartyId } from '../queries/parties.js';
import { exportGroups, leaveAllGroups } from './groups.js';
import { mutedUsers } from '../queries/relations.js';
import { clearTargetSnapshots } from '../queries/reports.js';
import { deleteUser, setProfileColumns, userByAccount, type ProfileColumns } from '../queries/users.js';

export interface ProfilePatch {
  displayName?: string;
  avatarUrl?: string | null;
  status?: string | null;
  visibility?: ProfileVisibility;
  invisible?: boolean;
  searchable?: boolean;
}

async function notifyProfile(ctx: Ctx, u: UserRow): Promise<void> {
  const data = {
    publicId: u.public_id,
    handle: u.display_name,
    discriminator: u.discriminator,
    fullHandle: fullHandle(u),
    displayName: u.display_name,
    ...(u.avatar_url ? { avatarUrl: u.avatar_url } : {}),
    ...(u.status ? { status: u.status } : {}),
  };
  const friends = await friendIds(ctx.db, u.id);
  await ctx.events.toUsers(
    'friendProfileChanged',
    friends.map((f) => ({ userId: f, data })),
    { actorId: u.id, actorPublicId: u.public_id },
  );
}

/**
 * Edits the profile. The display name and status go through the game's text filter (`game`: the request's
 * context): a status is masked, a display name refused in mode mask (its characters cannot include `*`); both are
 * refused in mode reject and reported after the change in mode flag.
 */
export async function updateProfile(ctx: Ctx, me: UserRow, patch: ProfilePatch, game: GameContext): Promise<UserRow> {
  if (patch.avatarUrl) assertAvatarUrl(patch.avatarUrl);
  // Both checked before anything changes: a refused status leaves the name as it was too.
  const name = patch.displayName !== undefined ? filterText(ctx, game, 'displayName', patch.displayName) : undefined;
  const trimmedStatus = patch.status?.trim() || null;
  const status: FilterOutcome | undefined = trimmedStatus ? filterText(ctx, game, 'status', trimmedStatus) : undefined;
  let u = me;
  if (name) u = await rename(ctx, u, name.text);
  const columns: ProfileColumns = {};
  if (patch.avatarUrl !== undefined) columns.avatar_url = patch.avatarUrl || null;
  if (patch.status !== undefined) columns.status = status?.text ?? null;
  if (patch.visibility !== undefined) columns.visibility = patch.visibility;
  if (patch.invisible !== undefined) columns.invisible = patch.invisible;
  if (patch.searchable !== undefined) columns.searchable = patch.searchable;
  if (Object.keys(columns).length) u = await setProfileColumns(ctx.db, u.id, columns);
  if (patch.displayName !== undefined || patch.avatarUrl !== undefined || patch.status !== undefined) await notifyProfile(ctx, u);
  if (patch.invisible !== undefined && patch.invisible !== me.invisible) await notifyPresence(ctx, u);
  if (name?.flagged) await reportFlagged(ctx, game, u, { kind: 'displayName', text: u.display_name });
  if (status?.flagged) await reportFlagged(ctx, game, u, { kind: 'status', text: status.text });
  return u;
}

/** A new display name, through the game's text filter as in updateProfile. */
export async function changeName(ctx: Ctx, me: UserRow, displayName: string, game: GameContext): Promise<UserRow> {
  const name = filterText(ctx, game, 'displayName', displayName);
  const u = await rename(ctx, me, name.text);
  await notifyProfile(ctx, u);
  if (name.flagged) await reportFlagged(ctx, game, u, { kind: 'displayName', text: u.display_name });
  return u;
}

export async function exportData(ctx: Ctx, me: UserRow, game: GameContext) {
  const mutes = await mutedUsers(ctx.db, me.id);
  const notes = await notesBy(ctx.db, me.id);
  const partyId = await currentPartyId(ctx.db, me.id);
  const listing = partyId ? await listingOfParty(ctx.db, partyId) : undefined;
  return {
    user: { publicId: me.public_id, handle: me.display_name, discriminator: me.discriminator, fullHandle: fullHandle(me), createdAt: new Date(me.created_at).toISOString() },
    profile: profileDto(me),
    friends: await listFriends(ctx, me, game),
    blocked: await listBlocked(ctx, me),
    muted: mutes.map((u) => userSummary(u)),
    notes: notes.map((n) => ({ subjectPublicId: n.public_id, subjectFullHandle: fullHandle(n), text: n.text, updatedAt: new Date(n.updated_at).toISOString() })),
    notifications: await exportNotifications(ctx, me),
    groups: await exportGroups(ctx, me),
    messages: (await messagesBy(ctx.db, me.id)).map((m) => ({ messageId: m.id, channel: m.channel, channelId: m.channel_id, body: m.body, sentAt: new Date(m.sent_at).toISOString() })),
    recentPlayers: await exportRecentPlayers(ctx, me),
    declinedRequests: (await declinesBy(ctx.db, me.id)).map((u) => ({ ...userSummary(u), declinedAt: new Date(u.declined_at).toISOString() })),
    ...(await exportPlatformFriends(ctx, me)),
    ...(partyId ? { partyId } : {}),
    ...(listing ? { partyListing: listing } : {}),
  };
}

/**
 * Erasure. Leaves the party first (leadership passes on, an emptied party
 * disbands) and every group (ownership passes on, an emptied group ends), tells friends (friendRemoved), then deletes the row: friendships,
 * requests, blocks and mutes both ways, notes by and about the user, invites,
 * the user's notifications and those the user caused in others' inboxes, and
 * the user's chat messages, and platform friend imports by and of the user go with it (cascades); reports stay,
 * anonymised, without the snapshot taken of the user. An account without a profile (already erased) answers the same.
 */
export async function eraseAccount(ctx: Ctx, accountId: string): Promise<{ state: 'deleted' }> {
  const me = await userByAccount(ctx.db, accountId);
  if (!me) return { state: 'deleted' };
  const partyId = await currentPartyId(ctx.db, me.id);
  if (partyId) await removeMember(ctx, partyId, me, 'deleted');
  // Owned groups pass to the next in rank, or end with their last member (services/groups.ts).
  await leaveAllGroups(ctx, me);
  const friends = await friendIds(ctx.db, me.id);
  // Reports about the user stay (anonymised by the foreign key); the snapshots of their profile and messages go.
  await clearTargetSnapshots(ctx.db, me.id);
  await deleteUser(ctx.db, me.id);
  await clearPresence(ctx, me.id);
  await ctx.events.toUsers('friendRemoved', friends.map((f) => ({ userId: f, data: { publicId: me.public_id } })));
  await ctx.events.control(me.id, '_accountDeleted');
  return { state: 'deleted' };
}
