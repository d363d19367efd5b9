/**
 * Sessions, access tokens and rotating refresh tokens.
 *
 * A refresh token is 32 random bytes (base64url); only its SHA-256 is stored.
 * Each use spends the row in one conditional statement (queries/tokens.ts),
 * so among concurrent uses of one token exactly one wins; a later use of a spent
 * token is treated as theft: the session and its whole chain are revoked.
 */
import { randomUUID } from 'node:crypto';
import { createBatcher, randomToken, sha256Hex, signAccessToken, type Database, type Queryable } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import { fail } from '../errors.js';
import { totpOf } from '../queries/second-factors.js';
import { hasPasskey } from '../queries/passkeys.js';
import {
  insertRefreshToken,
  refreshTokenByHash,
  rotateRefreshTokens,
  sessionOfRefreshHash,
  type RotatedRow,
  type Rotation,
} from '../queries/tokens.js';
import { insertSession } from '../queries/sessions.js';
import type { KeyCache } from './keys.js';
import { audit, type AuditContext } from './audit.js';
import type { AuthContext, RefreshRotator } from '../context.js';

export { DENY_JTI, DENY_SID } from './revocation.js';

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
  /** A guest account (not upgraded yet): its tokens carry `guest: true` (docs/auth.md, "Guests"). */
  guest?: boolean;
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

/**
 * Concurrent refreshes leave in one statement (group commit): one round trip and one commit for all of
 * them instead of one each. Should a statement still be aborted as a deadlock victim (a plan other than
 * the index walk, with two batches replaying the same two tokens), the kit's batcher retries it one
 * token at a time (as any failed batch).
 */
export function createRotator(db: Database, refreshTtlMs: number): RefreshRotator {
  return createBatcher<Rotation, RotatedRow | undefined>(async (batch) => {
    // Sent in hash order: the plan walks the presented tokens in that order, so concurrent batches lock
    // shared rows in the same order and do not deadlock.
    const order = batch.map((_, i) => i).sort((x, y) => (batch[x].hash < batch[y].hash ? -1 : batch[x].hash > batch[y].hash ? 1 : 0));
    const rows = await rotateRefreshTokens(db, order.map((i) => batch[i]), refreshTtlMs);
    const out: (RotatedRow | undefined)[] = batch.map(() => undefined);
    for (const row of rows) out[order[row.ord - 1]] = row;
    return out;
  });
}

/** The session's access token, signed with the current key. */
async function accessToken(config: AuthConfig, keys: KeyCache, s: SessionSubject, sid: string, platform: string): Promise<string> {
  // iat in milliseconds: a revocation cut refuses the tokens issued before it, not those of the same second after it.
  const nowMs = Date.now();
  const iat = Math.floor(nowMs / 1000);
  return signAccessToken(config.tokenFormat, keys.signingKey(), config.issuer, config.audience, {
    sub: s.accountId,
    sid,
    platform,
    roles: s.roles,
    region: s.region || config.defaultRegion,
    jti: randomUUID(),
    iat: nowMs / 1000,
    exp: iat + config.accessTtlSeconds,
    guest: s.guest === true,
  });
}

/**
 * The rows of a new session and its first refresh token, for callers that write them inside one
 * statement of their own (guest sign-up, password login); createSession writes the same rows.
 */
export function newSessionRows(config: AuthConfig, s: SessionSubject, opts: { method: string; ip?: string }) {
  const refreshTtlMs = config.refreshTtlDays * 86_400_000;
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
}

export type SessionRows = ReturnType<typeof newSessionRows>;

/**
 * A spent token presented again: the token was stolen or the client is broken; either way the session
 * ends (revoked, every token spent, its sid denied and announced) and the caller answers token_reused.
 */
async function endReusedSession(ctx: AuthContext, f: { session_id: string; account_id: string }, who: AuditContext) {
  await ctx.revoker.revoke(
    { reason: 'token_reused', accountId: f.account_id, sessionId: f.session_id },
    {
      after: async (tx, ended) => {
        if (ended.length) await audit(tx, who, 'refresh', f.account_id, { session_id: f.session_id, outcome: 'token_reused', session_revoked: true });
      },
    },
  );
}

