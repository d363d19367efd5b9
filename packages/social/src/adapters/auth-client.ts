/**
 * The auth service's staff API, reached over HTTP(S) for moderation actions (docs/social.md, "Sanctions"):
 * the moderator's own access token is forwarded, so auth decides who may sanction whom and records the
 * moderator as the sanction's author. Base URL: Social:Auth:Url, or the origin of Social:Auth:JwksUrl;
 * Social:Auth:CaFile is trusted. Auth's answers map to social's codes; a network failure, a timeout or a 5xx is
 * 503 `auth_unavailable`, never a 500.
 */
import { requestJson, type JsonResponse } from '@platform/kit';
import type { SocialConfig } from '../config.js';
import { rateLimited, socialError } from '../services/errors.js';

/** A sanction as auth answers it (snake_case). */
export interface AuthSanction {
  id: string;
  type: string;
  reason: string;
  created_at: string;
  expires_at: string | null;
  active: boolean;
}

export interface AuthAdmin {
  sanction(token: string, accountId: string, body: { type: string; reason: string; duration_seconds?: number }): Promise<AuthSanction>;
  /**
   * The account's id as auth spells it when auth knows it as active (GET /internal/accounts/{id} with
   * Social:Auth:InternalKey); undefined for an unknown, deleted, locked or banned account, and when no internal
   * key is configured (nothing can be confirmed). 503 `auth_unavailable` when auth cannot answer.
   */
  activeAccount(accountId: string): Promise<string | undefined>;
  /**
   * A guest account's standing by auth's guest abuse score (GET /internal/accounts/{id}: `guest_standing`, the level
   * only): `normal`, `slow` or `refuse`; undefined when auth gives none (not a guest, an older auth, no internal key)
   * or cannot be reached (fails open: the guest restrictions still apply). Kept `Social:Guests:StandingCacheSeconds`.
   */
  guestStanding(accountId: string): Promise<GuestStanding | undefined>;
  /**
   * The account's user id at a platform provider (GET /internal/accounts/{id}/identities): undefined when it has
   * none, the account is unknown or deleted, or no internal key is configured. Throws when auth cannot answer.
   */
  platformUserId(accountId: string, provider: string): Promise<string | undefined>;
  /**
   * Which of one provider's user ids belong to active accounts (POST /internal/platform-accounts/lookup, in batches
   * of 500): provider user id → account id. Throws when auth cannot answer.
   */
  platformAccounts(provider: string, providerUserIds: string[]): Promise<Map<string, string>>;
}

/** Ids auth's lookup takes at once (its LOOKUP_MAX_IDS). */
const LOOKUP_BATCH = 500;

export type GuestStanding = 'normal' | 'slow' | 'refuse';
const STANDINGS: readonly string[] = ['normal', 'slow', 'refuse'];
/** Standings kept at most (a bounded map: the oldest entry goes first). */
const STANDING_CACHE_MAX = 10_000;

const TIMEOUT_MS = 5000;

/** One request to auth's internal API: the internal key, the trusted CA and the timeout said once. */
function internalRequest(base: string, config: Pick<SocialConfig, 'ca' | 'authInternalKey'>, method: 'GET' | 'POST', path: string, body?: unknown): Promise<JsonResponse> {
  return requestJson(method, `${base}${path}`, { ...(body === undefined ? {} : { body }), headers: { 'x-internal-key': config.authInternalKey! }, ca: config.ca, timeoutMs: TIMEOUT_MS });
}

/** Social:Auth:Url, or the JWKS URL's origin; undefined when neither is configured (API-key mode). */
export function authBaseUrl(config: Pick<SocialConfig, 'authUrl' | 'jwksUrl'>): string | undefined {
  if (config.authUrl) return config.authUrl.replace(/\/+$/, '');
  return config.jwksUrl ? new URL(config.jwksUrl).origin : undefined;
}

function mapRefusal(res: JsonResponse): Error {
  const code = typeof res.body?.code === 'string' ? (res.body.code as string) : undefined;
  const message = typeof res.body?.message === 'string' ? (res.body.message as string) : 'The auth service refused the sanction';
  if (res.status === 400) return socialError('invalid_sanction', message, { authCode: code ?? null, ...(res.body?.field ? { field: res.body.field } : {}) });
  if (res.status === 401) return socialError('unauthorized', 'The auth service did not accept the moderator’s token');
  if (res.status === 403 && code === 'moderator_required') return socialError('moderator_required', 'The moderator or admin role is required');
  if (res.status === 403) return socialError('sanction_forbidden', message);
  if (res.status === 404) return socialError('user_not_found', 'The reported account no longer exists');
  if (res.status === 429) return rateLimited('The auth service rate limit is exceeded', Number(res.headers['retry-after'] ?? 1) * 1000);
  return socialError('auth_unavailable', `The auth service answered ${res.status}`);
}

