/** Sign-in, sign-out and the player's own account on the auth service. */
import { PlatformError } from './errors.js';
import type { HttpService } from './http.js';
import type { Session, StoredSession } from './session.js';
import { readJson, STORAGE_KEYS, writeJson, type TokenStorage } from './storage.js';
import type {
  Account,
  AccountDeletionResult,
  AccountExportResult,
  AccountPatch,
  DevicePlatform,
  Identities,
  LinkInput,
  LoginInput,
  PlatformSignInInput,
  RegisterInput,
  Sanctions,
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

function randomId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

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

  /** Creates an email account and signs it in (201). */
  async register(input: Omit<RegisterInput, 'device'>): Promise<{ accountId: string | undefined }> {
    const s = await this.signIn('/register', { ...input, device: await this.device() });
    return { accountId: s.account_id };
  }

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

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.d.authed((token) => this.d.http.request<T>({ method, path, body, token }));
  }

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

  updateAccount(patch: AccountPatch): Promise<Account> {
    return this.call('PATCH', '/account', patch);
  }

  /** Links an email and password (upgrades a guest) or a platform ticket. */
  link(input: LinkInput): Promise<Identities> {
    return this.call('POST', '/account/link', input);
  }

  /** Removes an identity (`{provider}` or `{identity_id}`); never the last one (409 `last_credential`). */
  unlink(input: UnlinkInput): Promise<Identities> {
    return this.call('POST', '/account/unlink', input);
  }

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
