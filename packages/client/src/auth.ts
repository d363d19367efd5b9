/** Sign-in, sign-out and the player's own account on the auth service. */
import { PlatformError } from './errors.js';
import { runCeremony, type PasskeyAuthenticator, type PasskeyOptionsJSON } from './passkeys.js';
import type { HttpService } from './http.js';
import type { Session, StoredSession } from './session.js';
import { readJson, STORAGE_KEYS, writeJson, type TokenStorage } from './storage.js';
import type {
  Account,
  AccountDeletionResult,
  AccountExportResult,
  AccountPatch,
  DeviceAuthorization,
  DevicePlatform,
  PendingDeviceRequest,
  SessionInfo,
  EmailChange,
  EmailChangeInput,
  EmailVerification,
  Identities,
  LinkInput,
  LoginInput,
  PasswordResetInput,
  PasswordResetResult,
  PlatformSignInInput,
  RegisterInput,
  Sanctions,
  Appeal,
  AppealInput,
  Passkey,
  SecondFactors,
  TotpEnrolment,
  TokenPair,
  UnlinkInput,
} from './types.js';

/** A guest's credentials, kept so the same guest can sign in again on this device. */
export interface GuestCredentials {
  accountId: string;
  guestSecret: string;
}

export interface GuestSignIn {
  accountId: string;
  /** true when the stored guest signed in again, false when a new guest was made. */
  restored: boolean;
}

interface AuthDeps {
  http: HttpService;
  session: Session;
  storage: TokenStorage;
  now: () => number;
  /** An authenticated call that refreshes once and retries when the token is refused. */
  authed<T>(call: (token: string) => Promise<T>): Promise<T>;
  platform?: DevicePlatform;
}

/** The device_code grant type of RFC 8628. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DevicePollOptions {
  /** Stops polling (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Called before each wait while the player has not decided (to refresh a countdown, say). */
  onPending?: (info: { interval: number; expiresAt: number }) => void;
  /** How to wait (tests, game loops); default setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function randomId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The auth service's player API (`client.auth`): sign-in in its forms, sign-out, the account, sessions and devices. */
export class AuthApi {
  constructor(private readonly d: AuthDeps) {}

  /** This install's device fingerprint (random, made once and stored). Fingerprints identify, never authenticate. */
  async deviceFingerprint(): Promise<string> {
    const stored = await this.d.storage.get(STORAGE_KEYS.device);
    if (stored) return stored;
    const made = `dev-${randomId()}`;
    await this.d.storage.set(STORAGE_KEYS.device, made);
    return made;
  }

  private async device() {
    return { fingerprint: await this.deviceFingerprint(), ...(this.d.platform ? { platform: this.d.platform } : {}) };
  }

  private async signIn(path: string, body: unknown): Promise<TokenPair & StoredSession> {
    const askedAt = this.d.now();
    const pair = await this.d.http.request<TokenPair>({ method: 'POST', path, body });
    const s = await this.d.session.store(pair, askedAt);
    return { ...pair, ...s };
  }

  /** The guest credentials kept on this device, if any. */
  guestCredentials(): Promise<GuestCredentials | undefined> {
    return readJson<GuestCredentials>(this.d.storage, STORAGE_KEYS.guest);
  }

  /**
   * Signs in as a guest: the guest stored on this device when there is one (`POST /guest/restore`), else a new
   * guest (`POST /guest`), whose secret is stored at once. A stored guest the service no longer knows (401
   * `invalid_credentials`: pruned or deleted) is replaced by a new one; every other error is thrown.
   */
  async signInAsGuest(opts: { restore?: boolean } = {}): Promise<GuestSignIn> {
    const { fingerprint, platform } = await this.device();
    const stored = opts.restore === false ? undefined : await this.guestCredentials();
    if (stored) {
      try {
        await this.signIn('/guest/restore', { account_id: stored.accountId, guest_secret: stored.guestSecret, device_fingerprint: fingerprint, platform });
        return { accountId: stored.accountId, restored: true };
      } catch (e) {
        if (!(e instanceof PlatformError && e.code === 'invalid_credentials')) throw e;
        await this.d.storage.remove(STORAGE_KEYS.guest);
      }
    }
    const askedAt = this.d.now();
    // One Idempotency-Key for the call and its retry: when the first answer is lost (no response at all), the
    // retry gets the guest the first attempt made instead of a second, orphaned guest.
    const request = {
      method: 'POST',
      path: '/guest',
      body: { device_fingerprint: fingerprint, platform },
      headers: { 'idempotency-key': `guest-${randomId()}` },
    };
    type GuestAnswer = TokenPair & { account_id: string; guest_secret: string };
    let res: GuestAnswer;
    try {
      res = await this.d.http.request<GuestAnswer>(request);
    } catch (e) {
      if (!(e instanceof PlatformError && e.status === 0)) throw e;
      res = await this.d.http.request<GuestAnswer>(request);
    }
    await writeJson(this.d.storage, STORAGE_KEYS.guest, { accountId: res.account_id, guestSecret: res.guest_secret } satisfies GuestCredentials);
    await this.d.session.store(res, askedAt);
    return { accountId: res.account_id, restored: false };
  }

