/**
 * The refresh_tokens table. A refresh token is stored as its SHA-256 only; each use marks the row used in
 * one conditional UPDATE, so among concurrent uses of one token exactly one wins.
 */
import type { Queryable } from '@platform/kit';

/**
 * Refresh rotation in one statement (atomic as any single statement):
 * $1 presented token hash, $2 id and $3 hash of the successor, $4 refresh TTL
 * in ms (capped by the session's end), $5 client ip, $6 node id. Returns the
 * spent row joined with its session and account; no row = not rotated.
 * What one refresh costs the database on its own: bench/load/refresh-sql.ts runs it as the refresh
 * figure's baseline. The service runs REFRESH_ROTATE_MANY_SQL below, the same work for every refresh
 * arriving together.
 */
export const REFRESH_ROTATE_SQL = `WITH spent AS (
  UPDATE refresh_tokens rt SET used = true
  FROM sessions s, accounts a
  WHERE rt.token_hash = $1 AND rt.used = false AND rt.expires_at > now()
    AND s.id = rt.session_id AND s.revoked_at IS NULL AND s.expires_at > now()
    AND a.id = s.account_id AND a.status = 'active'
  RETURNING rt.id, rt.session_id, s.account_id, s.expires_at AS session_expires_at, s.auth_method, a.roles, a.home_region, a.is_guest
), successor AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at)
  SELECT $2::uuid, session_id, $3::text, id, LEAST(now() + make_interval(secs => $4::bigint / 1000.0), session_expires_at) FROM spent
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  SELECT account_id, 'refresh', $5::text, $6::text, jsonb_build_object('session_id', session_id) FROM spent
)
SELECT id, session_id, account_id, auth_method, roles, home_region, is_guest FROM spent`;

/**
 * The same rotation for several presented tokens in one statement (group commit of concurrent
 * refreshes): $1 presented hashes, $2 successor ids, $3 successor hashes, $4 client ips, $5 node ids
 * (one element per refresh, in the same order), $6 refresh TTL in ms. Returns one row per rotated
 * token with its 1-based position `ord`. A token presented twice in one batch joins its row twice;
 * PostgreSQL updates the row once and returns one of the two positions: exactly one wins, as with
 * two concurrent single statements, and the other finds the token used (reuse detection).
 */
export const REFRESH_ROTATE_MANY_SQL = `WITH presented AS (
  SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS p(token_hash, next_id, next_hash, ip, node_id, ord)
), spent AS (
  UPDATE refresh_tokens rt SET used = true
  FROM presented p, sessions s, accounts a
  WHERE rt.token_hash = p.token_hash AND rt.used = false AND rt.expires_at > now()
    AND s.id = rt.session_id AND s.revoked_at IS NULL AND s.expires_at > now()
    AND a.id = s.account_id AND a.status = 'active'
  RETURNING p.ord, p.next_id, p.next_hash, p.ip, p.node_id, rt.id, rt.session_id, s.account_id, s.expires_at AS session_expires_at,
    s.auth_method, a.roles, a.home_region, a.is_guest
), successor AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at)
  SELECT next_id, session_id, next_hash, id, LEAST(now() + make_interval(secs => $6::bigint / 1000.0), session_expires_at) FROM spent
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  SELECT account_id, 'refresh', ip, node_id, jsonb_build_object('session_id', session_id) FROM spent
)
SELECT ord::int AS ord, id, session_id, account_id, auth_method, roles, home_region, is_guest FROM spent`;

export interface RotatedRow {
  id: string;
  session_id: string;
  account_id: string;
  auth_method: string;
  roles: string[];
  home_region: string;
  is_guest: boolean;
}

/** One presented token of REFRESH_ROTATE_MANY_SQL and its successor. */
export interface Rotation {
  hash: string;
  nextId: string;
  nextHash: string;
  ip: string | null;
  nodeId: string;
}

/** Runs REFRESH_ROTATE_MANY_SQL; each returned row carries the 1-based position `ord` of its rotation. */
export async function rotateRefreshTokens(db: Queryable, rotations: Rotation[], refreshTtlMs: number): Promise<(RotatedRow & { ord: number })[]> {
  // Planned per call, not prepared: refresh_tokens grows by a row per refresh, and a generic plan made
  // while it was small (a hash join over a sequential scan) would be kept as it grows. Measured in the
  // bench on a fresh database: 39–50% of the baseline prepared, 52–57% planned per call.
  const r = await db.query<RotatedRow & { ord: number }>(REFRESH_ROTATE_MANY_SQL, [
    rotations.map((b) => b.hash),
    rotations.map((b) => b.nextId),
    rotations.map((b) => b.nextHash),
    rotations.map((b) => b.ip),
    rotations.map((b) => b.nodeId),
    refreshTtlMs,
  ], { prepare: false });
  return r.rows;
}

export async function insertRefreshToken(
  tx: Queryable,
  t: { id: string; sessionId: string; hash: string; prevId: string | null; expiresAt: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [t.id, t.sessionId, t.hash, t.prevId, t.expiresAt],
  );
}

/** A token by its hash, whatever its state, with its session (after a failed rotation: reuse or unknown?). */
export async function refreshTokenByHash(
  db: Queryable,
  hash: string,
): Promise<{ session_id: string; used: boolean; account_id: string; revoked_at: Date | null } | undefined> {
  const found = await db.query<{ session_id: string; used: boolean; account_id: string; revoked_at: Date | null }>(
    `SELECT rt.session_id, rt.used, s.account_id, s.revoked_at FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id WHERE rt.token_hash = $1`,
    [hash],
  );
  return found.rows[0];
}

/** The session of an unexpired token (used or not). */
export async function sessionOfRefreshHash(
  db: Queryable,
  hash: string,
): Promise<{ session_id: string; account_id: string; revoked_at: Date | null } | undefined> {
  const r = await db.query<{ session_id: string; account_id: string; revoked_at: Date | null }>(
    `SELECT rt.session_id, s.account_id, s.revoked_at FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id
         WHERE rt.token_hash = $1 AND rt.expires_at > now()`,
    [hash],
  );
  return r.rows[0];
}

/** Spends every token of the session (after reuse was detected). */
export async function spendSessionTokens(tx: Queryable, sessionId: string): Promise<void> {
  await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id = $1`, [sessionId]);
}

/** Spends the session's unused tokens (logout). */
export async function spendUnusedSessionTokens(tx: Queryable, sessionId: string): Promise<void> {
  await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id = $1 AND used = false`, [sessionId]);
}

export async function spendTokensOfSessions(tx: Queryable, sessionIds: string[]): Promise<void> {
  await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id = ANY($1::uuid[])`, [sessionIds]);
}

export async function spendAccountTokens(tx: Queryable, accountId: string): Promise<void> {
  await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id IN (SELECT id FROM sessions WHERE account_id = $1)`, [accountId]);
}
