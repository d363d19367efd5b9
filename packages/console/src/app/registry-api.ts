/**
 * The registry's developer API, typed from its OpenAPI document (@platform/client's generated types). The
 * developer token lives in this object only (memory): never in storage, never in a cookie, never logged.
 */
import { browserPasskeys, type PasskeyCredentialJSON, type PasskeyOptionsJSON, type RegistryBody, type RegistryResult } from '@platform/client';

export type AuthResponse = RegistryResult<'/developers/login', 'post'>;
export type GameView = RegistryResult<'/games/{gameId}', 'get'>;
export type GameWithSecret = RegistryResult<'/games', 'post'>;
export type GamePatch = RegistryBody<'/games/{gameId}', 'patch'>;
export type ModuleBuild = RegistryResult<'/games/{gameId}/modules', 'post'>;
export type ModuleUpload = RegistryBody<'/games/{gameId}/modules', 'post'>;
export type Registration = RegistryResult<'/games/{gameId}/users', 'get'>[number];
export type Developer = RegistryResult<'/admin/developers', 'get'>[number];
export type Visibility = GameView['CrossGameVisibility'];
export type TextFilter = RegistryResult<'/games/{gameId}/text-filter', 'get'>;
export type TextFilterUpdate = RegistryBody<'/games/{gameId}/text-filter', 'put'>;
export type MfaStatus = RegistryResult<'/developers/me/mfa', 'get'>;
export type TotpStart = RegistryResult<'/developers/me/mfa/totp', 'post'>;
export type Passkey = RegistryResult<'/developers/me/passkeys', 'get'>['Passkeys'][number];
type Options = { PublicKey: Record<string, unknown> };

/** The browser's passkey prompt (navigator.credentials, through the SDK's helper): `create` or `get` for the options. */
async function ceremony(kind: 'create' | 'get', options: Options): Promise<PasskeyCredentialJSON> {
  const authenticator = browserPasskeys();
  if (!authenticator) throw new Error('This browser cannot use passkeys.');
  try {
    return await authenticator[kind](options.PublicKey as PasskeyOptionsJSON);
  } catch (e) {
    const name = (e as { name?: string }).name;
    throw new Error(name === 'NotAllowedError' || name === 'AbortError' ? 'The passkey prompt was cancelled or timed out.' : `The passkey failed: ${(e as Error).message}`);
  }
}
/** A code of the authenticator app (6 digits) or a recovery code: told apart by their form. */
export const mfaProof = (proof: string): { Code: string } | { RecoveryCode: string } => {
  const p = proof.trim();
  return /^\d{6}$/.test(p) ? { Code: p } : { RecoveryCode: p };
};

/** A refused registry call: the status, the error code and the body's details (OffendingImports …). */
export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Who signed in (the token stays inside RegistryApi). */
export interface Signed {
  id: string;
  email: string;
  role: AuthResponse['Role'];
  /** When the token expires (epoch ms): the console signs out then. */
  expiresAt: number;
}

const seg = encodeURIComponent;

export class RegistryApi {
  private token: string | undefined;

  /** `base`: the registry's origin (the console is served by it, so '' = same origin). */
  constructor(private readonly base = '') {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // credentials 'omit': nothing ambient travels (there is no cookie to send anyway).
    const res = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    if (res.status >= 400) {
      const { Code, Message, ...details } = parsed ?? {};
      throw new RegistryError(res.status, String(Code ?? 'http_error'), String(Message ?? `HTTP ${res.status}`), details);
    }
    return parsed as T;
  }

  /** Signs in; the token is kept here. Answers who signed in and when the token expires (epoch ms). */
  async signIn(email: string, password: string): Promise<Signed> {
    return this.adopt(await this.call<AuthResponse>('POST', '/developers/login', { Email: email, Password: password }));
  }
  /** The second step of a sign-in the registry answered 401 mfa_required (its MfaToken) with a code or a recovery code. */
  async signInMfa(mfaToken: string, proof: string): Promise<Signed> {
    return this.adopt(await this.call<AuthResponse>('POST', '/developers/login/mfa', { MfaToken: mfaToken, ...mfaProof(proof) }));
  }
  /** Signs in with a passkey alone (discoverable: the browser asks which); the token is kept here. */
  async signInWithPasskey(): Promise<Signed> {
    const credential = await ceremony('get', await this.call<Options>('POST', '/developers/login/passkey/options'));
    return this.adopt(await this.call<AuthResponse>('POST', '/developers/login/passkey', { Credential: credential }));
  }
  /** The second step of a sign-in with one of the developer's passkeys (the options name them). */
  async signInMfaPasskey(mfaToken: string): Promise<Signed> {
    const credential = await ceremony('get', await this.call<Options>('POST', '/developers/login/mfa/passkey/options', { MfaToken: mfaToken }));
    return this.adopt(await this.call<AuthResponse>('POST', '/developers/login/mfa', { MfaToken: mfaToken, Passkey: credential }));
  }
  async register(email: string, password: string, displayName: string): Promise<Signed> {
    return this.adopt(await this.call<AuthResponse>('POST', '/developers/register', { Email: email, Password: password, DisplayName: displayName }));
  }
  private adopt(r: AuthResponse): Signed {
    this.token = r.Token;
    return { id: r.DeveloperId, email: r.Email, role: r.Role, expiresAt: tokenExpiry(r.Token) };
  }
  signOut(): void {
    this.token = undefined;
  }
  get signedIn(): boolean {
    return this.token !== undefined;
  }