  /**
   * Creates an email account and signs it in (201). When the service requires a verified email
   * (`AUTH_EMAIL_VERIFICATION=required`) it answers 202 without tokens: nothing is signed in,
   * `emailVerificationRequired` is true, and the player confirms the mailed token (`verifyEmail`) and then signs in.
   * That answer is the same whether or not the address has an account (its owner is mailed instead of a token).
   */
  async register(input: Omit<RegisterInput, 'device'>): Promise<{ accountId: string | undefined; emailVerificationRequired: boolean }> {
    const askedAt = this.d.now();
    type Answer = TokenPair | { account_id: string; email_verification_required: true };
    const res = await this.d.http.request<Answer>({ method: 'POST', path: '/register', body: { ...input, device: await this.device() } });
    if (!('access_token' in res)) return { accountId: res.account_id, emailVerificationRequired: true };
    await this.d.session.store(res, askedAt);
    return { accountId: res.account_id, emailVerificationRequired: false };
  }

  /**
   * Asks for a password-reset mail (a link and a code). Resolves alike whether or not the address has an account
   * (the service answers 202 either way); 429 `rate_limited` when asked too often.
   */
  async requestPasswordReset(email: string): Promise<void> {
    await this.d.http.request<unknown>({ method: 'POST', path: '/password/reset-request', body: { email } });
  }

  /**
   * Sets a new password with the mailed code. Every session of that account ends (this client's too, when it is
   * signed in as that account: sign in again with the new password). Errors: 400 `invalid_email_token`, 410
   * `email_token_used` / `email_token_expired`, 400 `weak_password`.
   */
  resetPassword(input: PasswordResetInput): Promise<PasswordResetResult> {
    return this.d.http.request<PasswordResetResult>({ method: 'POST', path: '/password/reset', body: input });
  }

  /**
   * Confirms an email address (after sign-up, a link or an email change) with the mailed code. Signed in, the
   * session's token goes with it: the account's own holder proving its address keeps its guest secret and sessions
   * (docs/auth.md, "Account claim"); signed out, a first proof claims the account for the mailbox's owner.
   */
  async verifyEmail(token: string): Promise<EmailVerification> {
    const access = await this.d.session.accessToken().catch(() => undefined);
    return this.d.http.request<EmailVerification>({ method: 'POST', path: '/email/verify', body: { token }, ...(access ? { token: access } : {}) });
  }

  /** Asks for another verification mail; resolves alike for every address (202). */
  async resendVerification(email: string): Promise<void> {
    await this.d.http.request<unknown>({ method: 'POST', path: '/email/verify/resend', body: { email } });
  }

  /**
   * Asks to change the account's email address (the current password proves the player): the new address is
   * mailed a code, and only `verifyEmail` with it switches the address. It resolves alike whether or not the new
   * address has an account (no enumeration): an address with an account gets no code (its owner is told instead),
   * and `verifyEmail` would answer 409 `email_taken` should it be taken by the time the code is used.
   */
  changeEmail(input: EmailChangeInput): Promise<EmailChange> {
    return this.call('POST', '/account/email', input);
  }

  /**
   * The second step of an email sign-in on an account with an authenticator (`POST /login/mfa`): `signInWithEmail`
   * failed with 401 `mfa_required`, whose `details.mfa_token` (five minutes) goes here with the app's current code or
   * one of the recovery codes (each works once). The session is stored. Wrong codes: 401 `invalid_mfa_code`; five in
   * a row lock the factor for 15 minutes (423 `account_locked`).
   */
  async completeSignIn(mfaToken: string, proof: { code: string } | { recovery_code: string }): Promise<{ accountId: string | undefined }> {
    const s = await this.signIn('/login/mfa', { mfa_token: mfaToken, ...proof });
    return { accountId: s.account_id };
  }