/** Inside the caller's transaction: a session and its first refresh token. */
export async function createSession(
  ctx: AuthContext,
  tx: Queryable,
  s: SessionSubject,
  opts: { method: string; deviceId: string | null; ip?: string },
): Promise<{ sessionId: string; refreshToken: string }> {
  const r = newSessionRows(ctx.config, s, opts);
  await insertSession(tx, { id: r.sessionId, accountId: s.accountId, deviceId: opts.deviceId, method: opts.method, ipCidr: r.ipCidr, region: r.region, expiresAt: r.expiresAt });
  await insertRefreshToken(tx, { id: r.refreshId, sessionId: r.sessionId, hash: r.refreshHash, prevId: null, expiresAt: r.refreshExpiresAt });
  return { sessionId: r.sessionId, refreshToken: r.refreshToken };
}

/** After the session's transaction committed: the response body. */
export async function tokenPair(ctx: AuthContext, s: SessionSubject, session: { sessionId: string; refreshToken: string }, method: string): Promise<TokenPair> {
  const { config } = ctx;
  return {
    access_token: await accessToken(config, ctx.keys, await withSecondFactorRoles(ctx, s), session.sessionId, method),
    refresh_token: session.refreshToken,
    expires_in: config.accessTtlSeconds,
    token_type: 'Bearer',
  };
}

/**
 * AUTH_SECOND_FACTOR_ROLES: a token carries those roles only when the account has an authenticator on; without one
 * they are left out (the account acts as a player and can enrol, then signs in again). Read at every issue, so
 * enrolling or removing the factor takes effect at the next sign-in or refresh.
 */
async function withSecondFactorRoles(ctx: AuthContext, s: SessionSubject): Promise<SessionSubject> {
  const guarded = ctx.config.secondFactorRoles;
  if (!guarded.length || !s.roles.some((r) => guarded.includes(r))) return s;
  // A passkey counts: it is user-verifying (docs/auth.md, "Passkeys").
  if ((await totpOf(ctx.db, s.accountId))?.confirmed_at || (await hasPasskey(ctx.db, s.accountId))) return s;
  return { ...s, roles: s.roles.filter((r) => !guarded.includes(r)) };
}

export async function refreshTokens(ctx: AuthContext, refreshToken: string, who: AuditContext): Promise<TokenPair & { account_id: string }> {
  const hash = sha256Hex(refreshToken);
  // One statement (shared with the refreshes arriving at the same time): spend the presented token (the
  // conditional update decides the winner among concurrent uses: a spent row no longer matches), insert its
  // successor and the audit row.
  const secret = randomToken(32);
  const row = await ctx.rotator({ hash, nextId: randomUUID(), nextHash: sha256Hex(secret), ip: who.ip ?? null, nodeId: who.nodeId });
  if (row) {
    const subject = { accountId: row.account_id, roles: row.roles, region: row.home_region, guest: row.is_guest };
    return { ...(await tokenPair(ctx, subject, { sessionId: row.session_id, refreshToken: secret }, row.auth_method)), account_id: row.account_id };
  }
  const f = await refreshTokenByHash(ctx.db, hash);
  if (f?.used) {
    if (!f.revoked_at) await endReusedSession(ctx, f, who);
    throw fail('token_reused', 'This refresh token was already used; the session has been terminated');
  }
  throw fail('invalid_refresh_token', 'The refresh token is unknown, expired or its session was revoked');
}

/**
 * Revokes the session (every refresh token spent, the sid and the presented jti denied, the revocation
 * announced) and audits the logout; false when it had already ended (denied again, not announced again).
 */
export async function logout(ctx: AuthContext, sessionId: string, accountId: string, who: AuditContext, jti?: string): Promise<boolean> {
  const { sessions } = await ctx.revoker.revoke(
    { reason: 'logout', accountId, sessionId, jti, alsoSids: [sessionId] },
    {
      after: async (tx, ended) => {
        if (ended.length) await audit(tx, who, 'logout', accountId, { session_id: sessionId });
      },
    },
  );
  return sessions.length > 0;
}

export async function sessionOfRefreshToken(ctx: AuthContext, refreshToken: string): Promise<{ session_id: string; account_id: string; revoked_at: Date | null } | undefined> {
  return sessionOfRefreshHash(ctx.db, sha256Hex(refreshToken));
}
