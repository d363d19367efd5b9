/** The users table: profiles, handles, search and erasure. */
import type { Queryable } from '@platform/kit';

export type ProfileVisibility = 'public' | 'friends' | 'private';

/** A profile row (internal; account_id never leaves the service). */
export interface UserRow {
  id: string;
  account_id: string;
  public_id: string;
  display_name: string;
  name_key: string;
  discriminator: string;
  avatar_url: string | null;
  status: string | null;
  visibility: ProfileVisibility;
  invisible: boolean;
  /** Found by name-prefix search and suggested to friends' friends (migration 0010). */
  searchable: boolean;
  created_at: Date;
}

/** Profile columns an edit may set; an absent key is left as it is. */
export interface ProfileColumns {
  avatar_url?: string | null;
  status?: string | null;
  visibility?: ProfileVisibility;
  invisible?: boolean;
  searchable?: boolean;
}

export async function userByAccount(db: Queryable, accountId: string): Promise<UserRow | undefined> {
  return (await db.query<UserRow>('SELECT * FROM users WHERE account_id = $1', [accountId])).rows[0];
}

export async function userById(db: Queryable, id: string): Promise<UserRow | undefined> {
  return (await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id])).rows[0];
}

export async function userByPublicId(db: Queryable, publicId: string): Promise<UserRow | undefined> {
  return (await db.query<UserRow>('SELECT * FROM users WHERE public_id = $1', [publicId])).rows[0];
}

/** By full handle: the lower-cased name and the 4-digit discriminator. */
export async function userByHandle(db: Queryable, nameKey: string, discriminator: string): Promise<UserRow | undefined> {
  return (await db.query<UserRow>('SELECT * FROM users WHERE name_key = $1 AND discriminator = $2', [nameKey, discriminator])).rows[0];
}

/** Rows of several users in one statement (missing ids are left out). */
export async function usersByIds(db: Queryable, ids: string[]): Promise<UserRow[]> {
  return (await db.query<UserRow>('SELECT * FROM users WHERE id = ANY($1::uuid[])', [ids])).rows;
}

/** The new row, or undefined when the account has one already; a taken handle throws a unique violation. */
export async function insertUser(
  db: Queryable,
  u: { accountId: string; publicId: string; displayName: string; nameKey: string; discriminator: string },
): Promise<UserRow | undefined> {
  const r = await db.query<UserRow>(
    `INSERT INTO users (account_id, public_id, display_name, name_key, discriminator)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id) DO NOTHING RETURNING *`,
    [u.accountId, u.publicId, u.displayName, u.nameKey, u.discriminator],
  );
  return r.rows[0];
}

/** A new spelling of the same name (letter case): the handle stays. */
export async function setDisplayName(db: Queryable, id: string, displayName: string): Promise<UserRow> {
  return (await db.query<UserRow>('UPDATE users SET display_name = $2 WHERE id = $1 RETURNING *', [id, displayName])).rows[0];
}

/** A new name and discriminator; a taken handle throws a unique violation. */
export async function setName(db: Queryable, id: string, name: { displayName: string; nameKey: string; discriminator: string }): Promise<UserRow> {
  const r = await db.query<UserRow>('UPDATE users SET display_name = $2, name_key = $3, discriminator = $4 WHERE id = $1 RETURNING *', [
    id,
    name.displayName,
    name.nameKey,
    name.discriminator,
  ]);
  return r.rows[0];
}

const PROFILE_COLUMNS = ['avatar_url', 'status', 'visibility', 'invisible', 'searchable'] as const;

/** Sets the given profile columns (at least one) in one statement. */
export async function setProfileColumns(db: Queryable, id: string, columns: ProfileColumns): Promise<UserRow> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const col of PROFILE_COLUMNS) {
    if (columns[col] === undefined) continue;
    params.push(columns[col]);
    sets.push(`${col} = $${params.length}`);
  }
  return (await db.query<UserRow>(`UPDATE users SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params)).rows[0];
}

/** Erasure: friendships, requests, blocks, mutes, notes, invites and chat messages go with it (cascades). */
export async function deleteUser(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM users WHERE id = $1', [id]);
}

export type SearchRow = UserRow & { friend: boolean };

const NOT_BLOCKED = `NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $1 AND b.blocked = u.id) OR (b.blocker = u.id AND b.blocked = $1))`;

/** In a game context, only players seen in that game (user_games); without one, everyone. */
const IN_GAME = `($2::text IS NULL OR EXISTS (SELECT 1 FROM user_games g WHERE g.game_id = $2 AND g.user_id = u.id))`;

/** The user with this exact handle, unless private, the searcher, blocked either way, or not of the game. */
export async function searchByHandle(db: Queryable, searcher: string, gameId: string | null, nameKey: string, discriminator: string): Promise<SearchRow[]> {
  const r = await db.query<SearchRow>(
    `SELECT u.*, EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id) AS friend
             FROM users u WHERE u.name_key = $3 AND u.discriminator = $4 AND u.id <> $1 AND u.visibility <> 'private' AND ${NOT_BLOCKED} AND ${IN_GAME}`,
    [searcher, gameId, nameKey, discriminator],
  );
  return r.rows;
}

/** Searchable users of the game whose name starts with `prefix` (lower case) that the searcher may see, one page. */
export async function searchByPrefix(db: Queryable, searcher: string, gameId: string | null, prefix: string, limit: number, offset: number): Promise<SearchRow[]> {
  const r = await db.query<SearchRow>(
    `SELECT u.*, EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id) AS friend
             FROM users u
            WHERE u.name_key LIKE $3 ESCAPE '\\' AND u.id <> $1 AND u.searchable AND ${NOT_BLOCKED} AND ${IN_GAME}
              AND (u.visibility = 'public' OR (u.visibility = 'friends' AND EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id)))
            ORDER BY u.name_key, u.discriminator LIMIT $4 OFFSET $5`,
    [searcher, gameId, prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%', limit, offset],
  );
  return r.rows;
}
