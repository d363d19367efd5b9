/**
 * Sessions, access tokens and rotating refresh tokens.
 *
 * A refresh token is 32 random bytes (base64url); only its SHA-256 is stored.
 * Each use marks the row used in one conditional UPDATE, so among concurrent
 * uses of one token exactly one wins; a later use of a used token is treated
 * as theft: the session and its whole chain are revoked.
 */
import { randomUUID } from 'node:crypto';
import { createBatcher, randomToken, sha256Hex, signAccessToken, unauthorized, type Database, type Queryable, type StateStore } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import type { KeyCache } from './keys.js';
import { audit, type AuditContext } from './audit.js';

export const DENY_SID = 'deny:sid';
export const DENY_JTI = 'deny:jti';

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
  RETURNING rt.id, rt.session_id, s.account_id, s.expires_at AS session_expires_at, s.auth_method, a.roles, a.home_region
), successor AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at)
  SELECT $2::uuid, session_id, $3::text, id, LEAST(now() + make_interval(secs => $4::bigint / 1000.0), session_expires_at) FROM spent
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  SELECT account_id, 'refresh', $5::text, $6::text, jsonb_build_object('session_id', session_id) FROM spent
)
SELECT id, session_id, account_id, auth_method, roles, home_region FROM spent`;

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
    s.auth_method, a.roles, a.home_region
), successor AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at)
  SELECT next_id, session_id, next_hash, id, LEAST(now() + make_interval(secs => $6::bigint / 1000.0), session_expires_at) FROM spent
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  SELECT account_id, 'refresh', ip, node_id, jsonb_build_object('session_id', session_id) FROM spent
)
SELECT ord::int AS ord, id, session_id, account_id, auth_method, roles, home_region FROM spent`;

interface RotatedRow {
  id: string;
  session_id: string;
  account_id: string;
  auth_method: string;
  roles: string[];
  home_region: string;
}

