/**
 * The device authorization grant (RFC 8628) for TVs and consoles: the device asks for a device code and a user
 * code, the player approves (or denies) the user code on a signed-in phone or browser (the approval page, GET
 * /device), and the device polls the token endpoint until it receives its session's tokens. Both codes are stored
 * as SHA-256 only; the user code is single-use and bounded in submissions (per IP and account by the rate limits,
 * per code by AUTH_DEVICE_USER_CODE_MAX_ENTRIES); the device code is exchanged once. docs/auth.md, "Device authorization".
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { displayTextOrNull, isUniqueViolation, randomToken, sha256Hex } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { CLIENT_ID, type AuthConfig } from '../config.js';
import { fail } from '../errors.js';
import { accountById } from '../queries/accounts.js';
import { upsertDevice } from '../queries/devices.js';
import {
  consumeDeviceGrant,
  decideDeviceGrant,
  enterUserCode,
  insertDeviceGrant,
  pollDeviceGrant,
  purgeExpiredDeviceGrants as purgeExpiredGrants,
  type PendingGrant,
} from '../queries/device-grants.js';
import { setSessionClient } from '../queries/sessions.js';
import { audit, type AuditContext } from './audit.js';
import { finish, openSession, type DevicePlatform, type OpenedSession, type SignInResult } from './sign-in-common.js';
import { ipCidr } from './tokens.js';

/** RFC 8628 §6.1: consonants only (no vowels: no words; no look-alikes such as 0/O, 1/I). 20^8 ≈ 2.6·10^10 codes. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The session's auth method (and the access token's `platform` claim) of a device-grant sign-in. */
export const DEVICE_METHOD = 'device_code';

/** A uniformly random user code (rejection sampling over random bytes), without its dash. */
export function newUserCode(): string {
  let out = '';
  while (out.length < USER_CODE_LENGTH) {
    for (const b of randomBytes(16)) {
      // 240 = 12 × 20: bytes from 240 up would favour the first letters.
      if (b < 240 && out.length < USER_CODE_LENGTH) out += USER_CODE_ALPHABET[b % 20];
    }
  }
  return out;
}

