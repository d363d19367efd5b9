/**
 * The console's sessions, in memory only (docs/console.md, "Sessions"): a developer session on the registry
 * and a staff session on auth (the SDK with its default memory storage). Nothing goes to localStorage,
 * sessionStorage or cookies, so a reload or a closed tab signs out. A session ends when its token expires
 * (developer: the token's `exp`; staff: when the SDK can no longer refresh), after `idleMinutes` without a
 * click or key press, or on "Sign out".
 */
import { createClient, PlatformError, type PlatformClient } from '@platform/client';
import { RegistryApi, RegistryError, type Signed } from './registry-api.js';

export interface ConsoleConfig {
  authUrl: string;
  socialUrl: string;
  idleMinutes: number;
}

export interface StaffSession {
  accountId: string;
  name: string;
  roles: string[];
  client: PlatformClient;
}

const STAFF_ROLES = ['moderator', 'admin'];

export class ConsoleSessions {
  readonly registry = new RegistryApi();
  developer: Signed | undefined;
  /** A developer sign-in waiting for its second step: the registry's MfaToken (five minutes), in memory only. */
  pendingMfa: { email: string; token: string; factors: string[] } | undefined;
  staff: StaffSession | undefined;
  private expiry: ReturnType<typeof setTimeout> | undefined;
  private lastActivity = Date.now();

  constructor(
    readonly config: ConsoleConfig,
    /** Called whenever a session starts or ends; `why` says why one ended. */
    private readonly changed: (why?: string) => void,
  ) {
    for (const ev of ['pointerdown', 'keydown']) addEventListener(ev, () => (this.lastActivity = Date.now()), { capture: true, passive: true });
    setInterval(() => this.checkIdle(), 5_000);
  }

  get any(): boolean {
    return this.developer !== undefined || this.staff !== undefined;
  }

  private checkIdle(): void {
    if (this.any && Date.now() - this.lastActivity > this.config.idleMinutes * 60_000) {
      void this.signOut(`Signed out after ${this.config.idleMinutes} minutes without activity.`);
    }
  }

  private adoptDeveloper(who: Signed): void {
    this.developer = who;
    clearTimeout(this.expiry);
    // setTimeout holds at most ~24.8 days; the registry's longest token is 30 days, so it is capped.
    this.expiry = setTimeout(() => this.endDeveloper('Your developer session expired: sign in again.'), Math.min(who.expiresAt - Date.now(), 2 ** 31 - 1));
    this.lastActivity = Date.now();
    this.changed();
  }

  /**
   * Signs a developer in. With an authenticator on, the registry answers 401 mfa_required: the MfaToken is kept
   * (pendingMfa, with the Factors the developer has) and 'mfa' answered, so the page asks for the code or the passkey
   * (developerSignInMfa).
   */
  async developerSignIn(email: string, password: string): Promise<'signed-in' | 'mfa'> {
    try {
      this.adoptDeveloper(await this.registry.signIn(email, password));
      return 'signed-in';
    } catch (e) {
      if (!(e instanceof RegistryError) || e.code !== 'mfa_required' || typeof e.details.MfaToken !== 'string') throw e;
      const factors = Array.isArray(e.details.Factors) ? (e.details.Factors as string[]) : ['totp'];
      this.pendingMfa = { email, token: e.details.MfaToken, factors };
      return 'mfa';
    }
  }

  /** The second step: the authenticator's code or a recovery code, or (proof 'passkey') one of the developer's passkeys. */
  async developerSignInMfa(proof: string | 'passkey'): Promise<void> {
    if (!this.pendingMfa) throw new Error('Sign in with your email and password first.');
    const token = this.pendingMfa.token;
    const who = proof === 'passkey' ? await this.registry.signInMfaPasskey(token) : await this.registry.signInMfa(token, proof);
    this.pendingMfa = undefined;
    this.adoptDeveloper(who);
  }

  /** Signs a developer in with a passkey alone (the browser's prompt; no password, no second step). */
  async developerSignInWithPasskey(): Promise<void> {
    this.adoptDeveloper(await this.registry.signInWithPasskey());
  }

  /** After the registry replaced the developer's token (a second factor added or removed): its new expiry. */
  developerTokenReplaced(expiresAt: number): void {
    if (this.developer) this.adoptDeveloper({ ...this.developer, expiresAt });
  }

  async developerRegister(email: string, password: string, displayName: string): Promise<void> {
    this.adoptDeveloper(await this.registry.register(email, password, displayName));
  }

  private endDeveloper(why?: string): void {
    clearTimeout(this.expiry);
    this.registry.signOut();
    this.developer = undefined;
    this.pendingMfa = undefined;
    this.changed(why);
  }

  /** Signs in on auth; an account without the moderator or admin role is signed out again and refused. */
  async staffSignIn(email: string, password: string, secondFactor?: string): Promise<void> {
    const client = createClient({ authUrl: this.config.authUrl, socialUrl: this.config.socialUrl, platform: 'web' });
    try {
      await client.auth.signInWithEmail({ email, password });
    } catch (e) {
      // An authenticator on the account (docs/auth.md, "Second factor (TOTP)"): the code (6 digits) or a recovery code.
      if (!(e instanceof PlatformError) || e.code !== 'mfa_required') throw e;
      const proof = secondFactor?.trim();
      const factors = Array.isArray(e.details.factors) ? (e.details.factors as string[]) : ['totp'];
      // No code typed and a passkey on the account: the browser's passkey prompt finishes it (docs/auth.md, "Passkeys").
      if (!proof && factors.includes('passkey')) await client.auth.completeSignInWithPasskey(String(e.details.mfa_token));
      else if (!proof) throw new Error('This account has an authenticator: enter its code (or a recovery code) and sign in again.');
      else await client.auth.completeSignIn(String(e.details.mfa_token), /^\d{6}$/.test(proof) ? { code: proof } : { recovery_code: proof });
    }
    const account = await client.auth.account();
    if (!account.roles.some((r) => STAFF_ROLES.includes(r))) {
      await client.auth.signOut().catch(() => {});
      throw new Error('This account has neither the moderator nor the admin role.');
    }
    client.session.onChange((e) => {
      if (e.type === 'signedOut' && this.staff?.client === client && e.reason !== 'signOut') {
        this.staff = undefined;
        this.changed('Your staff session ended: sign in again.');
      }
    });
    this.staff = { accountId: account.id, name: account.display_name ?? email, roles: account.roles, client };
    this.lastActivity = Date.now();
    this.changed();
  }

  async signOut(why?: string): Promise<void> {
    const staff = this.staff;
    this.staff = undefined;
    await staff?.client.auth.signOut().catch(() => {});
    this.endDeveloper(why);
  }
}
