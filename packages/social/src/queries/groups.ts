/** Groups, their roles, members, join requests, bans and invites (migration 0008). */
import { UUID_PATTERN, type Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

export type JoinPolicy = 'open' | 'request' | 'invite';

export interface GroupRow {
  id: string;
  game_id: string;
  name: string;
  name_key: string;
  tag: string;
  description: string;
  language: string | null;
  avatar_url: string | null;
  metadata: Record<string, unknown> | null;
  join_policy: JoinPolicy;
  member_limit: number;
  member_count: number;
  created_by: string | null;
  created_at: Date;
}

export interface GroupRoleRow {
  group_id: string;
  name: string;
  rank: number;
  permissions: string[];
}

export type GroupMemberRow = UserRow & { role: string; joined_at: Date };

/** The columns a group is made with or edited to (metadata as JSON text). */
export interface GroupColumns {
  name: string;
  nameKey: string;
  tag: string;
  description: string;
  language: string | null;
  avatarUrl: string | null;
  metadata: string | null;
  joinPolicy: JoinPolicy;
  memberLimit: number;
}

/** The group; undefined for an unknown id, also one that is not a UUID (never an error from the database). */
export async function groupById(db: Queryable, id: string): Promise<GroupRow | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  return (await db.query<GroupRow>('SELECT * FROM groups WHERE id = $1', [id])).rows[0];
}

/** The row, locked until the transaction ends (joins against the member limit, role and ownership changes). */
export async function lockGroup(db: Queryable, id: string): Promise<GroupRow | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  return (await db.query<GroupRow>('SELECT * FROM groups WHERE id = $1 FOR UPDATE', [id])).rows[0];
}

