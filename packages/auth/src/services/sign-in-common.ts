/** What every sign-in flow (guest, email and password, platform ticket) shares: devices, the usable check, the session. */
import { appealToken } from './appeal-token.js';
import { sha256Hex, type Queryable } from '@platform/kit';
import { fail } from '../errors.js';
import type { AccountRow } from '../queries/accounts.js';
import { upsertDevice } from '../queries/devices.js';
import { activeBan, latestBan } from '../queries/sanctions.js';
import type { AuditContext } from './audit.js';
import { createSession, tokenPair, type SessionSubject, type TokenPair } from './tokens.js';
import type { AuthContext } from '../context.js';

export const DEVICE_PLATFORMS = ['ios', 'android', 'win', 'mac', 'linux', 'console', 'web'] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];

export interface DeviceInput {
  fingerprint: string;
  platform?: DevicePlatform;
}

/** The one spelling of an email identity: `provider_user_id` of provider `email`. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export type SignInResult = TokenPair & { account_id: string };

type SubjectRow = Pick<AccountRow, 'id' | 'roles' | 'home_region'> & { is_guest?: boolean };

export const subjectOf = (a: SubjectRow): SessionSubject => ({ accountId: a.id, roles: a.roles, region: a.home_region, guest: a.is_guest === true });

/**
 * The account may sign in: banned and locked accounts are refused after the credential checked out. A banned
 * account is told its ban's reason and end (403 account_banned; docs/auth.md, "Sanctions").
 */
export async function assertUsable(db: Queryable, a: Pick<AccountRow, 'id' | 'status'>, masterKey: Buffer | undefined): Promise<void> {
  if (a.status === 'banned') {
    // The active ban ending last; one just expired but not swept yet is still named (the sweeper ends it).
    const ban = (await activeBan(db, a.id)) ?? (await latestBan(db, a.id));
    throw fail('account_banned', 'The account is banned', {
      reason: ban?.reason ?? null,
      expires_at: ban?.expires_at ? new Date(ban.expires_at).toISOString() : null,
      // The ban, and the token to appeal it with (POST /appeals): a banned player has no session (docs/auth.md, "Appeals").
      ...(ban ? { sanction_id: ban.id, appeal_token: appealToken(masterKey, a.id, ban.id) } : {}),
    });
  }
  if (a.status === 'locked') throw fail('account_disabled', 'The account is locked');
  if (a.status === 'deleted') throw fail('invalid_credentials', 'The credentials are not valid');
}

/** The device the client signed in on (none given: null). Fingerprints are stored hashed. */
export async function recordDevice(tx: Queryable, device: DeviceInput | undefined, accountId: string | null): Promise<string | null> {
  if (!device) return null;
  return upsertDevice(tx, accountId, device.platform ?? null, sha256Hex(device.fingerprint));
}

export interface OpenedSession {
  subject: SessionSubject;
  session: { sessionId: string; refreshToken: string };
  method: string;
}

/** Inside the sign-in's transaction: the session and its first refresh token. */
export async function openSession(ctx: AuthContext, tx: Queryable, account: SubjectRow, method: string, deviceId: string | null, who: AuditContext): Promise<OpenedSession> {
  const session = await createSession(ctx, tx, subjectOf(account), { method, deviceId, ip: who.ip ?? undefined });
  return { subject: subjectOf(account), session, method };
}

/** After the transaction committed: the token pair of the response. */
export async function finish(ctx: AuthContext, r: OpenedSession): Promise<SignInResult> {
  return { ...(await tokenPair(ctx, r.subject, r.session, r.method)), account_id: r.subject.accountId };
}
