/** Listed parties (docs/social.md, "Open parties"): a listing row per party, found while the party admits. */
import type { Queryable } from '@platform/kit';

export interface ListingRow {
  party_id: string;
  game_id: string;
  mode: string | null;
  region: string | null;
  language: string | null;
  metadata: Record<string, unknown> | null;
  listed_at: Date;
}

export async function upsertListing(
  db: Queryable,
  l: { partyId: string; gameId: string; mode: string | null; region: string | null; language: string | null; metadata: string | null; at: Date },
): Promise<ListingRow> {
  const r = await db.query<ListingRow>(
    `INSERT INTO party_listings (party_id, game_id, mode, region, language, metadata, listed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (party_id) DO UPDATE SET game_id = $2, mode = $3, region = $4, language = $5, metadata = $6, listed_at = $7
       RETURNING *`,
    [l.partyId, l.gameId, l.mode, l.region, l.language, l.metadata, l.at],
  );
  return r.rows[0];
}

export async function deleteListing(db: Queryable, partyId: string): Promise<void> {
  await db.query('DELETE FROM party_listings WHERE party_id = $1', [partyId]);
}

export async function listingOf(db: Queryable, partyId: string): Promise<ListingRow | undefined> {
  return (await db.query<ListingRow>('SELECT * FROM party_listings WHERE party_id = $1', [partyId])).rows[0];
}

export type OpenPartyRow = ListingRow & {
  leader_public_id: string;
  leader_display_name: string;
  leader_discriminator: string;
  visibility: string;
  max_size: number;
  member_count: number;
};

/**
 * One page of the game's listed parties that admit `viewer` now: not full, not Private, FriendsOnly only when the
 * viewer is a friend of a member, and no block either way between the viewer and a member; newest listing first.
 */
export async function openParties(
  db: Queryable,
  q: { viewer: string; gameId: string; mode?: string; region?: string; language?: string; after?: { at: string; id: string }; limit: number },
): Promise<OpenPartyRow[]> {
  const params: unknown[] = [q.viewer, q.gameId, q.limit];
  const where: string[] = [];
  for (const col of ['mode', 'region', 'language'] as const) {
    if (q[col] === undefined) continue;
    params.push(q[col]!.toLowerCase());
    where.push(`lower(l.${col}) = $${params.length}`);
  }
  if (q.after) {
    params.push(q.after.at, q.after.id);
    where.push(`(l.listed_at, l.party_id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  const r = await db.query<OpenPartyRow>(
    `SELECT l.*, lu.public_id AS leader_public_id, lu.display_name AS leader_display_name, lu.discriminator AS leader_discriminator,
            p.visibility, p.max_size, c.n AS member_count
       FROM party_listings l
       JOIN parties p ON p.id = l.party_id
       JOIN users lu ON lu.id = p.leader
       CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM party_members m WHERE m.party_id = p.id) c
      WHERE l.game_id = $2 AND p.visibility <> 'Private' AND c.n < p.max_size
        AND NOT EXISTS (SELECT 1 FROM party_members m WHERE m.party_id = p.id AND m.user_id = $1)
        AND NOT EXISTS (SELECT 1 FROM party_members m JOIN blocks b ON (b.blocker = $1 AND b.blocked = m.user_id) OR (b.blocker = m.user_id AND b.blocked = $1) WHERE m.party_id = p.id)
        AND (p.visibility = 'Public' OR EXISTS (SELECT 1 FROM party_members m JOIN friendships f ON f.user_id = $1 AND f.friend_id = m.user_id WHERE m.party_id = p.id))
        ${where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY l.listed_at DESC, l.party_id DESC LIMIT $3`,
    params,
  );
  return r.rows;
}
