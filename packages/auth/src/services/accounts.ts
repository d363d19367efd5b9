/**
 * Sign-in flows (guest, email and password, platform tickets) and the
 * account's own operations (profile, link, unlink, export, delete, purge).
 */
import { randomUUID } from 'node:crypto';
import {
  AppError,
  badRequest,
  conflict,
  createBatcher,
  createSourceLockout,
  forbidden,
  hashPassword,
  isUniqueViolation,
  lockoutSource,
  randomToken,
  sha256Hex,
  unauthorized,
  verifyPassword,
  type Database,
  type Queryable,
  type StateStore,
} from '@platform/kit';
import type { AuthConfig } from '../config.js';
import { audit, type AuditContext } from './audit.js';
import { dummyHashFor, hashNewPassword } from './passwords.js';
import type { PlatformVerifiers, VerifiedPlatformIdentity } from './platform.js';
import type { TokenPair, TokenService, SessionSubject } from './tokens.js';

export const DEVICE_PLATFORMS = ['ios', 'android', 'win', 'mac', 'linux', 'console', 'web'] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];

export interface DeviceInput {
  fingerprint: string;
  platform?: DevicePlatform;
}

interface AccountRow {
  id: string;
  display_name: string;
  status: 'active' | 'locked' | 'banned' | 'deleted';
  roles: string[];
  home_region: string;
  is_guest: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export type SignInResult = TokenPair & { account_id: string };

const invalidCredentials = () => unauthorized('invalid_credentials', 'The email or password is wrong');
const subjectOf = (a: Pick<AccountRow, 'id' | 'roles' | 'home_region'>): SessionSubject => ({ accountId: a.id, roles: a.roles, region: a.home_region });

/** The account may sign in: banned and locked accounts are refused after the credential checked out. */
/**
 * Guest sign-up in one statement. $1 account id, $2 display name, $3 device platform (null: keep/web),
 * $4 fingerprint hash, $5 identity id, $6 guest secret hash, $7 idempotency key hash (null: none),
 * $8 client ip, $9 node id, $10 session id, $11 ip cidr, $12 region, $13 session expiry,
 * $14 refresh token id, $15 its hash, $16 its expiry.
 */
export const GUEST_CREATE_SQL = `WITH account AS (
  INSERT INTO accounts (id, display_name, is_guest, roles) VALUES ($1::uuid, $2::text, true, ARRAY['player'])
), device AS (
  INSERT INTO devices (account_id, platform, fingerprint_hash) VALUES ($1::uuid, COALESCE($3::text, 'web'), $4::text)
  ON CONFLICT (fingerprint_hash) DO UPDATE
    SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
        platform = COALESCE($3::text, devices.platform)
  RETURNING id
), identity AS (
  INSERT INTO identities (id, account_id, provider, provider_user_id, verified, last_login_at)
  VALUES ($5::uuid, $1::uuid, 'guest', $1::text, true, now())
), credential AS (
  INSERT INTO credentials (identity_id, type, secret_hash) VALUES ($5::uuid, 'guest_secret', $6::text)
), idempotency AS (
  INSERT INTO guest_idempotency (key_hash, account_id, device_id) SELECT $7::text, $1::uuid, id FROM device WHERE $7::text IS NOT NULL
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  VALUES ($1::uuid, 'login', $8::text, $9::text, '{"method":"guest","outcome":"success","created":true}'::jsonb)
), session AS (
  INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at)
  SELECT $10::uuid, $1::uuid, id, 'guest', $11::text, $12::text, $13::timestamptz FROM device
), refresh AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($14::uuid, $10::uuid, $15::text, NULL, $16::timestamptz)
)
SELECT id AS device_id FROM device`;

/**
 * GUEST_CREATE_SQL for several guests in one statement (group commit of concurrent sign-ups): the same
 * sixteen values, each as an array with one element per guest, in the same order. Devices already known
 * keep their platform when none is given, as in the single statement. Two guests of one device in the
 * same batch cannot be upserted by one command: the statement fails, and the caller then runs every guest
 * of the batch on its own (createGuest), which is also how a per-guest conflict (an Idempotency-Key sent
 * twice at once) reaches its own request.
 */
export const GUEST_CREATE_MANY_SQL = `WITH presented AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::uuid[], $11::text[], $12::text[], $13::timestamptz[], $14::uuid[], $15::text[], $16::timestamptz[])
    AS p(account_id, display_name, platform, fingerprint_hash, identity_id, secret_hash, key_hash, ip, node_id,
         session_id, ip_cidr, region, session_expires_at, refresh_id, refresh_hash, refresh_expires_at)
), account AS (
  INSERT INTO accounts (id, display_name, is_guest, roles) SELECT account_id, display_name, true, ARRAY['player'] FROM presented
), device AS (
  INSERT INTO devices (account_id, platform, fingerprint_hash) SELECT account_id, COALESCE(platform, 'web'), fingerprint_hash FROM presented
  ON CONFLICT (fingerprint_hash) DO UPDATE
    SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
        platform = COALESCE((SELECT p.platform FROM presented p WHERE p.fingerprint_hash = EXCLUDED.fingerprint_hash), devices.platform)
  RETURNING id, fingerprint_hash
), identity AS (
  INSERT INTO identities (id, account_id, provider, provider_user_id, verified, last_login_at)
  SELECT identity_id, account_id, 'guest', account_id::text, true, now() FROM presented
), credential AS (
  INSERT INTO credentials (identity_id, type, secret_hash) SELECT identity_id, 'guest_secret', secret_hash FROM presented
), idempotency AS (
  INSERT INTO guest_idempotency (key_hash, account_id, device_id)
  SELECT p.key_hash, p.account_id, d.id FROM presented p JOIN device d USING (fingerprint_hash) WHERE p.key_hash IS NOT NULL
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  SELECT account_id, 'login', ip, node_id, '{"method":"guest","outcome":"success","created":true}'::jsonb FROM presented
), session AS (
  INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at)
  SELECT p.session_id, p.account_id, d.id, 'guest', p.ip_cidr, p.region, p.session_expires_at FROM presented p JOIN device d USING (fingerprint_hash)
), refresh AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at)
  SELECT refresh_id, session_id, refresh_hash, NULL, refresh_expires_at FROM presented
)
SELECT count(*)::int AS created FROM device`;

/**
 * A successful password login in one statement (one round trip instead of a seven-statement
 * transaction): reset the failure counter, stamp the identity, upsert the device when one is given,
 * audit, and open the session with its first refresh token. $1 credential, $2 identity, $3 account,
 * $4 device platform, $5 device fingerprint hash (NULL: no device), $6 ip, $7 node id,
 * $8 session id, $9 ip cidr, $10 region, $11 session end, $12 refresh id, $13 refresh hash, $14 refresh end.
 */
// The credential row is written only when there is something to reset: most logins follow no failure, and
// an unconditional reset would write a new row version (and its WAL) per login.
export const LOGIN_SUCCESS_SQL = `WITH credential AS (
  UPDATE credentials SET failed_attempts = 0, locked_until = NULL WHERE id = $1::uuid AND (failed_attempts <> 0 OR locked_until IS NOT NULL)
), identity AS (
  UPDATE identities SET last_login_at = now() WHERE id = $2::uuid
), device AS (
  INSERT INTO devices (account_id, platform, fingerprint_hash)
  SELECT $3::uuid, COALESCE($4::text, 'web'), $5::text WHERE $5::text IS NOT NULL
  ON CONFLICT (fingerprint_hash) DO UPDATE
    SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
        platform = COALESCE($4::text, devices.platform)
  RETURNING id
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  VALUES ($3::uuid, 'login', $6::text, $7::text, '{"method":"email","outcome":"success"}'::jsonb)
), session AS (
  INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at)
  VALUES ($8::uuid, $3::uuid, (SELECT id FROM device), 'email', $9::text, $10::text, $11::timestamptz)
), refresh AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($12::uuid, $8::uuid, $13::text, NULL, $14::timestamptz)
)
SELECT (SELECT id FROM device) AS device_id`;

function assertUsable(a: Pick<AccountRow, 'status'>) {
  if (a.status === 'banned' || a.status === 'locked') throw forbidden('account_disabled', `The account is ${a.status}`);
  if (a.status === 'deleted') throw unauthorized('invalid_credentials', 'The credentials are not valid');
}

async function upsertDevice(tx: Queryable, device: DeviceInput | undefined, accountId: string | null): Promise<string | null> {
  if (!device) return null;
  const r = await tx.query<{ id: string }>(
    `INSERT INTO devices (account_id, platform, fingerprint_hash) VALUES ($1, COALESCE($2::text, 'web'), $3)
     ON CONFLICT (fingerprint_hash) DO UPDATE
       SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
           platform = COALESCE($2::text, devices.platform)
     RETURNING id`,
    [accountId, device.platform ?? null, sha256Hex(device.fingerprint)],
  );
  return r.rows[0].id;
}

export function createAccountService(config: AuthConfig, db: Database, tokens: TokenService, verifiers: PlatformVerifiers, state: StateStore) {
  // Lockout per (source, credential): a stranger's wrong passwords lock the stranger out, never the owner
  // (kit lockout.ts; docs/auth.md, "Lockout").
  const lockout = createSourceLockout(state, 'password', {
    threshold: config.lockoutThreshold,
    baseSeconds: config.lockoutBaseSeconds,
    maxSeconds: config.lockoutMaxSeconds,
  });

  async function signIn(
    tx: Queryable,
    account: Pick<AccountRow, 'id' | 'roles' | 'home_region'>,
    method: string,
    deviceId: string | null,
    ctx: AuditContext,
  ) {
    const session = await tokens.createSession(tx, subjectOf(account), { method, deviceId, ip: ctx.ip ?? undefined });
    return { subject: subjectOf(account), session, method };
  }

  async function finish(r: Awaited<ReturnType<typeof signIn>>): Promise<SignInResult> {
    return { ...(await tokens.pair(r.subject, r.session, r.method)), account_id: r.subject.accountId };
  }

  async function verifyTicket(provider: string, ticket: string, nonce?: string): Promise<VerifiedPlatformIdentity> {
    if (!(verifiers.configured() as string[]).includes(provider)) {
      throw badRequest('provider_not_configured', `The provider ${provider} is not configured on this platform`);
    }
    try {
      const id = await verifiers.verify(provider, ticket, nonce === undefined ? undefined : { nonce });
      if (!id.providerUserId) throw new Error('verifier returned no subject');
      return id;
    } catch (err) {
      if (err instanceof AppError && err.status !== 500) throw err;
      throw new AppError(401, 'invalid_ticket', 'The platform ticket could not be verified', { cause: err });
    }
  }

  /**
   * Guest sign-ups arriving together are written by one statement (one round trip and one commit for all).
   * When that statement fails, the kit's batcher writes every guest of the batch on its own, so each request
   * gets its own outcome (a duplicate device in the batch, an Idempotency-Key conflict) exactly as without grouping.
   */
  type GuestRow = (string | null)[];
  const createGuestRows = createBatcher<GuestRow, void>(async (rows) => {
    if (rows.length > 1) await db.query(GUEST_CREATE_MANY_SQL, rows[0].map((_, column) => rows.map((r) => r[column])));
    else await db.query(GUEST_CREATE_SQL, rows[0]);
    return rows.map(() => undefined);
  });

  async function markGuestUpgraded(tx: Queryable, accountId: string) {
    await tx.query(`UPDATE accounts SET is_guest = false, updated_at = now() WHERE id = $1`, [accountId]);
  }

  const service = {
    // ------------------------------------------------------------ guest
    async createGuest(
      input: { device: DeviceInput; idempotencyKey?: string },
      ctx: AuditContext,
    ): Promise<SignInResult & { guest_secret: string }> {
      const keyHash = input.idempotencyKey ? sha256Hex(`guest-idempotency:${input.idempotencyKey}`) : undefined;
      const fingerprintHash = sha256Hex(input.device.fingerprint);
      if (keyHash) {
        const replay = await service.replayGuest(keyHash, fingerprintHash, input.device, ctx);
        if (replay) return replay;
      }
      const secret = randomToken(32);
      const secretHash = await hashPassword(secret, config.guestSecretParams);
      try {
        // One statement (shared with the sign-ups arriving at the same time; atomic as any statement):
        // account, device, identity, credential, idempotency key, audit row, session and refresh token.
        // Same rows as the step-by-step sign-ins.
        const accountId = randomUUID();
        const subject: SessionSubject = { accountId, roles: ['player'], region: '' };
        const s = tokens.newSessionRows(subject, { method: 'guest', ip: ctx.ip ?? undefined });
        await createGuestRows([
          accountId,
          `guest-${randomUUID().slice(0, 8)}`,
          input.device.platform ?? null,
          fingerprintHash,
          randomUUID(),
          secretHash,
          keyHash ?? null,
          ctx.ip ?? null,
          ctx.nodeId,
          s.sessionId,
          s.ipCidr,
          s.region,
          s.expiresAt.toISOString(),
          s.refreshId,
          s.refreshHash,
          s.refreshExpiresAt.toISOString(),
        ]);
        return {
          ...(await finish({ subject, session: { sessionId: s.sessionId, refreshToken: s.refreshToken }, method: 'guest' })),
          guest_secret: secret,
        };
      } catch (err) {
        // A concurrent request with the same Idempotency-Key won the insert: answer as its retry.
        if (keyHash && isUniqueViolation(err, 'guest_idempotency_pkey')) {
          const replay = await service.replayGuest(keyHash, fingerprintHash, input.device, ctx);
          if (replay) return replay;
        }
        throw err;
      }
    },

    /**
     * A retried /guest (same Idempotency-Key, same device) gets the SAME guest
     * account: a new session and a fresh guest secret (the first response, and
     * its secret, never reached the client; the stored hash is replaced).
     */
    async replayGuest(
      keyHash: string,
      fingerprintHash: string,
      device: DeviceInput,
      ctx: AuditContext,
    ): Promise<(SignInResult & { guest_secret: string }) | undefined> {
      const found = await db.query<{ account_id: string; fingerprint_hash: string }>(
        `SELECT g.account_id, d.fingerprint_hash FROM guest_idempotency g JOIN devices d ON d.id = g.device_id WHERE g.key_hash = $1`,
        [keyHash],
      );
      const row = found.rows[0];
      if (!row) return undefined;
      if (row.fingerprint_hash !== fingerprintHash) {
        throw conflict('idempotency_key_reused', 'This Idempotency-Key was used by another device');
      }
      const secret = randomToken(32);
      const secretHash = await hashPassword(secret, config.guestSecretParams);
      const r = await db.transaction(async (tx) => {
        const a = (await tx.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1 FOR UPDATE`, [row.account_id])).rows[0];
        if (!a || a.status !== 'active' || !a.is_guest) throw conflict('idempotency_key_reused', 'The guest of this Idempotency-Key is no longer available');
        await tx.query(
          `UPDATE credentials SET secret_hash = $2, rotated_at = now(), failed_attempts = 0, locked_until = NULL
           WHERE type = 'guest_secret' AND identity_id IN (SELECT id FROM identities WHERE account_id = $1 AND provider = 'guest')`,
          [a.id, secretHash],
        );
        const deviceId = await upsertDevice(tx, device, a.id);
        await audit(tx, ctx, 'login', a.id, { method: 'guest', outcome: 'success', idempotent_replay: true });
        return signIn(tx, a, 'guest', deviceId, ctx);
      });
      return { ...(await finish(r)), guest_secret: secret };
    },

    async restoreGuest(input: { accountId: string; guestSecret: string; device: DeviceInput }, ctx: AuditContext): Promise<SignInResult> {
      const found = await db.query<AccountRow & { secret_hash: string; identity_id: string }>(
        `SELECT a.*, c.secret_hash, i.id AS identity_id FROM accounts a
         JOIN identities i ON i.account_id = a.id AND i.provider = 'guest'
         JOIN credentials c ON c.identity_id = i.id AND c.type = 'guest_secret'
         WHERE a.id = $1`,
        [input.accountId],
      );
      const a = found.rows[0];
      const ok = await verifyPassword(a?.secret_hash ?? (await dummyHashFor(config.guestSecretParams)), input.guestSecret);
      if (!a || !ok) {
        await audit(db, ctx, 'login', a?.id ?? null, { method: 'guest', outcome: 'failure' });
        throw unauthorized('invalid_credentials', 'The account id or guest secret is wrong');
      }
      assertUsable(a);
      const r = await db.transaction(async (tx) => {
        const deviceId = await upsertDevice(tx, input.device, a.id);
        await tx.query(`UPDATE identities SET last_login_at = now() WHERE id = $1`, [a.identity_id]);
        await audit(tx, ctx, 'login', a.id, { method: 'guest', outcome: 'success', restored: true });
        return signIn(tx, a, 'guest', deviceId, ctx);
      });
      return finish(r);
    },

    // ------------------------------------------------------------ email and password
    async register(
      input: { email: string; password: string; displayName?: string; device?: DeviceInput },
      ctx: AuditContext,
    ): Promise<SignInResult> {
      const email = input.email.trim().toLowerCase();
      const hash = await hashNewPassword(input.password, config.passwordParams);
      try {
        const r = await db.transaction(async (tx) => {
          const a = (
            await tx.query<AccountRow>(`INSERT INTO accounts (display_name, is_guest) VALUES ($1, false) RETURNING *`, [
              input.displayName ?? email.split('@')[0],
            ])
          ).rows[0];
          const identity = await tx.query<{ id: string }>(
            `INSERT INTO identities (account_id, provider, provider_user_id, verified, last_login_at) VALUES ($1, 'email', $2, false, now()) RETURNING id`,
            [a.id, email],
          );
          await tx.query(`INSERT INTO credentials (identity_id, type, secret_hash) VALUES ($1, 'password', $2)`, [identity.rows[0].id, hash]);
          const deviceId = await upsertDevice(tx, input.device, a.id);
          await audit(tx, ctx, 'login', a.id, { method: 'email', outcome: 'success', registered: true });
          return signIn(tx, a, 'email', deviceId, ctx);
        });
        return finish(r);
      } catch (err) {
        if (isUniqueViolation(err, 'identities_provider_user')) throw conflict('email_taken', 'An account with this email exists');
        throw err;
      }
    },

    async login(input: { email: string; password: string; device?: DeviceInput }, ctx: AuditContext): Promise<SignInResult> {
      const email = input.email.trim().toLowerCase();
      const found = await db.query<AccountRow & { identity_id: string; credential_id: string; secret_hash: string; failed_attempts: number }>(
        `SELECT a.*, i.id AS identity_id, c.id AS credential_id, c.secret_hash, c.failed_attempts
         FROM identities i JOIN accounts a ON a.id = i.account_id
         JOIN credentials c ON c.identity_id = i.id AND c.type = 'password'
         WHERE i.provider = 'email' AND i.provider_user_id = $1`,
        [email],
      );
      const row = found.rows[0];
      const source = lockoutSource(ctx.ip);
      const retryMs = row ? await lockout.lockedForMs(row.credential_id, source) : 0;
      if (row && retryMs > 0) {
        await audit(db, ctx, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'locked' });
        throw new AppError(423, 'account_locked', 'Too many wrong passwords; the credential is locked for a while', {
          headers: { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))) },
        });
      }
      const ok = await verifyPassword(row?.secret_hash ?? (await dummyHashFor(config.passwordParams)), input.password);
      if (!row || row.status === 'deleted') {
        await audit(db, ctx, 'login', null, { method: 'email', outcome: 'failure', reason: 'unknown_email' });
        throw invalidCredentials();
      }
      if (!ok) {
        // The source's count (atomic in the state store, so parallel failures on any node add up exactly)
        // decides its lock; the credential's count in the database is kept for the account's record.
        const [{ failures, lockedSeconds }, r] = await Promise.all([
          lockout.failure(row.credential_id, source),
          db.query<{ failed_attempts: number }>(
            `UPDATE credentials SET failed_attempts = failed_attempts + 1 WHERE id = $1 RETURNING failed_attempts`,
            [row.credential_id],
          ),
        ]);
        const attempts = r.rows[0]?.failed_attempts ?? 0;
        await audit(db, ctx, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'wrong_password', failed_attempts: attempts, source_failures: failures });
        if (lockedSeconds > 0) await audit(db, ctx, 'lockout', row.id, { source_failures: failures, locked_seconds: lockedSeconds });
        throw invalidCredentials();
      }
      assertUsable(row);
      if (row.failed_attempts !== 0) await lockout.success(row.credential_id, source);
      const subject = subjectOf(row);
      const sr = tokens.newSessionRows(subject, { method: 'email', ip: ctx.ip ?? undefined });
      await db.query(LOGIN_SUCCESS_SQL, [
        row.credential_id,
        row.identity_id,
        row.id,
        input.device?.platform ?? null,
        input.device ? sha256Hex(input.device.fingerprint) : null,
        ctx.ip ?? null,
        ctx.nodeId,
        sr.sessionId,
        sr.ipCidr,
        sr.region,
        sr.expiresAt,
        sr.refreshId,
        sr.refreshHash,
        sr.refreshExpiresAt,
      ]);
      return finish({ subject, session: { sessionId: sr.sessionId, refreshToken: sr.refreshToken }, method: 'email' });
    },

    // ------------------------------------------------------------ platform tickets
    /** Upserts the identity on (provider, provider_user_id); safe to retry. Returns its owner. */
    async upsertPlatformIdentity(tx: Queryable, id: VerifiedPlatformIdentity, accountId: string): Promise<{ identityId: string; accountId: string; created: boolean }> {
      const ins = await tx.query<{ id: string; account_id: string }>(
        `INSERT INTO identities (account_id, provider, provider_user_id, verified, last_login_at) VALUES ($1, $2, $3, true, now())
         ON CONFLICT (provider, provider_user_id) DO NOTHING RETURNING id, account_id`,
        [accountId, id.provider, id.providerUserId],
      );
      if (ins.rowCount) return { identityId: ins.rows[0].id, accountId: ins.rows[0].account_id, created: true };
      const got = await tx.query<{ id: string; account_id: string }>(
        `UPDATE identities SET last_login_at = now() WHERE provider = $1 AND provider_user_id = $2 RETURNING id, account_id`,
        [id.provider, id.providerUserId],
      );
      return { identityId: got.rows[0].id, accountId: got.rows[0].account_id, created: false };
    },

    async platformSignIn(
      input: { provider: string; ticket: string; nonce?: string; device?: DeviceInput; linkTo?: string },
      ctx: AuditContext,
    ): Promise<SignInResult & { account_created: boolean }> {
      const id = await verifyTicket(input.provider, input.ticket, input.nonce);
      if (input.linkTo) {
        const accountId = input.linkTo;
        const r = await db.transaction(async (tx) => {
          const a = (await tx.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1 FOR UPDATE`, [accountId])).rows[0];
          if (!a || a.status !== 'active') throw unauthorized('invalid_token', 'The account is not active');
          const got = await service.upsertPlatformIdentity(tx, id, a.id);
          if (got.accountId !== a.id) throw conflict('identity_linked_elsewhere', 'This platform identity belongs to another account');
          if (got.created) {
            await markGuestUpgraded(tx, a.id);
            await audit(tx, ctx, 'link', a.id, { provider: id.provider, identity_id: got.identityId });
          }
          const deviceId = await upsertDevice(tx, input.device, a.id);
          await audit(tx, ctx, 'login', a.id, { method: id.provider, outcome: 'success' });
          return signIn(tx, a, id.provider, deviceId, ctx);
        });
        return { ...(await finish(r)), account_created: false };
      }
      let created = false;
      const r = await db.transaction(async (tx) => {
        const existing = await tx.query<AccountRow>(
          `SELECT a.* FROM identities i JOIN accounts a ON a.id = i.account_id WHERE i.provider = $1 AND i.provider_user_id = $2`,
          [id.provider, id.providerUserId],
        );
        let a = existing.rows[0];
        if (!a) {
          created = true;
          a = (
            await tx.query<AccountRow>(`INSERT INTO accounts (display_name, is_guest) VALUES ($1, false) RETURNING *`, [
              id.displayName ?? `${id.provider}-player`,
            ])
          ).rows[0];
        }
        const got = await service.upsertPlatformIdentity(tx, id, a.id);
        if (got.accountId !== a.id) {
          // A concurrent first sign-in created the identity: retry against its account.
          throw new RetrySignIn();
        }
        assertUsable(a);
        const deviceId = await upsertDevice(tx, input.device, a.id);
        await audit(tx, ctx, 'login', a.id, { method: id.provider, outcome: 'success', created: got.created });
        return signIn(tx, a, id.provider, deviceId, ctx);
      }).catch(async (err) => {
        if (err instanceof RetrySignIn) {
          created = false;
          return service.platformSignInVerified(id, input.device, ctx);
        }
        throw err;
      });
      return { ...('subject' in r ? await finish(r) : r), account_created: created };
    },

