/**
 * Registry configuration, read once from the environment. The listening port
 * is fixed (3004) and deliberately not configurable.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, aliased, commonVars, metricsVars, readConfig, relyingPartyOf, vars, type Env, type RelyingParty, type Variable } from '@platform/kit';

export const REGISTRY_PORT = 3004;

/**
 * Where the console's static files are when REGISTRY_CONSOLE_DIR is unset: the console package's build output
 * (packages/console/dist/public, written by `npm run build`), found next to this package on disk, from src/ and
 * dist/ alike. The registry never imports the console's code.
 */
export const DEFAULT_CONSOLE_DIR = path.resolve(import.meta.dirname, '..', '..', 'console', 'dist', 'public');

/** The WASI subset a sandboxed game server module may import. */
export const DEFAULT_WASI_IMPORTS = [
  'args_get',
  'args_sizes_get',
  'environ_get',
  'environ_sizes_get',
  'clock_time_get',
  'clock_res_get',
  'fd_write',
  'fd_read',
  'fd_close',
  'fd_seek',
  'fd_fdstat_get',
  'proc_exit',
  'random_get',
  'sched_yield',
].map((f) => `wasi_snapshot_preview1.${f}`);

/** Default import allowlist: the WASI subset plus the platform host API. */
export const DEFAULT_IMPORT_ALLOWLIST = [...DEFAULT_WASI_IMPORTS, 'platform.*'];

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** `module.name`: a literal module (no `*`), a dot, a name glob. */
const PATTERN = /^[^\s,*.]+\.[^\s,]+$/;

function checked<T>(v: Variable<T>, check: (value: T) => string | undefined): Variable<T> {
  return {
    ...v,
    read(env) {
      const value = v.read(env);
      const problem = check(value);
      if (problem) throw new Error(`${v.name}: ${problem}`);
      return value;
    },
  };
}

