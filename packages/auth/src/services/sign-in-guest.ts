/** Guest sign-up (one statement, grouped with the sign-ups arriving together), its idempotent replay, and guest restore. */
import { randomUUID } from 'node:crypto';
import { createBatcher, hashPassword, isUniqueViolation, randomToken, sha256Hex, verifyPassword, type Database } from '@platform/kit';
import type { AuthContext, GuestWriter } from '../context.js';
import { fail } from '../errors.js';
import { lockAccount } from '../queries/accounts.js';
import { guestOfIdempotencyKey, guestWithSecret, insertGuest, insertGuests, replaceGuestSecret, type GuestRow } from '../queries/guests.js';
import { touchIdentityLogin } from '../queries/identities.js';
import { audit, type AuditContext } from './audit.js';
import { dummyHashFor } from './passwords.js';
import { assertUsable, finish, openSession, recordDevice, type DeviceInput, type SignInResult } from './sign-in-common.js';
import { assertGuestCreationAllowed, recordGuestCreated, recordRestoreFailed } from './guest-score.js';
import { newSessionRows, type SessionSubject } from './tokens.js';

export type GuestResult = SignInResult & { guest_secret: string };

/**
 * Guest sign-ups arriving together are written by one statement (one round trip and one commit for all).
 * When that statement fails, the kit's batcher writes every guest of the batch on its own, so each request
 * gets its own outcome (a duplicate device in the batch, an Idempotency-Key conflict) exactly as without grouping.
 */
export function createGuestWriter(db: Database): GuestWriter {
  return createBatcher<GuestRow, void>(async (rows) => {
    if (rows.length > 1) await insertGuests(db, rows);
    else await insertGuest(db, rows[0]);
    return rows.map(() => undefined);
  });
}

export async function createGuest(ctx: AuthContext, input: { device: DeviceInput; idempotencyKey?: string }, who: AuditContext): Promise<GuestResult> {
  const keyHash = input.idempotencyKey ? sha256Hex(`guest-idempotency:${input.idempotencyKey}`) : undefined;
  const fingerprintHash = sha256Hex(input.device.fingerprint);
  if (keyHash) {
    const replay = await replayGuest(ctx, keyHash, fingerprintHash, input.device, who);
    if (replay) return replay;
  }
  // The abuse score of the device and network (a retry above is the same guest, not a new one: not scored).
  await assertGuestCreationAllowed(ctx, fingerprintHash, who.ip ?? undefined);
  const secret = randomToken(32);
  const secretHash = await hashPassword(secret, ctx.config.guestSecretParams);
  try {
    // One statement (shared with the sign-ups arriving at the same time; atomic as any statement):
    // account, device, identity, credential, idempotency key, audit row, session and refresh token.
    // Same rows as the step-by-step sign-ins.
    const accountId = randomUUID();
    const subject: SessionSubject = { accountId, roles: ['player'], region: '', guest: true };
    const s = newSessionRows(ctx.config, subject, { method: 'guest', ip: who.ip ?? undefined });
    await ctx.guestWriter([
      accountId,
      `guest-${randomUUID().slice(0, 8)}`,
      input.device.platform ?? null,
      fingerprintHash,
      randomUUID(),
      secretHash,
      keyHash ?? null,
      who.ip ?? null,
      who.nodeId,
      s.sessionId,
      s.ipCidr,
      s.region,
      s.expiresAt.toISOString(),
      s.refreshId,
      s.refreshHash,
      s.refreshExpiresAt.toISOString(),
    ]);
    await recordGuestCreated(ctx, fingerprintHash, who.ip ?? undefined);
    return {
      ...(await finish(ctx, { subject, session: { sessionId: s.sessionId, refreshToken: s.refreshToken }, method: 'guest' })),
      guest_secret: secret,
    };
  } catch (err) {
    // A concurrent request with the same Idempotency-Key won the insert: answer as its retry.
    if (keyHash && isUniqueViolation(err, 'guest_idempotency_pkey')) {
      const replay = await replayGuest(ctx, keyHash, fingerprintHash, input.device, who);
      if (replay) return replay;
    }
    throw err;
  }
}

/**
 * A retried /guest (same Idempotency-Key, same device) gets the SAME guest
 * account: a new session and a fresh guest secret (the first response, and
 * its secret, never reached the client; the stored hash is replaced).
 */
async function replayGuest(ctx: AuthContext, keyHash: string, fingerprintHash: string, device: DeviceInput, who: AuditContext): Promise<GuestResult | undefined> {
  const row = await guestOfIdempotencyKey(ctx.db, keyHash);
  if (!row) return undefined;
  if (row.fingerprint_hash !== fingerprintHash) {
    throw fail('idempotency_key_reused', 'This Idempotency-Key was used by another device');
  }
  const secret = randomToken(32);
  const secretHash = await hashPassword(secret, ctx.config.guestSecretParams);
  const r = await ctx.db.transaction(async (tx) => {
    const a = await lockAccount(tx, row.account_id);
    if (!a || a.status !== 'active' || !a.is_guest) throw fail('idempotency_key_reused', 'The guest of this Idempotency-Key is no longer available');
    await replaceGuestSecret(tx, a.id, secretHash);
    const deviceId = await recordDevice(tx, device, a.id);
    await audit(tx, who, 'login', a.id, { method: 'guest', outcome: 'success', idempotent_replay: true });
    return openSession(ctx, tx, a, 'guest', deviceId, who);
  });
  return { ...(await finish(ctx, r)), guest_secret: secret };
}

export async function restoreGuest(ctx: AuthContext, input: { accountId: string; guestSecret: string; device: DeviceInput }, who: AuditContext): Promise<SignInResult> {
  const a = await guestWithSecret(ctx.db, input.accountId);
  const ok = await verifyPassword(a?.secret_hash ?? (await dummyHashFor(ctx.config.guestSecretParams)), input.guestSecret);
  if (!a || !ok) {
    await audit(ctx.db, who, 'login', a?.id ?? null, { method: 'guest', outcome: 'failure' });
    await recordRestoreFailed(ctx, sha256Hex(input.device.fingerprint), who.ip ?? undefined);
    throw fail('invalid_credentials', 'The account id or guest secret is wrong');
  }
  await assertUsable(ctx.db, a, ctx.config.masterKey);
  const r = await ctx.db.transaction(async (tx) => {
    const deviceId = await recordDevice(tx, input.device, a.id);
    await touchIdentityLogin(tx, a.identity_id);
    await audit(tx, who, 'login', a.id, { method: 'guest', outcome: 'success', restored: true });
    return openSession(ctx, tx, a, 'guest', deviceId, who);
  });
  return finish(ctx, r);
}