export function createAuthAdmin(config: Pick<SocialConfig, 'authUrl' | 'jwksUrl' | 'ca' | 'authInternalKey' | 'guestStandingCacheSeconds'>): AuthAdmin {
  const base = authBaseUrl(config);
  const standings = new Map<string, { standing: GuestStanding | undefined; at: number }>();
  /** One lookup (GET /internal/accounts/{id}) serves both questions; a guest's answer also refreshes its standing. */
  async function lookupAccount(accountId: string): Promise<JsonResponse> {
    const res = await internalRequest(base!, config, 'GET', `/internal/accounts/${encodeURIComponent(accountId)}`);
    if (res.status < 500) keepStanding(accountId, res);
    return res;
  }
  function keepStanding(accountId: string, res: JsonResponse): void {
    const v = res.status === 200 ? res.body?.guest_standing : undefined;
    const standing = typeof v === 'string' && STANDINGS.includes(v) ? (v as GuestStanding) : undefined;
    standings.delete(accountId);
    standings.set(accountId, { standing, at: Date.now() });
    if (standings.size > STANDING_CACHE_MAX) standings.delete(standings.keys().next().value!);
  }
  return {
    async guestStanding(accountId) {
      if (!base || !config.authInternalKey) return undefined;
      const hit = standings.get(accountId);
      if (hit && Date.now() - hit.at < config.guestStandingCacheSeconds * 1000) return hit.standing;
      try {
        // A 5xx is not kept: asked again next time.
        if ((await lookupAccount(accountId)).status >= 500) return undefined;
      } catch {
        return undefined;
      }
      return standings.get(accountId)?.standing;
    },
    ...platformLookups(base, config),
    async activeAccount(accountId) {
      if (!base || !config.authInternalKey) return undefined;
      let res: JsonResponse;
      try {
        res = await lookupAccount(accountId);
      } catch {
        throw socialError('auth_unavailable', 'The auth service cannot be reached');
      }
      if (res.status === 200) return res.body?.status === 'active' && typeof res.body.id === 'string' ? (res.body.id as string) : undefined;
      // Unknown or deleted (404), or an id auth's schema refuses (400): not an account auth knows.
      if (res.status === 404 || res.status === 400) return undefined;
      throw socialError('auth_unavailable', `The auth service answered ${res.status} to the account check`);
    },
    async sanction(token, accountId, body) {
      if (!base) throw socialError('auth_unavailable', 'No auth service is configured (Social:Auth:Url or Social:Auth:JwksUrl)');
      let res: JsonResponse;
      try {
        res = await requestJson('POST', `${base}/admin/accounts/${encodeURIComponent(accountId)}/sanctions`, {
          body,
          headers: { authorization: `Bearer ${token}` },
          ca: config.ca,
          timeoutMs: TIMEOUT_MS,
        });
      } catch {
        throw socialError('auth_unavailable', 'The auth service cannot be reached');
      }
      if (res.status === 201 && typeof res.body?.id === 'string') return res.body as AuthSanction;
      throw mapRefusal(res);
    },
  };
}

/** Platform identities for the platform friends (services/platform-friends.ts); both throw when auth cannot answer. */
function platformLookups(base: string | undefined, config: Pick<SocialConfig, 'ca' | 'authInternalKey'>): Pick<AuthAdmin, 'platformUserId' | 'platformAccounts'> {
  return {
    async platformUserId(accountId, provider) {
      if (!base || !config.authInternalKey) return undefined;
      const res = await internalRequest(base, config, 'GET', `/internal/accounts/${encodeURIComponent(accountId)}/identities`);
      if (res.status === 404) return undefined;
      if (res.status !== 200 || !Array.isArray(res.body?.identities)) throw new Error(`auth answered ${res.status} to the identities read`);
      const found = (res.body.identities as { provider?: unknown; provider_user_id?: unknown }[]).find((i) => i.provider === provider);
      return typeof found?.provider_user_id === 'string' ? found.provider_user_id : undefined;
    },
    async platformAccounts(provider, providerUserIds) {
      const out = new Map<string, string>();
      if (!base || !config.authInternalKey) return out;
      for (let i = 0; i < providerUserIds.length; i += LOOKUP_BATCH) {
        const body = { provider, provider_user_ids: providerUserIds.slice(i, i + LOOKUP_BATCH) };
        const res = await internalRequest(base, config, 'POST', '/internal/platform-accounts/lookup', body);
        if (res.status !== 200 || !Array.isArray(res.body?.accounts)) throw new Error(`auth answered ${res.status} to the platform account lookup`);
        for (const a of res.body.accounts as { provider_user_id?: unknown; account_id?: unknown }[]) {
          if (typeof a.provider_user_id === 'string' && typeof a.account_id === 'string') out.set(a.provider_user_id, a.account_id);
        }
      }
      return out;
    },
  };
}