export const registryVars = {
  ...commonVars,
  ...metricsVars('REGISTRY'),
  schema: vars.string('REGISTRY_DB_SCHEMA', { default: 'registry', description: 'PostgreSQL schema owned by the registry' }),
  masterKey: vars.key32('REGISTRY_MASTER_KEY', {
    description: 'Encrypts the token-signing key at rest (32 bytes, hex or base64); generated into DATA_DIR/registry/master.key when unset',
  }),
  adminEmail: checked(vars.string('REGISTRY_ADMIN_EMAIL', { default: 'admin@localhost', description: 'Email of the seeded super-admin' }), (v) =>
    EMAIL.test(v) ? undefined : 'must be an email address',
  ),
  adminPassword: checked(vars.optionalString('REGISTRY_ADMIN_PASSWORD', 'Password of the seeded super-admin; generated and printed once when unset'), (v) =>
    v === undefined || (v.length >= PASSWORD_MIN && v.length <= PASSWORD_MAX)
      ? undefined
      : `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`,
  ),
  tokenTtlSeconds: vars.int('REGISTRY_TOKEN_TTL_SECONDS', {
    default: 12 * 3600,
    min: 60,
    max: 30 * 24 * 3600,
    description: 'Lifetime of developer tokens in seconds',
  }),
  keyCacheTtlMs: vars.int('REGISTRY_KEY_CACHE_TTL_MS', {
    default: 5000,
    min: 0,
    max: 60_000,
    description: 'How long a node caches an API key lookup of /auth/validate-key (0 disables the cache)',
  }),
  moduleMaxBytes: vars.int('REGISTRY_MODULE_MAX_BYTES', {
    default: 8 * 1024 * 1024,
    min: 1024,
    max: 64 * 1024 * 1024,
    description: 'Largest accepted module (decoded bytes)',
  }),
  importAllowlist: checked(
    vars.list('REGISTRY_MODULE_IMPORT_ALLOWLIST', {
      default: DEFAULT_IMPORT_ALLOWLIST,
      description: 'Comma-separated glob patterns (`*` = any characters) over "module.name" of wasm imports',
    }),
    (list) => {
      const bad = list.filter((p) => !PATTERN.test(p));
      return bad.length ? `patterns must look like module.name (got ${bad.join(', ')})` : undefined;
    },
  ),
  recentSignInSeconds: vars.int('REGISTRY_RECENT_SIGN_IN_SECONDS', {
    default: 900,
    min: 60,
    max: 86_400,
    description: 'How recent a developer token\'s sign-in must be to add a passkey or an authenticator, or remove a passkey (docs/registry.md, "Recent sign-in")',
  }),
  secondFactorRoles: checked(
    vars.list('REGISTRY_SECOND_FACTOR_ROLES', {
      default: [],
      description:
        'Roles whose rights need a confirmed authenticator (only super-admin may be named): without one the account signs in and acts as a developer (/admin/* answers 403 second_factor_required) until it enrols',
    }),
    (list) => (list.every((r) => r === 'super-admin') ? undefined : `only super-admin may be named (got ${list.join(', ')})`),
  ),
  webauthnRpId: vars.optionalString(
    'REGISTRY_WEBAUTHN_RP_ID',
    "The WebAuthn relying-party id developers' passkeys are bound to: the registry's registrable domain (e.g. example.com), never an IP address; default the host of REGISTRY_PUBLIC_URL",
  ),
  webauthnOrigins: vars.list('REGISTRY_WEBAUTHN_ORIGINS', {
    default: [],
    description: 'Exact origins (scheme://host[:port]) whose pages (the console) may register and use developer passkeys; default the origin of REGISTRY_PUBLIC_URL',
  }),
  webauthnRpName: vars.string('REGISTRY_WEBAUTHN_RP_NAME', { default: 'Game Platform (developers)', description: 'The name the browser shows when a developer passkey is made' }),
  rateLoginMfaPerIp: vars.int('REGISTRY_RATE_LOGIN_MFA_PER_IP', { default: 100, min: 1, description: 'Second steps of developer sign-ins (POST /developers/login/mfa) per address and window' }),
  rateWindowSeconds: vars.int('REGISTRY_RATE_WINDOW_SECONDS', { default: 60, min: 1, description: 'Sliding window of the sign-in limits' }),
  rateLoginPerIp: vars.int('REGISTRY_RATE_LOGIN_PER_IP', { default: 100, min: 1, description: 'Developer sign-ins per address and window' }),
  rateLoginPerIpEmail: vars.int('REGISTRY_RATE_LOGIN_PER_IP_EMAIL', {
    default: 10,
    min: 1,
    description: 'Developer sign-ins per address and email and window (password guessing from one source)',
  }),
  rateRegisterPerIp: vars.int('REGISTRY_RATE_REGISTER_PER_IP', { default: 30, min: 1, description: 'Developer sign-ups per address and window' }),
  authUrl: vars.url('REGISTRY_AUTH_URL', {
    default: 'https://127.0.0.1:8443',
    protocols: ['http', 'https'],
    description: 'Base URL of the auth service (register-user resolves players through it)',
  }),
  authCaFile: vars.optionalString('REGISTRY_AUTH_CA_FILE', "PEM trusted for calls to the auth service (its self-signed certificate)"),
  authInternalKey: vars.optionalString('REGISTRY_AUTH_INTERNAL_KEY', "The registry's secret in the auth service's AUTH_INTERNAL_KEYS (sent as X-Internal-Key)"),
  publicUrl: vars.url('REGISTRY_PUBLIC_URL', {
    default: 'http://localhost:3004',
    protocols: ['http', 'https'],
    description: 'The registry as developers reach it (the OpenAPI servers entry); npm start sets it to where it serves the registry',
  }),
  // On/off switches end in _ENABLED in every service; REGISTRY_CONSOLE is its older name (a deprecated alias).
  consoleEnabled: aliased(vars.bool('REGISTRY_CONSOLE_ENABLED', { default: true, description: 'Serve the web console at /console (docs/console.md)' }), 'REGISTRY_CONSOLE'),
  consoleDir: vars.string('REGISTRY_CONSOLE_DIR', {
    default: DEFAULT_CONSOLE_DIR,
    description: "Directory of the console's static files (index.html, style.css, console.js) served at /console; default: packages/console/dist/public, written by npm run build",
  }),
  consoleAuthUrl: vars.url('REGISTRY_CONSOLE_AUTH_URL', {
    default: 'https://localhost:8443',
    protocols: ['http', 'https'],
    description: 'The auth service as browsers reach it (the console signs staff in there; its origin must allow the console in CORS)',
  }),
  consoleSocialUrl: vars.url('REGISTRY_CONSOLE_SOCIAL_URL', {
    default: 'https://localhost:9443',
    protocols: ['http', 'https'],
    description: 'The social service as browsers reach it (the console reads the report queue there)',
  }),
  consoleIdleMinutes: vars.int('REGISTRY_CONSOLE_IDLE_MINUTES', {
    default: 15,
    min: 1,
    max: 24 * 60,
    description: 'The console signs out after this many minutes without a click or key press',
  }),
};

export type RegistryConfig = ReturnType<typeof readRegistryConfig>;

/** Reads and validates the registry's variables; throws ConfigError naming each bad one. */
export function readRegistryConfig(env: Env = process.env) {
  const raw = readConfig(registryVars, env);
  const problems: string[] = [];
  // Developer passkeys (decision 0028): named, or the public URL's host and origin (where the console is served).
  const webauthn = relyingPartyOf(
    { rpId: raw.webauthnRpId, rpName: raw.webauthnRpName, origins: raw.webauthnOrigins, baseUrl: raw.publicUrl },
    { rpId: 'REGISTRY_WEBAUTHN_RP_ID', origins: 'REGISTRY_WEBAUTHN_ORIGINS' },
    problems,
  );
  if (problems.length) throw new ConfigError(problems);
  const config: typeof raw & { authCa?: string; webauthn: RelyingParty } = { ...raw, webauthn };
  if (config.authCaFile) {
    try {
      config.authCa = readFileSync(config.authCaFile, 'utf8');
    } catch (err) {
      throw new ConfigError([`REGISTRY_AUTH_CA_FILE: cannot read ${config.authCaFile}: ${(err as Error).message}`]);
    }
  }
  return config;
}

export { ConfigError };
