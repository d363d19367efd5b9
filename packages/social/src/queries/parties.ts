/** Parties and their members (a user is in at most one party: party_members_one_party). */
import type { Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

export type PartyVisibility = 'Public' | 'FriendsOnly' | 'Private';

export interface PartyRow {
  id: string;
  leader: string;
  max_size: number;
  visibility: PartyVisibility;
  session_handle: string | null;
  join_lobby_id: string | null;
  join_bag: Record<string, unknown> | null;
  has_join: boolean;
  created_at: Date;
}

export type MemberRow = UserRow & { joined_at: Date };

/** Join metadata columns as stored (bag as JSON text, null when absent). */
export interface JoinColumns {
  lobbyId: string | null;
  bag: string | null;
}

export async function partyById(db: Queryable, id: string): Promise<PartyRow | undefined> {
  return (await db.query<PartyRow>('SELECT * FROM parties WHERE id = $1', [id])).rows[0];
}

/** The party row, locked until the transaction ends. */
export async function lockParty(db: Queryable, id: string): Promise<PartyRow | undefined> {
  return (await db.query<PartyRow>('SELECT * FROM parties WHERE id = $1 FOR UPDATE', [id])).rows[0];
}

/** The party's size limit, its row locked until the transaction ends (two joins cannot both take the last seat). */
export async function lockPartySize(db: Queryable, id: string): Promise<number | undefined> {
  return (await db.query<{ max_size: number }>('SELECT max_size FROM parties WHERE id = $1 FOR UPDATE', [id])).rows[0]?.max_size;
}

export async function insertParty(
  db: Queryable,
  p: { leader: string; maxSize: number; visibility: PartyVisibility; join: JoinColumns; hasJoin: boolean },
): Promise<PartyRow> {
  const r = await db.query<PartyRow>(
    `INSERT INTO parties (leader, max_size, visibility, join_lobby_id, join_bag, has_join) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [p.leader, p.maxSize, p.visibility, p.join.lobbyId, p.join.bag, p.hasJoin],
  );
  return r.rows[0];
}

export async function deleteParty(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM parties WHERE id = $1', [id]);
}

export async function setLeader(db: Queryable, id: string, leader: string): Promise<void> {
  await db.query('UPDATE parties SET leader = $2 WHERE id = $1', [id, leader]);
}

export async function setSessionHandle(db: Queryable, id: string, sessionHandle: string | null): Promise<PartyRow> {
  return (await db.query<PartyRow>('UPDATE parties SET session_handle = $2 WHERE id = $1 RETURNING *', [id, sessionHandle])).rows[0];
}

export async function setPartyVisibility(db: Queryable, id: string, visibility: PartyVisibility): Promise<PartyRow> {
  return (await db.query<PartyRow>('UPDATE parties SET visibility = $2 WHERE id = $1 RETURNING *', [id, visibility])).rows[0];
}

export async function setJoinColumns(db: Queryable, id: string, join: JoinColumns): Promise<PartyRow> {
  const r = await db.query<PartyRow>('UPDATE parties SET join_lobby_id = $2, join_bag = $3, has_join = true WHERE id = $1 RETURNING *', [id, join.lobbyId, join.bag]);
  return r.rows[0];
}

// ------------------------------------------------------------ members

/** The members' user rows with their join time, longest-standing first. */
export async function partyMembers(db: Queryable, partyId: string): Promise<MemberRow[]> {
  const r = await db.query<MemberRow>('SELECT u.*, m.joined_at FROM party_members m JOIN users u ON u.id = m.user_id WHERE m.party_id = $1 ORDER BY m.seq', [partyId]);
  return r.rows;
}

export async function isPartyMember(db: Queryable, partyId: string, userId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM party_members WHERE party_id = $1 AND user_id = $2', [partyId, userId])).rowCount > 0;
}

export async function currentPartyId(db: Queryable, userId: string): Promise<string | undefined> {
  return (await db.query<{ party_id: string }>('SELECT party_id FROM party_members WHERE user_id = $1', [userId])).rows[0]?.party_id;
}

/** Throws a unique violation when the user is in a party already. */
export async function insertMember(db: Queryable, partyId: string, userId: string): Promise<void> {
  await db.query('INSERT INTO party_members (party_id, user_id) VALUES ($1, $2)', [partyId, userId]);
}

export async function deleteMember(db: Queryable, partyId: string, userId: string): Promise<void> {
  await db.query('DELETE FROM party_members WHERE party_id = $1 AND user_id = $2', [partyId, userId]);
}

export async function memberCount(db: Queryable, partyId: string): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM party_members WHERE party_id = $1', [partyId])).rows[0].n;
}

/** The longest-standing member's id (undefined: the party is empty). */
export async function firstMember(db: Queryable, partyId: string): Promise<string | undefined> {
  return (await db.query<{ user_id: string }>('SELECT user_id FROM party_members WHERE party_id = $1 ORDER BY seq LIMIT 1', [partyId])).rows[0]?.user_id;
}

/** Is any member of the party a friend of the user? */
export async function hasFriendInParty(db: Queryable, userId: string, partyId: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM friendships f JOIN party_members m ON m.user_id = f.friend_id WHERE f.user_id = $1 AND m.party_id = $2 LIMIT 1', [
    userId,
    partyId,
  ]);
  return r.rowCount > 0;
}
