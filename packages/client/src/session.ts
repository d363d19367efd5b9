/**
 * The signed-in session: the token pair, kept in storage, refreshed before the access token expires.
 *
 * One refresh at a time: the auth service treats a refresh token presented twice as stolen and ends the
 * session (docs/auth.md, "Reuse"), so every caller that finds the token stale awaits the same refresh. The new
 * pair is stored before anyone uses it (a pair lost after the rotation cannot be used again). Tabs sharing
 * localStorage: the refresh runs under a Web Lock where the browser has them, and a pair another tab stored
 * meanwhile is adopted instead of refreshing again.
 */
import { PlatformError } from './errors.js';
import type { HttpService } from './http.js';
import { readJson, STORAGE_KEYS, writeJson, type TokenStorage } from './storage.js';
import type { TokenPair } from './types.js';

export interface StoredSession {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds at which the access token expires (measured from when it was asked for). */
  expiresAt: number;
  accountId?: string;
}

/**
 * `signedOut` reasons: `signOut` (this client), `expired` (the refresh token was refused), `revoked` (the session
 * was ended elsewhere: sign-out on another device, refresh-token reuse; or a token refused as `token_revoked`),
 * `disabled` (the account was locked or banned), `deleted` (the account was deleted or erased).
 */
export type SignOutReason = 'signOut' | 'expired' | 'revoked' | 'disabled' | 'deleted';

export type SessionEvent = { type: 'signedIn' | 'refreshed'; session: StoredSession } | { type: 'signedOut'; reason: SignOutReason };

export interface SessionOptions {
  auth: HttpService;
  storage: TokenStorage;
  now: () => number;
  /** Refresh when the access token has less than this left (seconds). */
  refreshLeewaySeconds: number;
}

interface LockManager {
  request<T>(name: string, cb: () => Promise<T>): Promise<T>;
}

/** The player's token pair (`client.session`): stored, refreshed before expiry with one refresh in flight, and its events. */
export class Session {
  private current: StoredSession | null = null;
  private loaded: Promise<void> | undefined;
  private inflight: Promise<StoredSession> | undefined;
  private readonly listeners = new Set<(e: SessionEvent) => void>();

  constructor(private readonly o: SessionOptions) {}

  /** Calls `fn` on sign-in, refresh and sign-out; returns the function that stops it. */
  onChange(fn: (e: SessionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: SessionEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  private load(): Promise<void> {
    this.loaded ??= readJson<StoredSession>(this.o.storage, STORAGE_KEYS.session).then((s) => {
      if (s && typeof s.accessToken === 'string' && typeof s.refreshToken === 'string') this.current ??= s;
    });
    return this.loaded;
  }

  /** The stored session, or null when signed out. */
  async get(): Promise<StoredSession | null> {
    await this.load();
    return this.current;
  }

  /** True when a session is stored (it may still be refused by the service). */
  async isSignedIn(): Promise<boolean> {
    return (await this.get()) !== null;
  }

  /** Keeps a new token pair (sign-in or refresh). `askedAt` is when the request left, so expiry errs early. */
  async store(pair: TokenPair, askedAt: number, accountId?: string, event: 'signedIn' | 'refreshed' = 'signedIn'): Promise<StoredSession> {
    const s: StoredSession = {
      accessToken: pair.access_token,
      refreshToken: pair.refresh_token,
      expiresAt: askedAt + pair.expires_in * 1000,
      accountId: pair.account_id ?? accountId,
    };
    await writeJson(this.o.storage, STORAGE_KEYS.session, s);
    this.current = s;
    this.loaded = Promise.resolve();
    this.emit({ type: event, session: s });
    return s;
  }

  /** Forgets the session locally (no call to the service) and emits `signedOut` with the reason. */
  async clear(reason: SignOutReason): Promise<void> {
    const had = this.current !== null;
    this.current = null;
    this.loaded = Promise.resolve();
    await this.o.storage.remove(STORAGE_KEYS.session);
    if (had) this.emit({ type: 'signedOut', reason });
  }

  private fresh(s: StoredSession, minValiditySeconds: number): boolean {
    return s.expiresAt - this.o.now() > minValiditySeconds * 1000;
  }

  /**
   * An access token valid for at least `minValiditySeconds` (default: the refresh leeway), refreshing first
   * when needed. Throws PlatformError `not_signed_in` (401) when there is no session.
   */
  async accessToken(minValiditySeconds = this.o.refreshLeewaySeconds): Promise<string> {
    const s = await this.get();
    if (!s) throw notSignedIn();
    if (this.fresh(s, minValiditySeconds)) return s.accessToken;
    return (await this.refresh()).accessToken;
  }

  /**
   * After a 401 for `usedToken`: a token that differs from it (someone refreshed meanwhile), else a refreshed one.
   */
  async tokenAfterRejection(usedToken: string): Promise<string> {
    const s = await this.get();
    if (!s) throw notSignedIn();
    if (s.accessToken !== usedToken) return s.accessToken;
    return (await this.refresh()).accessToken;
  }

  /** Rotates the refresh token now. Concurrent callers share one request. */
  refresh(): Promise<StoredSession> {
    this.inflight ??= this.lockedRefresh().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private lockedRefresh(): Promise<StoredSession> {
    const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
    return locks ? locks.request('platform-client-refresh', () => this.doRefresh()) : this.doRefresh();
  }

  private async doRefresh(): Promise<StoredSession> {
    await this.load();
    const before = this.current;
    if (!before) throw notSignedIn();
    // Another tab (same storage) may have rotated the pair already: its refresh token is the live one.
    const stored = await readJson<StoredSession>(this.o.storage, STORAGE_KEYS.session);
    if (stored && stored.refreshToken !== before.refreshToken) {
      this.current = stored;
      if (this.fresh(stored, this.o.refreshLeewaySeconds)) return stored;
    }
    const refreshToken = this.current!.refreshToken;
    const askedAt = this.o.now();
    try {
      const pair = await this.o.auth.request<TokenPair>({ method: 'POST', path: '/refresh', body: { refresh_token: refreshToken } });
      return await this.store(pair, askedAt, before.accountId, 'refreshed');
    } catch (e) {
      // The refresh token is dead (expired, revoked, reused): the session is over.
      if (e instanceof PlatformError && e.status === 401) await this.clear(e.code === 'token_reused' ? 'revoked' : 'expired');
      throw e;
    }
  }
}

export function notSignedIn(): PlatformError {
  return new PlatformError({ status: 401, code: 'not_signed_in', message: 'No session: sign in first', source: 'client' });
}