/** XXXX-XXXX, as shown to the player. */
export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/** What the player typed, as stored: upper case, dashes and spaces dropped; undefined when it cannot be a code. */
export function normaliseUserCode(input: string): string | undefined {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  return new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`).test(code) ? code : undefined;
}

export interface DeviceAuthorizationInput {
  clientId: string | undefined;
  deviceName?: string;
  platform?: DevicePlatform;
  deviceFingerprint?: string;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export interface PendingRequestView {
  user_code: string;
  client_id: string;
  /** false when AUTH_DEVICE_CLIENT_IDS is empty: any client id is accepted, so the name proves nothing. */
  client_verified: boolean;
  device_name: string | null;
  platform: string | null;
  ip_prefix: string | null;
  requested_at: string;
  expires_at: string;
}

type PollOutcome =
  | { kind: 'tokens'; opened: OpenedSession }
  | { kind: 'error'; code: 'invalid_grant' | 'expired_token' | 'access_denied' | 'authorization_pending' | 'slow_down'; message: string };

/**
 * One poll of a device code, decided in one transaction that always commits (the poll time and a grown interval
 * are kept); the error is thrown after it. Approved: the session opens and the code is spent together.
 */
async function exchange(ctx: AuthContext, deviceCode: string, clientId: string, who: AuditContext): Promise<SignInResult> {
  const { db } = ctx;
  const outcome = await db.transaction(async (tx): Promise<PollOutcome> => {
    const g = await pollDeviceGrant(tx, sha256Hex(deviceCode));
    const error = (code: Extract<PollOutcome, { kind: 'error' }>['code'], message: string): PollOutcome => ({ kind: 'error', code, message });
    if (!g || g.client_id !== clientId || g.status === 'consumed') return error('invalid_grant', 'The device code is unknown, spent, or issued to another client');
    if (g.expired) return error('expired_token', 'The device code expired; start again');
    if (g.status === 'denied') return error('access_denied', 'The player denied the request');
    if (g.status === 'pending') {
      return g.too_fast ? error('slow_down', `Polled too often; wait ${g.interval_seconds} seconds between polls`) : error('authorization_pending', 'The player has not decided yet');
    }
    const account = g.account_id ? await accountById(tx, g.account_id) : undefined;
    if (!account || account.status !== 'active') return error('access_denied', 'The approving account cannot sign in');
    const deviceId = g.fingerprint_hash ? await upsertDevice(tx, account.id, g.platform, g.fingerprint_hash) : null;
    const opened = await openSession(ctx, tx, account, DEVICE_METHOD, deviceId, who);
    await setSessionClient(tx, opened.session.sessionId, g.client_id, g.device_name);
    if (!(await consumeDeviceGrant(tx, g.id, opened.session.sessionId))) return error('invalid_grant', 'The device code is spent');
    await audit(tx, who, 'login', account.id, { method: DEVICE_METHOD, outcome: 'success', client_id: g.client_id, request_id: g.id });
    return { kind: 'tokens', opened };
  });
  if (outcome.kind === 'error') throw fail(outcome.code, outcome.message);
  return finish(ctx, outcome.opened);
}

/** AUTH_DEVICE_CLIENT_IDS; empty: any well-formed client id. */
const allowedClients = (config: AuthConfig) => new Set(config.deviceClientIds);

/** A public client: a client_id is required, well-formed, and on AUTH_DEVICE_CLIENT_IDS when that is set. */
export function checkClient(ctx: AuthContext, clientId: string | undefined): string {
  const allowed = allowedClients(ctx.config);
  if (!clientId) throw fail('invalid_client', 'client_id is required');
  if (!CLIENT_ID.test(clientId) || (allowed.size > 0 && !allowed.has(clientId))) throw fail('invalid_client', 'The client_id is not accepted');
  return clientId;
}

const view = (config: AuthConfig, g: PendingGrant, code: string): PendingRequestView => ({
  user_code: displayUserCode(code),
  client_id: g.client_id,
  client_verified: allowedClients(config).size > 0,
  device_name: displayTextOrNull(g.device_name),
  platform: g.platform,
  ip_prefix: g.ip_cidr,
  requested_at: g.created_at.toISOString(),
  expires_at: g.expires_at.toISOString(),
});

/** Counts the submission of a user code; the pending request it names, or 404 user_code_not_found. */
async function enter(ctx: AuthContext, userCode: string): Promise<{ grant: PendingGrant; code: string }> {
  const code = normaliseUserCode(userCode);
  const grant = code ? await enterUserCode(ctx.db, sha256Hex(code), ctx.config.deviceUserCodeMaxEntries) : undefined;
  if (!grant || !code) throw fail('user_code_not_found', 'No pending device request has this code; check it on the device');
  return { grant, code };
}

/** POST /oauth/device_authorization: a new pair of codes. */
export async function authorizeDevice(ctx: AuthContext, input: DeviceAuthorizationInput, who: AuditContext): Promise<DeviceAuthorization> {
  const { config, db } = ctx;
  const verificationUri = config.deviceVerificationUri ?? `${config.issuer.replace(/\/+$/, '')}/device`;
  const clientId = checkClient(ctx, input.clientId);
  const deviceCode = randomToken(32);
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await insertDeviceGrant(db, {
        id: randomUUID(),
        deviceCodeHash: sha256Hex(deviceCode),
        userCodeHash: sha256Hex(userCode),
        clientId,
        deviceName: input.deviceName ?? null,
        platform: input.platform ?? null,
        fingerprintHash: input.deviceFingerprint ? sha256Hex(input.deviceFingerprint) : null,
        ipCidr: ipCidr(who.ip ?? undefined),
        intervalSeconds: config.devicePollIntervalSeconds,
        expiresAt: new Date(Date.now() + config.deviceCodeTtlSeconds * 1000),
      });
      const shown = displayUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${shown}`,
        expires_in: config.deviceCodeTtlSeconds,
        interval: config.devicePollIntervalSeconds,
      };
    } catch (err) {
      // The user code names a pending request already (about one in 2.6·10^10 per pending request): a new one.
      if (attempt < 5 && isUniqueViolation(err, 'device_grants_pending_user_code')) continue;
      throw err;
    }
  }
}

/** The approval page: which device asks (counts as a submission of the code). */
export async function lookupDeviceRequest(ctx: AuthContext, userCode: string): Promise<PendingRequestView> {
  const { grant, code } = await enter(ctx, userCode);
  return view(ctx.config, grant, code);
}

/** The approval page: the player's decision (counts as a submission of the code). The code is spent either way. */
export async function decideDeviceRequest(ctx: AuthContext, accountId: string, userCode: string, approve: boolean, who: AuditContext): Promise<{ status: 'approved' | 'denied' }> {
  const { grant } = await enter(ctx, userCode);
  if (!(await decideDeviceGrant(ctx.db, grant.id, accountId, approve))) throw fail('user_code_not_found', 'No pending device request has this code; check it on the device');
  await audit(ctx.db, who, 'login', accountId, { method: DEVICE_METHOD, step: approve ? 'approved' : 'denied', client_id: grant.client_id, request_id: grant.id });
  return { status: approve ? 'approved' : 'denied' };
}

/** The token endpoint's device_code grant: one poll (RFC 8628 §3.4–3.5). */
export const exchangeDeviceCode = (ctx: AuthContext, deviceCode: string, clientId: string | undefined, who: AuditContext) => exchange(ctx, deviceCode, checkClient(ctx, clientId), who);

export const purgeExpiredDeviceGrants = (ctx: AuthContext) => purgeExpiredGrants(ctx.db);
