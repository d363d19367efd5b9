/**
 * Configuration of the external platform providers. Each provider is one
 * composite kit variable that reads all of its environment variables at once,
 * so readConfig reports a partially configured provider (some variables set,
 * others missing) as a ConfigError naming the missing variables, and the
 * service does not start half-configured.
 */
import { parseKey32, type Env, type Variable } from '@platform/kit';

export interface StoreAConfig {
  /** Steam-style app id the tickets must be issued for. */
  appId: number;
  /** The app's 32-byte symmetric ticket key. */
  encryptionKey: Buffer;
  /** Oldest accepted ticket, from its issue time. */
  maxTicketAgeSeconds: number;
}

export interface OidcProviderConfig {
  /** Exact `iss` value the tokens must carry. */
  issuer: string;
  /** The provider's key set (JWKS) URL; https, or http on a loopback host. */
  jwksUrl: string;
  /** Accepted `aud` values (client ids); a token must name at least one. */
  audience: string[];
}

/** Default for AUTH_STORE_A_MAX_TICKET_AGE_SECONDS; see docs/auth-providers.md. */
export const DEFAULT_STORE_A_MAX_TICKET_AGE_SECONDS = 300;

const isSet = (env: Env, name: string) => env[name] !== undefined && env[name] !== '';

/** Throws when some of `names` are set and others are not; true when all are set. */
function allOrNone(env: Env, provider: string, required: string[], optional: string[] = []): boolean {
  const present = [...required, ...optional].filter((n) => isSet(env, n));
  if (present.length === 0) return false;
  const missing = required.filter((n) => !isSet(env, n));
  if (missing.length) {
    throw new Error(
      `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required: ${provider} is partially configured ` +
        `(${present.join(', ')} set); set ${missing.length > 1 ? 'them' : 'it'} or unset the others`,
    );
  }
  return true;
}

/** A key-set URL: https, or http only towards a loopback host (tests, sidecars). */
export function parseKeySetUrl(name: string, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`${name}: must be a URL`);
  }
  const loopback = u.hostname === 'localhost' || u.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(u.hostname);
  if (u.protocol === 'https:') return u.href;
  if (u.protocol === 'http:' && loopback) return u.href;
  throw new Error(`${name}: must use https (http is allowed only for a loopback host)`);
}

function storeAVariable(): Variable<StoreAConfig | undefined> {
  const APP_ID = 'AUTH_STORE_A_APP_ID';
  const KEY = 'AUTH_STORE_A_ENCRYPTION_KEY';
  const AGE = 'AUTH_STORE_A_MAX_TICKET_AGE_SECONDS';
  return {
    name: 'AUTH_STORE_A_*',
    description: `store_a (encrypted app tickets): ${APP_ID}, ${KEY}, ${AGE}`,
    read(env) {
      if (!allOrNone(env, 'store_a', [APP_ID, KEY], [AGE])) return undefined;
      const appIdRaw = env[APP_ID]!.trim();
      const appId = Number(appIdRaw);
      if (!/^\d+$/.test(appIdRaw) || appId < 1 || appId > 0xffffffff) throw new Error(`${APP_ID}: must be an app id (1 to 4294967295)`);
      let encryptionKey: Buffer;
      try {
        encryptionKey = parseKey32(env[KEY]!);
      } catch (err) {
        // Never echo a secret back in the error.
        throw new Error(`${KEY}: ${(err as Error).message}`);
      }
      let maxTicketAgeSeconds = DEFAULT_STORE_A_MAX_TICKET_AGE_SECONDS;
      if (isSet(env, AGE)) {
        const raw = env[AGE]!.trim();
        maxTicketAgeSeconds = Number(raw);
        if (!/^\d+$/.test(raw) || maxTicketAgeSeconds < 10 || maxTicketAgeSeconds > 86_400) {
          throw new Error(`${AGE}: must be an integer from 10 to 86400 (got ${JSON.stringify(raw.slice(0, 20))})`);
        }
      }
      return { appId, encryptionKey, maxTicketAgeSeconds };
    },
  };
}

function oidcVariable(provider: string, prefix: string): Variable<OidcProviderConfig | undefined> {
  const ISSUER = `${prefix}_ISSUER`;
  const JWKS = `${prefix}_JWKS_URL`;
  const AUD = `${prefix}_AUDIENCE`;
  return {
    name: `${prefix}_*`,
    description: `${provider} (ID tokens): ${ISSUER}, ${JWKS}, ${AUD}`,
    read(env) {
      if (!allOrNone(env, provider, [ISSUER, JWKS, AUD])) return undefined;
      const audience = env[AUD]!.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (!audience.length) throw new Error(`${AUD}: must name at least one client id`);
      return { issuer: env[ISSUER]!.trim(), jwksUrl: parseKeySetUrl(JWKS, env[JWKS]!.trim()), audience };
    },
  };
}

/** Kit variables, merged into the auth service's config spec. */
export const platformProviderVars = {
  storeA: storeAVariable(),
  storeB: oidcVariable('store_b', 'AUTH_STORE_B'),
  idpA: oidcVariable('idp_a', 'AUTH_IDP_A'),
  idpB: oidcVariable('idp_b', 'AUTH_IDP_B'),
} satisfies Record<string, Variable<unknown>>;

/** What readConfig(platformProviderVars) returns; an absent entry is an unconfigured provider. */
export interface PlatformProvidersConfig {
  storeA?: StoreAConfig;
  storeB?: OidcProviderConfig;
  idpA?: OidcProviderConfig;
  idpB?: OidcProviderConfig;
}