export async function insertGroup(db: Queryable, gameId: string, createdBy: string, c: GroupColumns): Promise<GroupRow> {
  const r = await db.query<GroupRow>(
    `INSERT INTO groups (game_id, name, name_key, tag, description, language, avatar_url, metadata, join_policy, member_limit, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [gameId, c.name, c.nameKey, c.tag, c.description, c.language, c.avatarUrl, c.metadata, c.joinPolicy, c.memberLimit, createdBy],
  );
  return r.rows[0];
}

export async function updateGroup(db: Queryable, id: string, c: GroupColumns): Promise<GroupRow> {
  const r = await db.query<GroupRow>(
    `UPDATE groups SET name = $2, name_key = $3, tag = $4, description = $5, language = $6, avatar_url = $7, metadata = $8,
       join_policy = $9, member_limit = $10 WHERE id = $1 RETURNING *`,
    [id, c.name, c.nameKey, c.tag, c.description, c.language, c.avatarUrl, c.metadata, c.joinPolicy, c.memberLimit],
  );
  return r.rows[0];
}

export async function deleteGroup(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM groups WHERE id = $1', [id]);
}

/**
 * A page of a game's groups in name order after `afterKey`: by name prefix (byte order on the lowercased name),
 * tag (case-insensitive), language, open ones only.
 */
export async function searchGroups(
  db: Queryable,
  q: { gameId: string; prefix?: string; tag?: string; language?: string; openOnly: boolean; afterKey?: string; limit: number },
): Promise<GroupRow[]> {
  const where = ['game_id = $1'];
  const args: unknown[] = [q.gameId];
  const arg = (v: unknown) => `$${args.push(v)}`;
  if (q.prefix) {
    // A range on the "C"-collated key: the index serves it, and no LIKE pattern needs escaping.
    where.push(`name_key >= ${arg(q.prefix)}`, `name_key < ${arg(q.prefix + '\u{10FFFF}')}`);
  }
  if (q.tag) where.push(`upper(tag) = ${arg(q.tag.toUpperCase())}`);
  if (q.language) where.push(`language = ${arg(q.language)}`);
  if (q.openOnly) where.push(`join_policy = 'open'`);
  if (q.afterKey !== undefined) where.push(`name_key > ${arg(q.afterKey)}`);
  return (await db.query<GroupRow>(`SELECT * FROM groups WHERE ${where.join(' AND ')} ORDER BY name_key LIMIT ${arg(q.limit)}`, args)).rows;
}

/** The groups a user belongs to in a game, with their role, in name order. */
export async function groupsOf(db: Queryable, userId: string, gameId: string): Promise<(GroupRow & { role: string })[]> {
  return (
    await db.query<GroupRow & { role: string }>(
      `SELECT g.*, m.role FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $1 AND g.game_id = $2 ORDER BY g.name_key`,
      [userId, gameId],
    )
  ).rows;
}

/** Every group of a user in any game (the export, erasure). */
export async function allGroupsOf(db: Queryable, userId: string): Promise<(GroupRow & { role: string; joined_at: Date })[]> {
  return (
    await db.query<GroupRow & { role: string; joined_at: Date }>(
      `SELECT g.*, m.role, m.joined_at FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $1 ORDER BY g.game_id, g.name_key`,
      [userId],
    )
  ).rows;
}

export async function membershipCount(db: Queryable, userId: string, gameId: string): Promise<number> {
  const r = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $1 AND g.game_id = $2',
    [userId, gameId],
  );
  return Number(r.rows[0].n);
}

// ------------------------------------------------------------ roles

export async function groupRoles(db: Queryable, groupId: string): Promise<GroupRoleRow[]> {
  return (await db.query<GroupRoleRow>('SELECT * FROM group_roles WHERE group_id = $1 ORDER BY rank DESC, name', [groupId])).rows;
}

export async function upsertRole(db: Queryable, r: GroupRoleRow): Promise<void> {
  await db.query(
    `INSERT INTO group_roles (group_id, name, rank, permissions) VALUES ($1, $2, $3, $4)
     ON CONFLICT (group_id, name) DO UPDATE SET rank = EXCLUDED.rank, permissions = EXCLUDED.permissions`,
    [r.group_id, r.name, r.rank, r.permissions],
  );
}

/** Deletes a defined role; its holders become members. */
export async function deleteRole(db: Queryable, groupId: string, name: string): Promise<boolean> {
  const r = await db.query('DELETE FROM group_roles WHERE group_id = $1 AND name = $2', [groupId, name]);
  if (!r.rowCount) return false;
  await db.query(`UPDATE group_members SET role = 'member' WHERE group_id = $1 AND role = $2`, [groupId, name]);
  return true;
}

export async function roleCount(db: Queryable, groupId: string): Promise<number> {
  return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM group_roles WHERE group_id = $1', [groupId])).rows[0].n);
}

// ------------------------------------------------------------ members

export async function memberOf(db: Queryable, groupId: string, userId: string): Promise<GroupMemberRow | undefined> {
  return (
    await db.query<GroupMemberRow>(
      'SELECT u.*, m.role, m.joined_at FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = $1 AND m.user_id = $2',
      [groupId, userId],
    )
  ).rows[0];
}

/** Adds a member and counts it (under the group's lock). */
export async function insertGroupMember(db: Queryable, groupId: string, userId: string, role: string): Promise<void> {
  await db.query('INSERT INTO group_members (group_id, user_id, role) VALUES ($1, $2, $3)', [groupId, userId, role]);
  await db.query('UPDATE groups SET member_count = member_count + 1 WHERE id = $1', [groupId]);
  await db.query('DELETE FROM group_requests WHERE group_id = $1 AND user_id = $2', [groupId, userId]);
  await db.query('DELETE FROM group_invites WHERE group_id = $1 AND to_user = $2', [groupId, userId]);
}

export async function deleteGroupMember(db: Queryable, groupId: string, userId: string): Promise<boolean> {
  const r = await db.query('DELETE FROM group_members WHERE group_id = $1 AND user_id = $2', [groupId, userId]);
  if (!r.rowCount) return false;
  await db.query('UPDATE groups SET member_count = member_count - 1 WHERE id = $1', [groupId]);
  return true;
}

export async function setMemberRole(db: Queryable, groupId: string, userId: string, role: string): Promise<void> {
  await db.query('UPDATE group_members SET role = $3 WHERE group_id = $1 AND user_id = $2', [groupId, userId, role]);
}

/** A page of members in joining order after (joinedAt, userId), without those who blocked the reader. */
export async function memberPage(
  db: Queryable,
  groupId: string,
  reader: string,
  after: { at: string; userId: string } | undefined,
  limit: number,
): Promise<(GroupMemberRow & { joined_key: string })[]> {
  const args: unknown[] = [groupId, reader];
  let keyset = '';
  if (after) keyset = ` AND (m.joined_at, m.user_id) > ($${args.push(after.at)}::timestamptz, $${args.push(after.userId)}::uuid)`;
  return (
    // joined_key: the time as PostgreSQL writes it, to the microsecond (a JavaScript Date keeps milliseconds only,
    // and a cursor rounded to them would repeat or skip members who joined within the same millisecond).
    await db.query<GroupMemberRow & { joined_key: string }>(
      `SELECT u.*, m.role, m.joined_at, m.joined_at::text AS joined_key FROM group_members m JOIN users u ON u.id = m.user_id
       WHERE m.group_id = $1 AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker = m.user_id AND b.blocked = $2)${keyset}
       ORDER BY m.joined_at, m.user_id LIMIT $${args.push(limit)}`,
      args,
    )
  ).rows;
}

/** Every member's id (events to the whole group). */
export async function memberIds(db: Queryable, groupId: string): Promise<string[]> {
  return (await db.query<{ user_id: string }>('SELECT user_id FROM group_members WHERE group_id = $1', [groupId])).rows.map((r) => r.user_id);
}

/** Who inherits an owner leaving: the highest-ranked other member, the longest-standing among equals. */
export async function successor(db: Queryable, groupId: string, leaving: string): Promise<{ user_id: string } | undefined> {
  return (
    await db.query<{ user_id: string }>(
      `SELECT m.user_id FROM group_members m LEFT JOIN group_roles r ON r.group_id = m.group_id AND r.name = m.role
       WHERE m.group_id = $1 AND m.user_id <> $2
       ORDER BY CASE m.role WHEN 'owner' THEN 100 WHEN 'admin' THEN 50 WHEN 'member' THEN 0 ELSE coalesce(r.rank, 0) END DESC, m.joined_at, m.user_id
       LIMIT 1`,
      [groupId, leaving],
    )
  ).rows[0];
}

// ------------------------------------------------------------ requests, bans, invites

export async function insertRequest(db: Queryable, groupId: string, userId: string): Promise<boolean> {
  const r = await db.query('INSERT INTO group_requests (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [groupId, userId]);
  return (r.rowCount ?? 0) > 0;
}

export async function deleteRequest(db: Queryable, groupId: string, userId: string): Promise<boolean> {
  return ((await db.query('DELETE FROM group_requests WHERE group_id = $1 AND user_id = $2', [groupId, userId])).rowCount ?? 0) > 0;
}

/** Pending requests, oldest first, without those of players the reader blocked. */
export async function requestsFor(db: Queryable, groupId: string, reader: string, limit: number): Promise<(UserRow & { requested_at: Date })[]> {
  return (
    await db.query<UserRow & { requested_at: Date }>(
      `SELECT u.*, q.created_at AS requested_at FROM group_requests q JOIN users u ON u.id = q.user_id
       WHERE q.group_id = $1 AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker = $2 AND b.blocked = q.user_id)
       ORDER BY q.created_at, q.user_id LIMIT $3`,
      [groupId, reader, limit],
    )
  ).rows;
}

export async function isBanned(db: Queryable, groupId: string, userId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM group_bans WHERE group_id = $1 AND user_id = $2', [groupId, userId])).rows.length > 0;
}

export async function insertBan(db: Queryable, groupId: string, userId: string): Promise<void> {
  await db.query('INSERT INTO group_bans (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [groupId, userId]);
  await db.query('DELETE FROM group_requests WHERE group_id = $1 AND user_id = $2', [groupId, userId]);
  await db.query('DELETE FROM group_invites WHERE group_id = $1 AND to_user = $2', [groupId, userId]);
}

export async function deleteBan(db: Queryable, groupId: string, userId: string): Promise<boolean> {
  return ((await db.query('DELETE FROM group_bans WHERE group_id = $1 AND user_id = $2', [groupId, userId])).rowCount ?? 0) > 0;
}

export interface GroupInviteRow {
  id: string;
  group_id: string;
  from_user: string;
  to_user: string;
  created_at: Date;
  expires_at: Date;
}

/** An invite (a new one replaces a pending one of the same group to the same player). */
export async function upsertInvite(db: Queryable, groupId: string, from: string, to: string, expiresAt: Date): Promise<GroupInviteRow> {
  return (
    await db.query<GroupInviteRow>(
      `INSERT INTO group_invites (group_id, from_user, to_user, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (group_id, to_user) DO UPDATE SET from_user = EXCLUDED.from_user, expires_at = EXCLUDED.expires_at, created_at = now()
       RETURNING *`,
      [groupId, from, to, expiresAt],
    )
  ).rows[0];
}

export async function inviteById(db: Queryable, id: string): Promise<GroupInviteRow | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  return (await db.query<GroupInviteRow>('SELECT * FROM group_invites WHERE id = $1', [id])).rows[0];
}

export async function deleteInvite(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM group_invites WHERE id = $1', [id]);
}

/** A player's unexpired invites with their groups and inviters, newest first. */
export async function invitesTo(db: Queryable, userId: string, now: Date): Promise<(GroupInviteRow & { group_name: string; group_tag: string; from_public_id: string })[]> {
  return (
    await db.query<GroupInviteRow & { group_name: string; group_tag: string; from_public_id: string }>(
      `SELECT i.*, g.name AS group_name, g.tag AS group_tag, u.public_id AS from_public_id
       FROM group_invites i JOIN groups g ON g.id = i.group_id JOIN users u ON u.id = i.from_user
       WHERE i.to_user = $1 AND i.expires_at > $2 ORDER BY i.created_at DESC, i.id LIMIT 100`,
      [userId, now],
    )
  ).rows;
}

// ------------------------------------------------------------ staff actions

export interface GroupModerationRow {
  id: string;
  group_id: string;
  action: 'rename' | 'clear_description' | 'disband';
  moderator_public_id: string | null;
  reason: string;
  /** The group's name, tag and description before the action, and after it (null: disbanded). */
  before: GroupShown;
  after: GroupShown | null;
  created_at: Date;
}

export interface GroupShown {
  name: string;
  tag: string;
  description: string;
}

export async function insertGroupModeration(
  db: Queryable,
  e: { groupId: string; gameId: string; action: GroupModerationRow['action']; moderator: string; reason: string; before: GroupShown; after: GroupShown | null },
): Promise<void> {
  await db.query(`INSERT INTO group_moderation (group_id, game_id, action, moderator, reason, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    e.groupId,
    e.gameId,
    e.action,
    e.moderator,
    e.reason,
    JSON.stringify(e.before),
    e.after === null ? null : JSON.stringify(e.after),
  ]);
}

/** A group's staff actions, oldest first (at most 100). */
export async function groupModeration(db: Queryable, groupId: string): Promise<GroupModerationRow[]> {
  return (
    await db.query<GroupModerationRow>(
      `SELECT l.id, l.group_id, l.action, u.public_id AS moderator_public_id, l.reason, l.before, l.after, l.created_at
       FROM group_moderation l LEFT JOIN users u ON u.id = l.moderator WHERE l.group_id = $1 ORDER BY l.created_at, l.id LIMIT 100`,
      [groupId],
    )
  ).rows;
}

export async function renameGroup(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('UPDATE groups SET name = $2, name_key = $3 WHERE id = $1', [id, name, name.toLowerCase()]);
}

export async function clearDescription(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE groups SET description = '' WHERE id = $1`, [id]);
}