  mfaStatus = () => this.call<MfaStatus>('GET', '/developers/me/mfa');
  startTotp = () => this.call<TotpStart>('POST', '/developers/me/mfa/totp');
  /** Turns the authenticator on: the recovery codes (once); the registry ends every other token and answers a new one, kept here. */
  async confirmTotp(code: string): Promise<{ recoveryCodes: string[]; expiresAt: number }> {
    const r = await this.call<RegistryResult<'/developers/me/mfa/totp/confirm', 'post'>>('POST', '/developers/me/mfa/totp/confirm', { Code: code.trim() });
    this.token = r.Token;
    return { recoveryCodes: r.RecoveryCodes, expiresAt: tokenExpiry(r.Token) };
  }
  /** Removes the authenticator (a code or a recovery code); the new token is kept here. Answers its expiry (epoch ms). */
  async removeTotp(proof: string): Promise<number> {
    const r = await this.call<RegistryResult<'/developers/me/mfa/totp/remove', 'post'>>('POST', '/developers/me/mfa/totp/remove', mfaProof(proof));
    this.token = r.Token;
    return tokenExpiry(r.Token);
  }
  passkeys = async () => (await this.call<RegistryResult<'/developers/me/passkeys', 'get'>>('GET', '/developers/me/passkeys')).Passkeys;
  /** Makes a passkey in the browser and registers it; the registry ends every other token and answers a new one, kept here. */
  async addPasskey(name: string): Promise<number> {
    const credential = await ceremony('create', await this.call<Options>('POST', '/developers/me/passkeys/registration/options'));
    const r = await this.call<RegistryResult<'/developers/me/passkeys/registration', 'post'>>('POST', '/developers/me/passkeys/registration', { Credential: credential, ...(name.trim() ? { Name: name.trim() } : {}) });
    this.token = r.Token;
    return tokenExpiry(r.Token);
  }
  /** Removes one of the developer's passkeys; the new token is kept here. Answers its expiry (epoch ms). */
  async removePasskey(id: string): Promise<number> {
    const r = await this.call<RegistryResult<'/developers/me/passkeys/{id}', 'delete'>>('DELETE', `/developers/me/passkeys/${seg(id)}`);
    this.token = r.Token;
    return tokenExpiry(r.Token);
  }
  games = () => this.call<GameView[]>('GET', '/games');
  game = (id: string) => this.call<GameView>('GET', `/games/${seg(id)}`);
  createGame = (DisplayName: string, LaunchCommand?: string) => this.call<GameWithSecret>('POST', '/games', LaunchCommand ? { DisplayName, LaunchCommand } : { DisplayName });
  updateGame = (id: string, patch: GamePatch) => this.call<GameView>('PATCH', `/games/${seg(id)}`, patch);
  deleteGame = (id: string) => this.call<void>('DELETE', `/games/${seg(id)}`);
  regenerateKey = (id: string) => this.call<GameWithSecret>('POST', `/games/${seg(id)}/regenerate-key`);
  regenerateClientKey = (id: string) => this.call<GameView>('POST', `/games/${seg(id)}/regenerate-client-key`);
  modules = (id: string) => this.call<ModuleBuild[]>('GET', `/games/${seg(id)}/modules`);
  uploadModule = (id: string, upload: ModuleUpload) => this.call<ModuleBuild>('POST', `/games/${seg(id)}/modules`, upload);
  textFilter = (id: string) => this.call<TextFilter>('GET', `/games/${seg(id)}/text-filter`);
  setTextFilter = (id: string, update: TextFilterUpdate) => this.call<TextFilter>('PUT', `/games/${seg(id)}/text-filter`, update);
  players = (id: string) => this.call<Registration[]>('GET', `/games/${seg(id)}/users`);
  developers = () => this.call<Developer[]>('GET', '/admin/developers');
  /** Super-admin: removes a developer's authenticator and passkeys (every token of theirs stops working). */
  resetDeveloperFactors = (id: string, reason: string) =>
    this.call<RegistryResult<'/admin/developers/{id}/factors/reset', 'post'>>('POST', `/admin/developers/${seg(id)}/factors/reset`, { Reason: reason });
  staffRole = (Account: string, Role: 'moderator' | 'admin', Granted: boolean) =>
    this.call<RegistryResult<'/admin/staff-roles', 'post'>>('POST', '/admin/staff-roles', { Account, Role, Granted });
}

/** The `exp` of a JWT (epoch ms); a token without one is treated as expiring in an hour. */
export function tokenExpiry(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    if (typeof payload.exp === 'number') return payload.exp * 1000;
  } catch {
    // not a JWT: fall through
  }
  return Date.now() + 3_600_000;
}

/** Standard padded base64 of bytes (what the module upload takes). */
export function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
