/** Self-service: profile edits, privacy export and erasure. */
import { badRequest, notFound } from '@platform/kit';
import type { Ctx, GameContext, ProfileVisibility, UserRow } from './context.js';
import { listBlocked, listFriends } from './friends.js';
import { currentPartyId, removeMember } from './parties.js';
import { clearPresence, notifyPresence } from './presence.js';
import { limitOutreach, limitSearch } from './limits.js';
import { friendIds, fullHandle, rename, requireAddressableUser, requireUser, resolveTarget, userByAccount, userSummary } from './users.js';

export interface ProfilePatch {
  displayName?: string;
  avatarUrl?: string | null;
  status?: string | null;
  visibility?: ProfileVisibility;
  invisible?: boolean;
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

export async function updateProfile(ctx: Ctx, me: UserRow, patch: ProfilePatch): Promise<UserRow> {
  if (patch.avatarUrl) {
    let ok = false;
    try {
      ok = new URL(patch.avatarUrl).protocol === 'https:';
    } catch {
      ok = false;
    }
    if (!ok) throw badRequest('invalid_avatar_url', 'avatarUrl must be an https URL', { field: 'avatarUrl' });
  }
  let u = me;
  if (patch.displayName !== undefined) u = await rename(ctx, u, patch.displayName);
  const sets: string[] = [];
  const params: unknown[] = [u.id];
  const put = (col: string, v: unknown) => {
    params.push(v);
    sets.push(`${col} = $${params.length}`);
  };
  if (patch.avatarUrl !== undefined) put('avatar_url', patch.avatarUrl || null);
  if (patch.status !== undefined) put('status', patch.status?.trim() || null);
  if (patch.visibility !== undefined) put('visibility', patch.visibility);
  if (patch.invisible !== undefined) put('invisible', patch.invisible);
  if (sets.length) u = (await ctx.db.query<UserRow>(`UPDATE users SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params)).rows[0];
  if (patch.displayName !== undefined || patch.avatarUrl !== undefined || patch.status !== undefined) await notifyProfile(ctx, u);
  if (patch.invisible !== undefined && patch.invisible !== me.invisible) await notifyPresence(ctx, u);
  return u;
}

export async function changeName(ctx: Ctx, me: UserRow, displayName: string): Promise<UserRow> {
  const u = await rename(ctx, me, displayName);
  await notifyProfile(ctx, u);
  return u;
}

export async function exportData(ctx: Ctx, me: UserRow, game: GameContext) {
  const mutes = (await ctx.db.query<UserRow>('SELECT u.* FROM mutes m JOIN users u ON u.id = m.muted WHERE m.muter = $1', [me.id])).rows;
  const notes = (
    await ctx.db.query<UserRow & { text: string; updated_at: Date }>(
      'SELECT u.*, n.text, n.updated_at FROM notes n JOIN users u ON u.id = n.subject WHERE n.author = $1',
      [me.id],
    )
  ).rows;
  const partyId = await currentPartyId(ctx.db, me.id);
  return {
    user: { publicId: me.public_id, handle: me.display_name, discriminator: me.discriminator, fullHandle: fullHandle(me), createdAt: new Date(me.created_at).toISOString() },
    profile: { displayName: me.display_name, avatarUrl: me.avatar_url, status: me.status, visibility: me.visibility, invisible: me.invisible },
    friends: await listFriends(ctx, me, game),
    blocked: await listBlocked(ctx, me),
    muted: mutes.map((u) => userSummary(u)),
    notes: notes.map((n) => ({ subjectPublicId: n.public_id, subjectFullHandle: fullHandle(n), text: n.text, updatedAt: new Date(n.updated_at).toISOString() })),
    ...(partyId ? { partyId } : {}),
  };
}

/**
 * Erasure. Leaves the party first (leadership passes on, an emptied party
 * disbands), tells friends (friendRemoved), then deletes the row: friendships,
 * requests, blocks and mutes both ways, notes by and about the user, invites
 * and the user's chat messages go with it (cascades); reports stay,
 * anonymised. An account without a profile (already erased) answers the same.
 */
export async function eraseAccount(ctx: Ctx, accountId: string): Promise<{ state: 'deleted' }> {
  const me = await userByAccount(ctx.db, accountId);
  if (!me) return { state: 'deleted' };
  const partyId = await currentPartyId(ctx.db, me.id);
  if (partyId) await removeMember(ctx, partyId, me, 'deleted');
  const friends = await friendIds(ctx.db, me.id);
  await ctx.db.query('DELETE FROM users WHERE id = $1', [me.id]);
  await clearPresence(ctx, me.id);
  await ctx.events.toUsers('friendRemoved', friends.map((f) => ({ userId: f, data: { publicId: me.public_id } })));
  await ctx.events.control(me.id, '_accountDeleted');
  return { state: 'deleted' };
}

/** Search by exact `Name#1234` or by name prefix; blocks hide both ways. */
export async function searchUsers(ctx: Ctx, me: UserRow, handle: string, limit: number, offset: number) {
  const q = handle.trim();
  if (!q) throw badRequest('validation_failed', 'handle must not be empty', { field: 'handle' });
  const exact = /^(.+)#(\d{4})$/.exec(q);
  if (!exact && [...q].length < ctx.config.searchMinPrefix) {
    throw badRequest('prefix_too_short', `A name prefix needs at least ${ctx.config.searchMinPrefix} characters (or search an exact Name#1234)`, { field: 'handle' });
  }
  await limitSearch(ctx, me.id);
  const notBlocked = `NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $1 AND b.blocked = u.id) OR (b.blocker = u.id AND b.blocked = $1))`;
  const rows = exact
    ? (
        await ctx.db.query<UserRow & { friend: boolean }>(
          `SELECT u.*, EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id) AS friend
             FROM users u WHERE u.name_key = $2 AND u.discriminator = $3 AND u.id <> $1 AND u.visibility <> 'private' AND ${notBlocked}`,
          [me.id, exact[1].trim().toLowerCase(), exact[2]],
        )
      ).rows
    : (
        await ctx.db.query<UserRow & { friend: boolean }>(
          `SELECT u.*, EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id) AS friend
             FROM users u
            WHERE u.name_key LIKE $2 ESCAPE '\\' AND u.id <> $1 AND ${notBlocked}
              AND (u.visibility = 'public' OR (u.visibility = 'friends' AND EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id)))
            ORDER BY u.name_key, u.discriminator LIMIT $3 OFFSET $4`,
          [me.id, q.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c) + '%', limit, offset],
        )
      ).rows;
  return rows.map((u) => userSummary(u, { friend: u.friend }));
}

export const REPORT_REASONS = ['spam', 'harassment', 'cheating', 'offensive_name', 'inappropriate_content', 'other'] as const;

export async function fileReport(
  ctx: Ctx,
  me: UserRow,
  game: GameContext,
  body: { targetHandle?: string; targetPublicId?: string; reason: string; context?: string },
) {
  // A report about someone who blocked the caller is taken (a harassed player must be able to report the
  // harasser), so a report about nobody is answered the same way, storing nothing: a report never tells
  // whether its target exists or has blocked the caller.
  const target = await resolveTarget(ctx.db, { handle: body.targetHandle, publicId: body.targetPublicId }, { handle: 'targetHandle', publicId: 'targetPublicId' }).catch(
    (err: unknown) => {
      if ((err as { code?: string }).code === 'user_not_found') return null;
      throw err;
    },
  );
  if (target?.id === me.id) throw badRequest('cannot_report_self', 'You cannot report yourself');
  await limitOutreach(ctx, me.id);
  if (!target) return { status: 'received' as const };
  await ctx.db.query('INSERT INTO reports (reporter, target, reason, context, game_id) VALUES ($1, $2, $3, $4, $5)', [
    me.id,
    target.id,
    body.reason,
    body.context ?? null,
    game.gameId,
  ]);
  return { status: 'received' as const };
}

// ------------------------------------------------------------ notes

export const NOTE_MAX = 1000;

export async function getNote(ctx: Ctx, me: UserRow, publicId: string) {
  const subject = await requireAddressableUser(ctx.db, me, publicId).catch(() => {
    throw notFound('no_note', 'No note about this user');
  });
  const n = (await ctx.db.query<{ text: string; updated_at: Date }>('SELECT text, updated_at FROM notes WHERE author = $1 AND subject = $2', [me.id, subject.id])).rows[0];
  if (!n) throw notFound('no_note', 'No note about this user');
  return { subjectPublicId: subject.public_id, subjectFullHandle: fullHandle(subject), text: n.text, updatedAt: new Date(n.updated_at).toISOString() };
}

/** Sets a note; an empty (blank) text clears it and answers null (204). */
export async function putNote(ctx: Ctx, me: UserRow, publicId: string, text: string) {
  const subject = await requireAddressableUser(ctx.db, me, publicId);
  if (subject.id === me.id) throw badRequest('cannot_note_self', 'Notes are about other users');
  const t = text.trim();
  if (!t) {
    await ctx.db.query('DELETE FROM notes WHERE author = $1 AND subject = $2', [me.id, subject.id]);
    return null;
  }
  const n = (
    await ctx.db.query<{ text: string; updated_at: Date }>(
      `INSERT INTO notes (author, subject, text, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (author, subject) DO UPDATE SET text = EXCLUDED.text, updated_at = EXCLUDED.updated_at RETURNING text, updated_at`,
      [me.id, subject.id, t, ctx.now()],
    )
  ).rows[0];
  return { subjectPublicId: subject.public_id, subjectFullHandle: fullHandle(subject), text: n.text, updatedAt: new Date(n.updated_at).toISOString() };
}

/** Idempotent: deleting an absent note is fine; an unknown user is 404 user_not_found. */
export async function deleteNote(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const subject = await requireAddressableUser(ctx.db, me, publicId);
  await ctx.db.query('DELETE FROM notes WHERE author = $1 AND subject = $2', [me.id, subject.id]);
}