    /** Second attempt after losing a creation race; the identity exists now. */
    async platformSignInVerified(id: VerifiedPlatformIdentity, device: DeviceInput | undefined, ctx: AuditContext): Promise<SignInResult> {
      const r = await db.transaction(async (tx) => {
        const a = (
          await tx.query<AccountRow>(
            `SELECT a.* FROM identities i JOIN accounts a ON a.id = i.account_id WHERE i.provider = $1 AND i.provider_user_id = $2`,
            [id.provider, id.providerUserId],
          )
        ).rows[0];
        if (!a) throw new AppError(503, 'conflict_retry', 'Concurrent sign-in; retry');
        assertUsable(a);
        const deviceId = await upsertDevice(tx, device, a.id);
        await audit(tx, ctx, 'login', a.id, { method: id.provider, outcome: 'success' });
        return signIn(tx, a, id.provider, deviceId, ctx);
      });
      return finish(r);
    },

    // ------------------------------------------------------------ the account itself
    async view(accountId: string) {
      const a = (await db.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1`, [accountId])).rows[0];
      if (!a || a.status === 'deleted') throw unauthorized('invalid_token', 'The account no longer exists');
      return { ...accountBody(a), identities: await identitiesOf(db, accountId), devices: await devicesOf(db, accountId) };
    },

    async update(accountId: string, patch: { displayName?: string; homeRegion?: string }) {
      await db.query(
        `UPDATE accounts SET display_name = COALESCE($2, display_name), home_region = COALESCE($3, home_region), updated_at = now()
         WHERE id = $1 AND status <> 'deleted'`,
        [accountId, patch.displayName ?? null, patch.homeRegion ?? null],
      );
      return service.view(accountId);
    },

    async linkEmail(accountId: string, input: { email: string; password: string }, ctx: AuditContext) {
      const email = input.email.trim().toLowerCase();
      const hash = await hashNewPassword(input.password, config.passwordParams);
      try {
        await db.transaction(async (tx) => {
          await lockActiveAccount(tx, accountId);
          const identity = await tx.query<{ id: string }>(
            `INSERT INTO identities (account_id, provider, provider_user_id, verified) VALUES ($1, 'email', $2, false) RETURNING id`,
            [accountId, email],
          );
          await tx.query(`INSERT INTO credentials (identity_id, type, secret_hash) VALUES ($1, 'password', $2)`, [identity.rows[0].id, hash]);
          await markGuestUpgraded(tx, accountId);
          await audit(tx, ctx, 'link', accountId, { provider: 'email', identity_id: identity.rows[0].id });
        });
      } catch (err) {
        if (isUniqueViolation(err, 'identities_provider_user')) throw conflict('email_taken', 'An account with this email exists');
        throw err;
      }
      return { identities: await identitiesOf(db, accountId) };
    },

    async linkPlatform(accountId: string, input: { provider: string; ticket: string; nonce?: string }, ctx: AuditContext) {
      const id = await verifyTicket(input.provider, input.ticket, input.nonce);
      await db.transaction(async (tx) => {
        await lockActiveAccount(tx, accountId);
        const got = await service.upsertPlatformIdentity(tx, id, accountId);
        if (got.accountId !== accountId) throw conflict('identity_linked_elsewhere', 'This platform identity belongs to another account');
        if (got.created) {
          await markGuestUpgraded(tx, accountId);
          await audit(tx, ctx, 'link', accountId, { provider: id.provider, identity_id: got.identityId });
        }
      });
      return { identities: await identitiesOf(db, accountId) };
    },

    /** Removes an identity unless it is the account's last usable credential. */
    async unlink(accountId: string, which: { provider?: string; identityId?: string }, ctx: AuditContext) {
      await db.transaction(async (tx) => {
        // The row lock serialises concurrent unlinks of one account, so the guard cannot be raced.
        await lockActiveAccount(tx, accountId);
        const ids = (await tx.query<{ id: string; provider: string }>(`SELECT id, provider FROM identities WHERE account_id = $1`, [accountId])).rows;
        const target = ids.filter((i) => (which.identityId ? i.id === which.identityId : i.provider === which.provider));
        if (!target.length) throw new AppError(404, 'identity_not_found', 'The account has no such identity');
        if (ids.length - target.length < 1) throw conflict('last_credential', 'An account must keep at least one way to sign in');
        await tx.query(`DELETE FROM identities WHERE id = ANY($1::uuid[])`, [target.map((t) => t.id)]);
        for (const t of target) await audit(tx, ctx, 'unlink', accountId, { provider: t.provider, identity_id: t.id });
      });
      return { identities: await identitiesOf(db, accountId) };
    },

    /** Everything held about the account (no secret hashes). */
    async export(accountId: string) {
      const view = await service.view(accountId);
      const credentials = await db.query(
        `SELECT c.id, c.identity_id, c.type, c.failed_attempts, c.locked_until, c.rotated_at
         FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.account_id = $1`,
        [accountId],
      );
      const sessions = await db.query(
        `SELECT id, device_id, auth_method, ip_cidr, region, created_at, expires_at, revoked_at FROM sessions WHERE account_id = $1 ORDER BY created_at`,
        [accountId],
      );
      const auditRows = await db.query(`SELECT id, event, ip, node_id, detail, at FROM audit_log WHERE account_id = $1 ORDER BY at`, [accountId]);
      return {
        exported_at: new Date().toISOString(),
        account: accountBody((await db.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1`, [accountId])).rows[0]),
        identities: view.identities,
        credentials: credentials.rows,
        devices: view.devices,
        sessions: sessions.rows,
        audit_log: auditRows.rows,
      };
    },

    async isDeleted(accountId: string): Promise<boolean> {
      const r = await db.query<{ status: string }>(`SELECT status FROM accounts WHERE id = $1`, [accountId]);
      return r.rows[0]?.status === 'deleted';
    },

    /** Soft delete; the deletion notice goes to the outbox in the same transaction. Repeatable. */
    async delete(accountId: string, ctx: AuditContext): Promise<{ status: 'deleted'; deleted_at: string; purge_after: string; sessions: string[] }> {
      return db.transaction(async (tx) => {
        const a = (await tx.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1 FOR UPDATE`, [accountId])).rows[0];
        if (!a) throw unauthorized('invalid_token', 'The account no longer exists');
        let deletedAt = a.deleted_at ? new Date(a.deleted_at) : undefined;
        let sessions: string[] = [];
        if (a.status !== 'deleted' || !deletedAt) {
          const d = await tx.query<{ deleted_at: Date }>(
            `UPDATE accounts SET status = 'deleted', deleted_at = now(), updated_at = now() WHERE id = $1 RETURNING deleted_at`,
            [accountId],
          );
          deletedAt = new Date(d.rows[0].deleted_at);
          sessions = (
            await tx.query<{ id: string }>(`UPDATE sessions SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL RETURNING id`, [accountId])
          ).rows.map((s) => s.id);
          await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id IN (SELECT id FROM sessions WHERE account_id = $1)`, [accountId]);
          await tx.query(`INSERT INTO outbox (topic, payload) VALUES ('account.deleted', $1)`, [
            JSON.stringify({ type: 'account.deleted', account_id: accountId, deleted_at: deletedAt.toISOString() }),
          ]);
          await audit(tx, ctx, 'delete', accountId, { grace_hours: config.deletionGraceHours });
        }
        const purgeAfter = new Date(deletedAt.getTime() + config.deletionGraceHours * 3_600_000);
        return { status: 'deleted', deleted_at: deletedAt.toISOString(), purge_after: purgeAfter.toISOString(), sessions };
      });
    },

    /** Hard-deletes personal data of accounts deleted longer than the grace window ago. The account row (sub) stays. */
    async purgeDeletedAccounts(now: Date = new Date()): Promise<number> {
      const due = await db.query<{ id: string }>(
        `SELECT id FROM accounts WHERE status = 'deleted' AND purged_at IS NULL AND deleted_at <= $1::timestamptz - make_interval(hours => $2::int) LIMIT 500`,
        [now, config.deletionGraceHours],
      );
      for (const { id } of due.rows) {
        await db.transaction(async (tx) => {
          await tx.query(`DELETE FROM identities WHERE account_id = $1`, [id]); // credentials cascade
          await tx.query(`DELETE FROM devices WHERE account_id = $1`, [id]);
          await tx.query(`DELETE FROM audit_log WHERE account_id = $1`, [id]);
          await tx.query(`DELETE FROM sessions WHERE account_id = $1`, [id]); // refresh tokens cascade
          await tx.query(`DELETE FROM guest_idempotency WHERE account_id = $1`, [id]);
          await tx.query(`UPDATE accounts SET display_name = '', home_region = '', purged_at = now() WHERE id = $1`, [id]);
        });
      }
      return due.rowCount;
    },

    /**
     * Removes guest accounts (never upgraded) without any sign-in or refresh for
     * AUTH_GUEST_IDLE_DAYS: the account and everything hanging off it.
     */
    async pruneIdleGuests(now: Date = new Date()): Promise<number> {
      const idle = await db.query<{ id: string }>(
        `SELECT a.id FROM accounts a
         WHERE a.is_guest AND a.status = 'active'
           AND a.created_at < $1::timestamptz - make_interval(days => $2::int)
           AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.account_id = a.id AND i.last_login_at >= $1::timestamptz - make_interval(days => $2::int))
           AND NOT EXISTS (SELECT 1 FROM sessions s JOIN refresh_tokens rt ON rt.session_id = s.id
                           WHERE s.account_id = a.id AND rt.issued_at >= $1::timestamptz - make_interval(days => $2::int))
         LIMIT 500`,
        [now, config.guestIdleDays],
      );
      for (const { id } of idle.rows) {
        await db.transaction(async (tx) => {
          await tx.query(`DELETE FROM audit_log WHERE account_id = $1`, [id]);
          await tx.query(`DELETE FROM devices WHERE account_id = $1`, [id]);
          await tx.query(`DELETE FROM accounts WHERE id = $1 AND is_guest`, [id]); // identities, credentials, sessions cascade
        });
      }
      return idle.rowCount;
    },

    /** Operator transition of the account status; locking or banning ends every session. */
    async setStatus(accountId: string, status: 'active' | 'locked' | 'banned', ctx: AuditContext): Promise<{ id: string; status: string; sessions: string[] }> {
      return db.transaction(async (tx) => {
        const r = await tx.query<{ id: string }>(
          `UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1 AND status <> 'deleted' RETURNING id`,
          [accountId, status],
        );
        if (!r.rowCount) throw new AppError(404, 'account_not_found', 'No such account');
        let sessions: string[] = [];
        if (status !== 'active') {
          sessions = (
            await tx.query<{ id: string }>(`UPDATE sessions SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL RETURNING id`, [accountId])
          ).rows.map((x) => x.id);
          await tx.query(`UPDATE refresh_tokens SET used = true WHERE session_id = ANY($1::uuid[])`, [sessions]);
          await audit(tx, ctx, 'logout', accountId, { by: 'admin', status, sessions_revoked: sessions.length });
        }
        return { id: accountId, status, sessions };
      });
    },
  };
  return service;
}