  /** The account's second factors: whether an authenticator is on (or pending) and how many recovery codes are left. */
  secondFactors(): Promise<SecondFactors> {
    return this.call('GET', '/account/mfa');
  }

  /**
   * Starts adding an authenticator app (`POST /account/mfa/totp`): the secret and its `otpauth://` URI (show it as a
   * QR code); nothing changes until {@link confirmTotp}. A session that signed in more than 15 minutes ago (the
   * deployment's `AUTH_RECENT_SIGN_IN_SECONDS`) is refused 403 `recent_sign_in_required`: sign in again, then retry.
   */
  startTotp(): Promise<TotpEnrolment> {
    return this.call('POST', '/account/mfa/totp');
  }

  /**
   * Turns the authenticator on with its current code; answers the ten recovery codes once (show them to the player
   * to keep). The account's other sessions end.
   */
  confirmTotp(code: string): Promise<{ recovery_codes: string[] }> {
    return this.call('POST', '/account/mfa/totp/confirm', { code });
  }

  /** Removes the authenticator, with its current code or a recovery code; the account's other sessions end. */
  async removeTotp(proof: { code: string } | { recovery_code: string }): Promise<void> {
    await this.call('POST', '/account/mfa/totp/remove', proof);
  }

  /**
   * Adds a passkey to the signed-in account (not a guest: 403 `guest_restricted`): the service's options, the
   * ceremony (the browser's `navigator.credentials.create`, or `authenticator`), then `POST /account/passkeys/registration`.
   * The account's other sessions end. Errors: 401 `invalid_passkey`, 403 `recent_sign_in_required` (the session
   * signed in too long ago: sign in again, then retry), 409 `passkey_exists` / `passkey_limit`, and the client's
   * `passkey_cancelled`, `passkey_failed`, `passkeys_not_supported`.
   */
  async addPasskey(opts: { name?: string; authenticator?: PasskeyAuthenticator } = {}): Promise<Passkey> {
    const { public_key } = await this.call<{ public_key: PasskeyOptionsJSON }>('POST', '/account/passkeys/registration/options');
    const credential = await runCeremony(opts.authenticator, 'create', public_key);
    return this.call('POST', '/account/passkeys/registration', { credential, ...(opts.name ? { name: opts.name } : {}) });
  }

  /** The account's passkeys (`GET /account/passkeys`). */
  async passkeys(): Promise<Passkey[]> {
    return (await this.call<{ passkeys: Passkey[] }>('GET', '/account/passkeys')).passkeys;
  }

  /**
   * Removes one of the account's passkeys (404 `passkey_not_found` for any other id); the other sessions end. Like
   * adding one, it needs a recent sign-in (403 `recent_sign_in_required`).
   */
  async removePasskey(id: string): Promise<void> {
    await this.call('DELETE', `/account/passkeys/${encodeURIComponent(id)}`);
  }

  /**
   * Signs in with a passkey (`POST /login/passkey/options`, the ceremony, `POST /login/passkey`): the browser offers
   * the player's passkeys for this site; no email is asked. A passkey verifies its user, so there is no second step.
   * The session is stored. Errors: 401 `invalid_passkey`, 403 `account_banned` / `account_disabled`, and the client's
   * `passkey_cancelled`, `passkey_failed`, `passkeys_not_supported`.
   */
  async signInWithPasskey(opts: { authenticator?: PasskeyAuthenticator } = {}): Promise<{ accountId: string | undefined }> {
    const { public_key } = await this.d.http.request<{ public_key: PasskeyOptionsJSON }>({ method: 'POST', path: '/login/passkey/options' });
    const credential = await runCeremony(opts.authenticator, 'get', public_key);
    const s = await this.signIn('/login/passkey', { credential, device: await this.device() });
    return { accountId: s.account_id };
  }

  /**
   * The second step of an email sign-in with a passkey instead of a code: `signInWithEmail` failed with 401
   * `mfa_required` whose `details.factors` include `passkey`; its `details.mfa_token` goes here. The session is stored.
   */
  async completeSignInWithPasskey(mfaToken: string, opts: { authenticator?: PasskeyAuthenticator } = {}): Promise<{ accountId: string | undefined }> {
    const { public_key } = await this.d.http.request<{ public_key: PasskeyOptionsJSON }>({ method: 'POST', path: '/login/mfa/passkey/options', body: { mfa_token: mfaToken } });
    const passkey = await runCeremony(opts.authenticator, 'get', public_key);
    const s = await this.signIn('/login/mfa', { mfa_token: mfaToken, passkey });
    return { accountId: s.account_id };
  }