interface Rotation {
  hash: string;
  nextId: string;
  nextHash: string;
  ip: string | null;
  nodeId: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

export interface SessionSubject {
  accountId: string;
  roles: string[];
  region: string;
}

/** Keeps a /24 (IPv4) or /64 (IPv6) network: enough for abuse analysis, less personal than the address. */
export function ipCidr(ip: string | undefined): string | null {
  if (!ip) return null;
  const v4 = ip.replace(/^::ffff:/, '');
  if (/^\d+\.\d+\.\d+\.\d+$/.test(v4)) return v4.split('.').slice(0, 3).join('.') + '.0/24';
  if (ip.includes(':')) {
    const parts = ip.split('::')[0].split(':').slice(0, 4);
    while (parts.length < 4) parts.push('0');
    return parts.join(':') + '::/64';
  }
  return null;
}

export function createTokenService(config: AuthConfig, db: Database, state: StateStore, keys: KeyCache) {
  const refreshTtlMs = config.refreshTtlDays * 86_400_000;
  const maxAccessTtlMs = config.accessTtlSeconds * 1000 + 60_000;
  const rotateMany = async (batch: Rotation[]): Promise<(RotatedRow | undefined)[]> => {
    // Sent in hash order: the plan walks the presented tokens in that order, so concurrent batches lock
    // shared rows in the same order and do not deadlock.
    const order = batch.map((_, i) => i).sort((x, y) => (batch[x].hash < batch[y].hash ? -1 : batch[x].hash > batch[y].hash ? 1 : 0));
    const sorted = order.map((i) => batch[i]);
    // Planned per call, not prepared: refresh_tokens grows by a row per refresh, and a generic plan made
    // while it was small (a hash join over a sequential scan) would be kept as it grows. Measured in the
    // bench on a fresh database: 39–50% of the baseline prepared, 52–57% planned per call.
    const r = await db.query<RotatedRow & { ord: number }>(REFRESH_ROTATE_MANY_SQL, [
      sorted.map((b) => b.hash),
      sorted.map((b) => b.nextId),
      sorted.map((b) => b.nextHash),
      sorted.map((b) => b.ip),
      sorted.map((b) => b.nodeId),
      refreshTtlMs,
    ], { prepare: false });
    const out: (RotatedRow | undefined)[] = batch.map(() => undefined);
    for (const row of r.rows) out[order[row.ord - 1]] = row;
    return out;
  };
  /**
   * Concurrent refreshes leave in one statement (group commit): one round trip and one commit for all of
   * them instead of one each. Should a statement still be aborted as a deadlock victim (a plan other than
   * the index walk above, with two batches replaying the same two tokens), the kit's batcher retries it one
   * token at a time (as any failed batch).
   */
  const rotate = createBatcher<Rotation, RotatedRow | undefined>(rotateMany);

  async function accessToken(s: SessionSubject, sid: string, platform: string): Promise<string> {
    const iat = Math.floor(Date.now() / 1000);
    return signAccessToken(config.tokenFormat, keys.signingKey(), config.issuer, config.audience, {
      sub: s.accountId,
      sid,
      platform,
      roles: s.roles,
      region: s.region || config.defaultRegion,
      jti: randomUUID(),
      iat,
      exp: iat + config.accessTtlSeconds,
    });
  }

  async function insertRefreshToken(tx: Queryable, sessionId: string, prevId: string | null, sessionExpiresAt: Date): Promise<string> {
    const secret = randomToken(32);
    const expiresAt = new Date(Math.min(Date.now() + refreshTtlMs, sessionExpiresAt.getTime()));
    await tx.query(
      `INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [randomUUID(), sessionId, sha256Hex(secret), prevId, expiresAt],
    );
    return secret;
  }

  return {
    maxAccessTtlMs,

    /**
     * The rows of a new session and its first refresh token, for callers that write them inside one
     * statement of their own (guest sign-up); createSession writes the same rows.
     */
    newSessionRows(s: SessionSubject, opts: { method: string; ip?: string }) {
      const secret = randomToken(32);
      const expiresAt = new Date(Date.now() + config.sessionMaxDays * 86_400_000);
      return {
        sessionId: randomUUID(),
        method: opts.method,
        ipCidr: ipCidr(opts.ip),
        region: s.region || config.defaultRegion,
        expiresAt,
        refreshId: randomUUID(),
        refreshHash: sha256Hex(secret),
        refreshExpiresAt: new Date(Math.min(Date.now() + refreshTtlMs, expiresAt.getTime())),
        refreshToken: secret,
      };
    },

    /** Inside the caller's transaction: a session and its first refresh token. */
    async createSession(
      tx: Queryable,
      s: SessionSubject,
      opts: { method: string; deviceId: string | null; ip?: string },
    ): Promise<{ sessionId: string; refreshToken: string }> {
      const sessionId = randomUUID();
      const expiresAt = new Date(Date.now() + config.sessionMaxDays * 86_400_000);
      await tx.query(
        `INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [sessionId, s.accountId, opts.deviceId, opts.method, ipCidr(opts.ip), s.region || config.defaultRegion, expiresAt],
      );
      const refreshToken = await insertRefreshToken(tx, sessionId, null, expiresAt);
      return { sessionId, refreshToken };
    },

    /** After the session's transaction committed: the response body. */
    async pair(s: SessionSubject, session: { sessionId: string; refreshToken: string }, method: string): Promise<TokenPair> {
      return {
        access_token: await accessToken(s, session.sessionId, method),
        refresh_token: session.refreshToken,
        expires_in: config.accessTtlSeconds,
        token_type: 'Bearer',
      };
    },

    async refresh(refreshToken: string, ctx: AuditContext): Promise<TokenPair & { account_id: string }> {
      const hash = sha256Hex(refreshToken);
      // One statement (shared with the refreshes arriving at the same time): spend the presented token (the
      // conditional UPDATE decides the winner among concurrent uses: a used row no longer matches), insert its
      // successor and the audit row.
      const secret = randomToken(32);
      const row = await rotate({ hash, nextId: randomUUID(), nextHash: sha256Hex(secret), ip: ctx.ip ?? null, nodeId: ctx.nodeId });
      if (row) {
        const subject = { accountId: row.account_id, roles: row.roles, region: row.home_region };
        return { ...(await this.pair(subject, { sessionId: row.session_id, refreshToken: secret }, row.auth_method)), account_id: row.account_id };
      }
      const found = await db.query<{ session_id: string; used: boolean; account_id: string; revoked_at: Date | null }>(
        `SELECT rt.session_id, rt.used, s.account_id, s.revoked_at FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id WHERE rt.token_hash = $1`,
        [hash],
      );
      const f = found.rows[0];
      if (f?.used) {
        // Reuse: the token was stolen or the client is broken; either way the session ends.
        if (!f.revoked_at) {
          await db.transaction(async (tx) => {
            const revoked = await tx.query(`UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id`, [f.session_id]);
            await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id = $1`, [f.session_id]);
            if (revoked.rowCount) await audit(tx, ctx, 'refresh', f.account_id, { session_id: f.session_id, outcome: 'token_reused', session_revoked: true });
          });
          await state.setAdd(DENY_SID, f.session_id, maxAccessTtlMs);
        }
        throw unauthorized('token_reused', 'This refresh token was already used; the session has been terminated');
      }
      throw unauthorized('invalid_refresh_token', 'The refresh token is unknown, expired or its session was revoked');
    },

    /** Revokes a session and puts its sid (and the presented jti) on the deny set. */
    async revokeSession(tx: Queryable, sessionId: string): Promise<boolean> {
      const r = await tx.query(`UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id`, [sessionId]);
      await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id = $1 AND used = false`, [sessionId]);
      return r.rowCount > 0;
    },

    async deny(sid: string, jti?: string): Promise<void> {
      await state.setAdd(DENY_SID, sid, maxAccessTtlMs);
      if (jti) await state.setAdd(DENY_JTI, jti, maxAccessTtlMs);
    },

    async sessionOfRefreshToken(refreshToken: string): Promise<{ session_id: string; account_id: string; revoked_at: Date | null } | undefined> {
      const r = await db.query<{ session_id: string; account_id: string; revoked_at: Date | null }>(
        `SELECT rt.session_id, s.account_id, s.revoked_at FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id
         WHERE rt.token_hash = $1 AND rt.expires_at > now()`,
        [sha256Hex(refreshToken)],
      );
      return r.rows[0];
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