class RetrySignIn extends Error {}

async function lockActiveAccount(tx: Queryable, accountId: string) {
  const a = await tx.query<{ status: string }>(`SELECT status FROM accounts WHERE id = $1 FOR UPDATE`, [accountId]);
  if (!a.rowCount || a.rows[0].status !== 'active') throw unauthorized('invalid_token', 'The account is not active');
}

function accountBody(a: AccountRow) {
  return {
    id: a.id,
    display_name: a.display_name,
    status: a.status,
    roles: a.roles,
    home_region: a.home_region,
    is_guest: a.is_guest,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
    deleted_at: a.deleted_at ? iso(a.deleted_at) : null,
  };
}

const iso = (d: Date | string) => new Date(d).toISOString();

async function identitiesOf(db: Queryable, accountId: string) {
  const r = await db.query<{ id: string; provider: string; provider_user_id: string; verified: boolean; linked_at: Date; last_login_at: Date | null }>(
    `SELECT id, provider, provider_user_id, verified, linked_at, last_login_at FROM identities WHERE account_id = $1 ORDER BY linked_at, id`,
    [accountId],
  );
  return r.rows.map((i) => ({ ...i, linked_at: iso(i.linked_at), last_login_at: i.last_login_at ? iso(i.last_login_at) : null }));
}

async function devicesOf(db: Queryable, accountId: string) {
  const r = await db.query<{ id: string; platform: string; push_handle: string | null; first_seen_at: Date; last_seen_at: Date }>(
    `SELECT id, platform, push_handle, first_seen_at, last_seen_at FROM devices WHERE account_id = $1 ORDER BY first_seen_at, id`,
    [accountId],
  );
  return r.rows.map((d) => ({ ...d, first_seen_at: iso(d.first_seen_at), last_seen_at: iso(d.last_seen_at) }));
}

export type AccountService = ReturnType<typeof createAccountService>;
