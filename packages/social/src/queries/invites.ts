/** Party and game invites. `state` is pending, accepted, declined, expired or revoked. */
import type { Queryable } from '@platform/kit';
import type { JoinColumns } from './parties.js';

export interface InviteRow {
  id: string;
  kind: 'party' | 'game';
  from_user: string;
  to_user: string;
  party_id: string | null;
  session_handle: string | null;
  join_lobby_id: string | null;
  join_bag: Record<string, unknown> | null;
  has_join: boolean;
  state: string;
  expires_at: Date;
}

export async function insertInvite(
  db: Queryable,
  i: {
    kind: 'party' | 'game';
    from: string;
    to: string;
    partyId: string | null;
    sessionHandle: string | null;
    join: JoinColumns;
    hasJoin: boolean;
    expiresAt: Date;
  },
): Promise<InviteRow> {
  const r = await db.query<InviteRow>(
    `INSERT INTO invites (kind, from_user, to_user, party_id, session_handle, join_lobby_id, join_bag, has_join, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [i.kind, i.from, i.to, i.partyId, i.sessionHandle, i.join.lobbyId, i.join.bag, i.hasJoin, i.expiresAt],
  );
  return r.rows[0];
}

export async function inviteById(db: Queryable, id: string): Promise<InviteRow | undefined> {
  return (await db.query<InviteRow>('SELECT * FROM invites WHERE id = $1', [id])).rows[0];
}

/** Pending invites not expired at `now` to (incoming) or from (outgoing) the user, newest first. */
export async function pendingInvites(db: Queryable, userId: string, dir: 'incoming' | 'outgoing', now: Date): Promise<InviteRow[]> {
  const col = dir === 'incoming' ? 'to_user' : 'from_user';
  const r = await db.query<InviteRow>(`SELECT * FROM invites WHERE ${col} = $1 AND state = 'pending' AND expires_at > $2 ORDER BY created_at DESC`, [userId, now]);
  return r.rows;
}

/** Marks a pending invite expired (found past its expiry). */
export async function expireInvite(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE invites SET state = 'expired' WHERE id = $1 AND state = 'pending'`, [id]);
}

/** The declined invite, or undefined when it was no longer pending. */
export async function declinePending(db: Queryable, id: string): Promise<InviteRow | undefined> {
  return (await db.query<InviteRow>(`UPDATE invites SET state = 'declined' WHERE id = $1 AND state = 'pending' RETURNING *`, [id])).rows[0];
}

/** False when the invite was no longer pending. */
export async function revokePending(db: Queryable, id: string): Promise<boolean> {
  return (await db.query(`UPDATE invites SET state = 'revoked' WHERE id = $1 AND state = 'pending'`, [id])).rowCount > 0;
}

/** False when the invite was no longer pending. */
export async function acceptPending(db: Queryable, id: string): Promise<boolean> {
  return (await db.query(`UPDATE invites SET state = 'accepted' WHERE id = $1 AND state = 'pending'`, [id])).rowCount > 0;
}

/** Inside the join transaction, after the invite was checked usable. */
export async function markAccepted(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE invites SET state = 'accepted' WHERE id = $1`, [id]);
}

/** A disbanded party's pending invites. */
export async function revokePartyInvites(db: Queryable, partyId: string): Promise<void> {
  await db.query(`UPDATE invites SET state = 'revoked' WHERE party_id = $1 AND state = 'pending'`, [partyId]);
}

/** Pending invites either way between two users (a block). */
export async function revokeInvitesBetween(db: Queryable, a: string, b: string): Promise<void> {
  await db.query(`UPDATE invites SET state = 'revoked' WHERE state = 'pending' AND ((from_user = $1 AND to_user = $2) OR (from_user = $2 AND to_user = $1))`, [a, b]);
}