  /** Signs in with email and password (`POST /login`); the session is stored. */
  async signInWithEmail(input: Omit<LoginInput, 'device'>): Promise<{ accountId: string | undefined }> {
    const s = await this.signIn('/login', { ...input, device: await this.device() });
    return { accountId: s.account_id };
  }

  /** Exchanges an external platform ticket (`provider`: store_a, store_b, idp_a, idp_b …). */
  async signInWithPlatform(input: Omit<PlatformSignInInput, 'device'>): Promise<{ accountId: string | undefined; accountCreated: boolean }> {
    const s = (await this.signIn('/platform', { ...input, device: await this.device() })) as TokenPair & { account_created?: boolean };
    return { accountId: s.account_id, accountCreated: s.account_created === true };
  }

  /**
   * Ends the session on the service (`POST /logout` with the refresh token, which works even after the access
   * token expired) and forgets it here. A guest's credentials stay unless `forgetGuest` (the guest could not sign
   * in again without them).
   */
  async signOut(opts: { forgetGuest?: boolean } = {}): Promise<void> {
    const s = await this.d.session.get();
    try {
      if (s) await this.d.http.request<void>({ method: 'POST', path: '/logout', body: { refresh_token: s.refreshToken } });
    } catch (e) {
      // Already ended on the service: signing out here is all that is left to do.
      if (!(e instanceof PlatformError && e.status === 401)) throw e;
    } finally {
      if (opts.forgetGuest) await this.d.storage.remove(STORAGE_KEYS.guest);
    }
    await this.d.session.clear('signOut');
  }

  // ---- the account's sessions ----

  /** The account's live sessions, most recently used first; `current` marks this client's. */
  async sessions(): Promise<SessionInfo[]> {
    return (await this.call<{ sessions: SessionInfo[] }>('GET', '/account/sessions')).sessions;
  }

  /**
   * Ends one of the account's sessions (a lost phone, a shared PC). Ending this client's own session is a sign-out
   * on the service; call signOut() for that instead, which also forgets it here. 404 `session_not_found` for an id
   * that is not a live session of the account.
   */
  async endSession(sessionId: string): Promise<void> {
    await this.call<void>('DELETE', `/account/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** Ends every session of the account except this client's; answers how many ended. */
  async endOtherSessions(): Promise<number> {
    return (await this.call<{ ended: number }>('POST', '/account/sessions/end-others')).ended;
  }

  // ---- the device authorization grant (RFC 8628): TVs and consoles ----

  /**
   * On the TV or console: asks for a user code to show the player (`POST /oauth/device_authorization`). Then call
   * completeDeviceSignIn with the answer while the player approves on a phone or browser.
   */
  async startDeviceSignIn(input: { clientId: string; deviceName?: string }): Promise<DeviceAuthorization> {
    const askedAt = this.d.now();
    const { fingerprint, platform } = await this.device();
    const r = await this.d.http.request<{ device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number }>({
      method: 'POST',
      path: '/oauth/device_authorization',
      body: { client_id: input.clientId, device_fingerprint: fingerprint, ...(platform ? { platform } : {}), ...(input.deviceName ? { device_name: input.deviceName } : {}) },
    });
    return {
      deviceCode: r.device_code,
      userCode: r.user_code,
      verificationUri: r.verification_uri,
      verificationUriComplete: r.verification_uri_complete,
      expiresAt: askedAt + r.expires_in * 1000,
      interval: r.interval,
      clientId: input.clientId,
    };
  }

  /**
   * On the TV or console: polls the token endpoint every `interval` seconds (5 more after each `slow_down`) until
   * the player decides, then keeps the session as any sign-in does. Rejects with the service's PlatformError:
   * `access_denied` (the player denied), `expired_token` (start again), `invalid_grant`.
   */
  async completeDeviceSignIn(start: DeviceAuthorization, opts: DevicePollOptions = {}): Promise<{ accountId: string | undefined }> {
    const sleep = opts.sleep ?? defaultSleep;
    let interval = start.interval;
    for (;;) {
      opts.onPending?.({ interval, expiresAt: start.expiresAt });
      await sleep(interval * 1000, opts.signal);
      const askedAt = this.d.now();
      try {
        const pair = await this.d.http.request<TokenPair>({
          method: 'POST',
          path: '/oauth/token',
          body: { grant_type: DEVICE_CODE_GRANT, device_code: start.deviceCode, client_id: start.clientId },
        });
        await this.d.session.store(pair, askedAt);
        return { accountId: pair.account_id };
      } catch (e) {
        if (e instanceof PlatformError && e.code === 'authorization_pending') continue;
        if (e instanceof PlatformError && e.code === 'slow_down') {
          interval += 5;
          continue;
        }
        throw e;
      }
    }
  }

  /** On the player's phone or browser (signed in): which device asks with this user code. */
  lookupDeviceCode(userCode: string): Promise<PendingDeviceRequest> {
    return this.call('POST', '/device/lookup', { user_code: userCode });
  }

  /** On the player's phone or browser (signed in): approves the device that shows this code. */
  async approveDevice(userCode: string): Promise<void> {
    await this.call('POST', '/device/decision', { user_code: userCode, approve: true });
  }

  /** On the player's phone or browser (signed in): refuses the device that shows this code. */
  async denyDevice(userCode: string): Promise<void> {
    await this.call('POST', '/device/decision', { user_code: userCode, approve: false });
  }

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.d.authed((token) => this.d.http.request<T>({ method, path, body, token }));
  }

  /** The signed-in account (`GET /account`): display name, status, roles, identities, devices. */
  account(): Promise<Account> {
    return this.call('GET', '/account');
  }

  /**
   * The player's active sanctions with their reasons and ends (`GET /account/sanctions`): a `chat` sanction makes
   * social refuse chat (`chat_restricted`), other types are features the game enforces. A ban ends the session
   * instead (sign-in answers 403 `account_banned` with `details.reason` and `details.expires_at`).
   */
  getSanctions(): Promise<Sanctions> {
    return this.call('GET', '/account/sanctions');
  }

  /**
   * Appeals one of the player's active sanctions, once (`POST /account/sanctions/{id}/appeal`): 409 `appeal_exists`
   * for a second one, 409 `sanction_not_active` once it ended. The answer arrives in the inbox as a
   * `moderationNotice` (reference `appeal:<id>`) and in {@link appeals}.
   */
  appealSanction(sanctionId: string, input: AppealInput): Promise<Appeal> {
    return this.call('POST', `/account/sanctions/${encodeURIComponent(sanctionId)}/appeal`, input);
  }

  /**
   * Appeals a ban without a session (`POST /appeals`): a banned player's sign-in fails with 403 `account_banned`,
   * whose `details.appeal_token` (valid a day) and `details.sanction_id` name the ban. No sign-in needed.
   */
  appealBan(appealToken: string, input: AppealInput): Promise<Appeal> {
    return this.d.http.request<Appeal>({ method: 'POST', path: '/appeals', body: { appeal_token: appealToken, ...input } });
  }

  /** The player's appeals, newest first, with each decision and answer (`GET /account/appeals`). */
  async appeals(): Promise<Appeal[]> {
    return (await this.call<{ appeals: Appeal[] }>('GET', '/account/appeals')).appeals;
  }

  /** Changes the account's settable fields (display name …) (`PATCH /account`). */
  updateAccount(patch: AccountPatch): Promise<Account> {
    return this.call('PATCH', '/account', patch);
  }

  /**
   * Links an email and password (upgrades a guest) or a platform ticket. Then the session is refreshed, so the next
   * access token no longer carries the guest claim and the features refused to guests (`guestRestriction`) open at
   * once (an open socket takes the new token with its next heartbeat).
   */
  async link(input: LinkInput): Promise<Identities> {
    const identities = await this.call<Identities>('POST', '/account/link', input);
    await this.d.session.refresh();
    return identities;
  }

  /** Removes an identity (`{provider}` or `{identity_id}`); never the last one (409 `last_credential`). */
  unlink(input: UnlinkInput): Promise<Identities> {
    return this.call('POST', '/account/unlink', input);
  }

  /** Everything auth holds about the account, as a privacy export (`POST /account/export`). */
  exportAccount(): Promise<AccountExportResult> {
    return this.call('POST', '/account/export');
  }

  /** Deletes the account (202, purged after the grace window); the session and guest credentials are forgotten. */
  async deleteAccount(): Promise<AccountDeletionResult> {
    const r = await this.call<AccountDeletionResult>('DELETE', '/account');
    await this.d.storage.remove(STORAGE_KEYS.guest);
    await this.d.session.clear('deleted');
    return r;
  }
}
