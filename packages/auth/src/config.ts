/**
 * Auth service configuration: every variable, its default and its bounds.
 * A value out of bounds (e.g. an access-token lifetime outside 5–15 minutes)
 * is a ConfigError and the service does not start.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { platformProviderVars } from './providers/index.js';
import { readConfig, relyingPartyOf, aliased, commonVars, metricsVars, vars, ConfigError, AUTH_SERVICE_NAME as RESERVED_CALLER, type Env, type Argon2Params, type RelyingParty } from '@platform/kit';

export const authVars = {
  ...commonVars,
  ...metricsVars('AUTH'),
  port: vars.int('AUTH_PORT', { default: 8443, min: 0, max: 65535, description: 'HTTPS port' }),
  // File paths end in _FILE in every service; AUTH_TLS_CERT and AUTH_TLS_KEY are their older names (deprecated aliases).
  tlsCertFile: aliased(
    vars.optionalString('AUTH_TLS_CERT_FILE', 'PEM certificate file; one issued by the local CA under DATA_DIR/auth/tls when unset'),
    'AUTH_TLS_CERT',
  ),
  tlsKeyFile: aliased(vars.optionalString('AUTH_TLS_KEY_FILE', 'PEM private key file of AUTH_TLS_CERT_FILE'), 'AUTH_TLS_KEY'),
  trustProxy: vars.string('AUTH_TRUST_PROXY', {
    default: 'false',
    description: 'Fastify trustProxy: false, true, a hop count or a comma-separated list of proxy addresses/CIDRs',
  }),
  masterKey: vars.key32('AUTH_MASTER_KEY', { description: '32 bytes (hex/base64) encrypting signing keys at rest' }),
  issuer: vars.string('AUTH_ISSUER', {
    default: 'https://localhost:8443',
    description: 'iss of every access token (verifiers expect it: social reads SOCIAL_AUTH_ISSUER), and the base of the URLs auth prints and sends unless AUTH_PUBLIC_URL is set; npm start sets it to https://localhost:<AUTH_PORT>',
  }),
  audience: vars.string('AUTH_AUDIENCE', { default: 'game-platform', description: 'aud of every access token' }),
  tokenFormat: vars.oneOf('AUTH_TOKEN_FORMAT', ['paseto', 'jwt'] as const, { default: 'paseto' }),
  accessTtlSeconds: vars.int('AUTH_ACCESS_TOKEN_TTL_SECONDS', { default: 600, min: 300, max: 900 }),
  refreshTtlDays: vars.int('AUTH_REFRESH_TTL_DAYS', { default: 30, min: 1, max: 365 }),
  sessionMaxDays: vars.int('AUTH_SESSION_MAX_DAYS', { default: 90, min: 1, max: 3650 }),
  nodeId: vars.string('AUTH_NODE_ID', { default: `${hostname()}-${process.pid}` }),
  defaultRegion: vars.string('AUTH_DEFAULT_REGION', { default: 'global', description: 'region claim of accounts without home_region' }),
  keyPropagationSeconds: vars.int('AUTH_KEY_PROPAGATION_SECONDS', { default: 900, min: 300, description: 'wait between publishing and signing with a new key (≥ JWKS max-age 300 s)' }),
  keyRefreshSeconds: vars.int('AUTH_KEY_REFRESH_SECONDS', { default: 30, min: 1, description: 'how often each node reloads keys and advances rotations' }),
  lockoutThreshold: vars.int('AUTH_LOCKOUT_THRESHOLD', { default: 5, min: 1, max: 1000 }),
  lockoutBaseSeconds: vars.int('AUTH_LOCKOUT_BASE_SECONDS', { default: 30, min: 1 }),
  lockoutMaxSeconds: vars.int('AUTH_LOCKOUT_MAX_SECONDS', { default: 3600, min: 1 }),
  passwordMemoryKib: vars.int('AUTH_PASSWORD_MEMORY_KIB', { default: 19456, min: 1024, description: 'Argon2id m (OWASP: 19456)' }),
  passwordTimeCost: vars.int('AUTH_PASSWORD_TIME_COST', { default: 2, min: 1 }),
  passwordParallelism: vars.int('AUTH_PASSWORD_PARALLELISM', { default: 1, min: 1, max: 16 }),
  guestSecretMemoryKib: vars.int('AUTH_GUEST_SECRET_MEMORY_KIB', {
    default: 256,
    min: 8,
    description: 'Argon2id m for guest secrets (256 random bits each: light parameters suffice, docs/auth.md)',
  }),
  guestSecretTimeCost: vars.int('AUTH_GUEST_SECRET_TIME_COST', { default: 1, min: 1, description: 'Argon2id t for guest secrets' }),
  deletionGraceHours: vars.int('AUTH_DELETION_GRACE_HOURS', { default: 720, min: 0 }),
  guestIdleDays: vars.int('AUTH_GUEST_IDLE_DAYS', { default: 180, min: 1, description: 'guests without sign-in or refresh this long are pruned' }),
  // Guest abuse score (docs/auth.md, "Guest abuse score"): never shown to the player, never blocks an upgrade.
  guestScoreHalfLifeHours: vars.int('AUTH_GUEST_SCORE_HALF_LIFE_HOURS', { default: 168, min: 1, max: 87_600, description: 'Every signal of the guest abuse score halves in this time' }),
  guestScoreSlow: vars.int('AUTH_GUEST_SCORE_SLOW', {
    default: 20,
    min: 1,
    description: 'Guest abuse score of a device or network from which guest creation is rate-limited harder (AUTH_RATE_GUEST_SCORED)',
  }),
  guestScoreRefuse: vars.int('AUTH_GUEST_SCORE_REFUSE', {
    default: 50,
    min: 1,
    description: 'Guest abuse score from which guest creation is refused (403 guest_creation_refused), and a guest account\'s score from which its sensitive actions are',
  }),
  rateGuestScored: vars.int('AUTH_RATE_GUEST_SCORED', { default: 1, min: 1, description: '/guest per window from a device or network over AUTH_GUEST_SCORE_SLOW' }),
  purgeIntervalSeconds: vars.int('AUTH_PURGE_INTERVAL_SECONDS', { default: 3600, min: 1 }),
  rateWindowSeconds: vars.int('AUTH_RATE_WINDOW_SECONDS', { default: 60, min: 1 }),
  rateGeneralPerIp: vars.int('AUTH_RATE_GENERAL_PER_IP', { default: 600, min: 1 }),
  rateGeneralPerGame: vars.int('AUTH_RATE_GENERAL_PER_GAME', {
    default: 6000,
    min: 1,
    description: 'Requests per window an internal caller makes for the players of one game (X-Platform-Game-Id), whatever addresses it names',
  }),
  rateLoginPerIpEmail: vars.int('AUTH_RATE_LOGIN_PER_IP_EMAIL', { default: 10, min: 1 }),
  rateLoginPerIp: vars.int('AUTH_RATE_LOGIN_PER_IP', { default: 100, min: 1 }),
  rateGuestPerDevice: vars.int('AUTH_RATE_GUEST_PER_DEVICE', { default: 5, min: 1 }),
  rateGuestPerIp: vars.int('AUTH_RATE_GUEST_PER_IP', { default: 30, min: 1 }),
  ratePlatformPerIpProvider: vars.int('AUTH_RATE_PLATFORM_PER_IP_PROVIDER', { default: 20, min: 1 }),
  rateRefreshPerIp: vars.int('AUTH_RATE_REFRESH_PER_IP', { default: 120, min: 1 }),
  schema: vars.string('AUTH_DB_SCHEMA', { default: 'auth', description: 'PostgreSQL schema owned by the auth service' }),
  internalKeys: vars.list('AUTH_INTERNAL_KEYS', {
    default: [],
    description: 'Comma-separated name:secret pairs, one per calling service (registry:…); sent as X-Internal-Key',
  }),
  internalMtlsPort: vars.int('AUTH_INTERNAL_MTLS_PORT', {
    default: 0,
    min: 0,
    max: 65535,
    description: 'A second TLS 1.3 listener requiring client certificates (mutual TLS) for internal callers; 0: none',
  }),
  internalMtlsCaFile: vars.optionalString('AUTH_INTERNAL_MTLS_CA_FILE', 'PEM of the CA that issues the internal callers\' client certificates'),
  internalMtlsCallers: vars.list('AUTH_INTERNAL_MTLS_CALLERS', {
    default: [],
    description: 'Client-certificate common names accepted as internal callers on the mutual-TLS listener (matchmaking,…)',
  }),
  outboxTargets: vars.list('AUTH_OUTBOX_TARGETS', {
    default: [],
    description: 'Comma-separated URLs each notice (account.deleted, key_rotation) is POSTed to, e.g. https://social:9443/v1/internal/auth-events',
  }),
  outboxCaFile: vars.optionalString('AUTH_OUTBOX_CA_FILE', 'PEM trusted for the outbox targets (e.g. the social service self-signed certificate)'),
  outboxPollMs: vars.int('AUTH_OUTBOX_POLL_MS', { default: 1000, min: 50, max: 60_000, description: 'How often each node looks for due notices' }),
  outboxMaxBackoffSeconds: vars.int('AUTH_OUTBOX_MAX_BACKOFF_SECONDS', { default: 300, min: 1, max: 86_400, description: 'Cap of the exponential retry delay' }),
  revocationWaitMs: vars.int('AUTH_OUTBOX_REVOCATION_WAIT_MS', {
    default: 2000,
    min: 0,
    max: 30_000,
    description: 'How long logout, deletion and status changes wait for the revocation notice to be acknowledged by the outbox targets before answering (0: do not wait)',
  }),
  secondFactorRoles: vars.list('AUTH_SECOND_FACTOR_ROLES', {
    default: [],
    description: 'Roles (moderator, admin) a token carries only when the account has an authenticator on (docs/auth.md, "Second factor (TOTP)"); without one, the account signs in as a player and can enrol',
  }),
  recentSignInSeconds: vars.int('AUTH_RECENT_SIGN_IN_SECONDS', {
    default: 900,
    min: 60,
    max: 86_400,
    description: 'How recent the session\'s sign-in must be to add a passkey or an authenticator or remove a passkey (docs/auth.md, "Recent sign-in"); older sessions sign in again first',
  }),
  // Passkeys (docs/auth.md, "Passkeys"): the relying party the browser binds each credential to.
  webauthnRpId: vars.optionalString('AUTH_WEBAUTHN_RP_ID', 'The WebAuthn relying-party id passkeys are bound to: the site\'s registrable domain (e.g. example.com), never an IP address; default the host of AUTH_PUBLIC_URL (or AUTH_ISSUER)'),
  webauthnOrigins: vars.list('AUTH_WEBAUTHN_ORIGINS', {
    default: [],
    description: 'Exact origins (scheme://host[:port]) whose pages may register and use passkeys (the game\'s web page, the device page); default the origin of AUTH_PUBLIC_URL (or AUTH_ISSUER)',
  }),
  webauthnRpName: vars.string('AUTH_WEBAUTHN_RP_NAME', { default: 'Game Platform', description: 'The name the browser shows when a passkey is made' }),
  sanctionFeatures: vars.list('AUTH_SANCTION_FEATURES', {
    default: [],
    description: 'Comma-separated feature names a sanction may restrict besides ban and chat (e.g. ranked,trading): game servers enforce them (docs/auth.md, "Sanctions")',
  }),
  sanctionSweepSeconds: vars.int('AUTH_SANCTION_SWEEP_SECONDS', {
    default: 5,
    min: 1,
    max: 3600,
    description: 'How often each node ends expired sanctions (a ban\'s account becomes active again) and announces it',
  }),
  // Email delivery, password reset and email verification (docs/auth.md, "Email flows").
  smtpUrl: vars.url('AUTH_SMTP_URL', {
    protocols: ['smtp', 'smtps'],
    description: 'SMTP server mail is sent through (smtp://user:pass@host:587, smtps://…:465); unset: mail is written to AUTH_MAILBOX_DIR instead of sent',
  }),
  mailboxDir: vars.optionalString('AUTH_MAILBOX_DIR', 'Directory mail is written to (one .eml file per message) when AUTH_SMTP_URL is unset; default DATA_DIR/auth/mailbox'),
  mailFrom: vars.string('AUTH_MAIL_FROM', { default: 'Game Platform <no-reply@localhost>', description: 'From address of every mail' }),
  mailProductName: vars.string('AUTH_MAIL_PRODUCT_NAME', { default: 'Game Platform', description: 'The game or platform name the mails speak in' }),
  publicUrl: vars.url('AUTH_PUBLIC_URL', { protocols: ['http', 'https'], description: 'Base URL of the links in mails (the auth service as players reach it); default AUTH_ISSUER' }),
  passwordResetTtlMinutes: vars.int('AUTH_PASSWORD_RESET_TTL_MINUTES', { default: 30, min: 5, max: 1440, description: 'Lifetime of a password-reset token' }),
  emailVerifyTtlHours: vars.int('AUTH_EMAIL_VERIFY_TTL_HOURS', { default: 48, min: 1, max: 720, description: 'Lifetime of an email verification (or email change) token' }),
  emailVerification: vars.oneOf('AUTH_EMAIL_VERIFICATION', ['optional', 'required'] as const, {
    default: 'optional',
    description: 'optional: unverified email accounts sign in as usual; required: /register answers 202 without tokens and /login 403 email_not_verified until the email is verified',
  }),
  mailDeferMaxMs: vars.int('AUTH_MAIL_DEFER_MAX_MS', {
    default: 1500,
    min: 0,
    max: 60_000,
    description:
      'The address-dependent work of the requests that answer alike for every address (reset request, resend, email change, required-mode sign-up) starts after a random delay up to this, so the load it puts on the node does not line up with the request',
  }),
  rateEmailPerIp: vars.int('AUTH_RATE_EMAIL_PER_IP', { default: 20, min: 1, description: 'Email-flow requests (reset, verify, resend, email change) per IP per AUTH_RATE_WINDOW_SECONDS' }),
  rateEmailPerAddress: vars.int('AUTH_RATE_EMAIL_PER_ADDRESS', { default: 5, min: 1, description: 'Mails asked for one address (reset, resend, email change) per AUTH_RATE_EMAIL_WINDOW_SECONDS' }),
  rateEmailWindowSeconds: vars.int('AUTH_RATE_EMAIL_WINDOW_SECONDS', { default: 3600, min: 1, description: 'Window of AUTH_RATE_EMAIL_PER_ADDRESS' }),
  // External platforms (store_a, store_b, idp_a, idp_b): docs/auth-providers.md.
  ...platformProviderVars,
  // Device authorization grant (RFC 8628) and the OAuth endpoints: docs/auth.md, "Device authorization".
  ...deviceGrantVars(),
};

function deviceGrantVars() {
  return {
    deviceClientIds: vars.list('AUTH_DEVICE_CLIENT_IDS', {
      default: [],
      description: 'Client ids accepted by /oauth/device_authorization and /oauth/token (public clients); empty: any well-formed id, shown as unverified on the approval page',
    }),
    deviceCodeTtlSeconds: vars.int('AUTH_DEVICE_CODE_TTL_SECONDS', { default: 600, min: 60, max: 1800, description: 'Lifetime of a device code and its user code' }),
    devicePollIntervalSeconds: vars.int('AUTH_DEVICE_POLL_INTERVAL_SECONDS', { default: 5, min: 1, max: 60, description: 'Minimum seconds between two polls of one device code (slow_down adds 5)' }),
    // A URL setting ends in _URL in every service; AUTH_DEVICE_VERIFICATION_URI is its older name (a deprecated alias).
    deviceVerificationUri: aliased(
      vars.optionalString('AUTH_DEVICE_VERIFICATION_URL', 'The approval page URL shown to the player (the device flow\'s verification_uri); default AUTH_ISSUER + /device'),
      'AUTH_DEVICE_VERIFICATION_URI',
    ),
    deviceUserCodeMaxEntries: vars.int('AUTH_DEVICE_USER_CODE_MAX_ENTRIES', {
      default: 5,
      min: 2,
      max: 100,
      description: 'How many times one user code may be submitted on the approval page before the request is void',
    }),
    rateDeviceAuthorizePerIp: vars.int('AUTH_RATE_DEVICE_AUTHORIZE_PER_IP', { default: 10, min: 1, description: '/oauth/device_authorization per IP and window' }),
    rateDeviceVerifyPerIp: vars.int('AUTH_RATE_DEVICE_VERIFY_PER_IP', { default: 10, min: 1, description: 'user-code submissions per IP and window' }),
    rateDeviceVerifyPerAccount: vars.int('AUTH_RATE_DEVICE_VERIFY_PER_ACCOUNT', { default: 10, min: 1, description: 'user-code submissions per signed-in account and window' }),
  };
}

/** A public client's id (device grant, /oauth/token): what may be configured and what is accepted when none is. */
export const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

type Raw = ReturnType<typeof readConfig<typeof authVars>>;

export interface AuthConfig extends Omit<Raw, 'trustProxy' | 'internalKeys' | 'internalMtlsCallers' | 'smtpUrl' | 'publicUrl'> {
  /** AUTH_SMTP_URL; unset: mail goes to `mailbox`. */
  smtpUrl?: string;
  publicUrl?: string;
  trustProxy: boolean | number | string[];
  /** Calling service name → its secret (AUTH_INTERNAL_KEYS). */
  internalKeys: Map<string, string>;
  /** Client-certificate common names accepted on the mutual-TLS listener (AUTH_INTERNAL_MTLS_CALLERS). */
  internalMtlsCallers: Set<string>;
  /** PEM of AUTH_INTERNAL_MTLS_CA_FILE, read at start. */
  internalMtlsCa?: string;
  /** PEM of AUTH_OUTBOX_CA_FILE, read at start. */
  outboxCa?: string;
  passwordParams: Argon2Params;
  /** Argon2id parameters of guest secrets (AUTH_GUEST_SECRET_MEMORY_KIB / _TIME_COST, p = 1). */
  guestSecretParams: Argon2Params;
  /** Where the auth service keeps its embedded files. */
  authDir: string;
  /** AUTH_MAILBOX_DIR or DATA_DIR/auth/mailbox: where mail goes without AUTH_SMTP_URL. */
  mailbox: string;
  /** AUTH_PUBLIC_URL or AUTH_ISSUER, without a trailing slash: the base of links in mails. */
  linkBase: string;
  /** Passkeys: the relying party (AUTH_WEBAUTHN_RP_ID or the link base's host; '' when neither names a domain: passkeys off) and the accepted page origins. */
  webauthn: RelyingParty;
}

function parseTrustProxy(s: string): boolean | number | string[] {
  const v = s.trim().toLowerCase();
  if (v === 'false' || v === '0' || v === '') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return s.split(',').map((x) => x.trim()).filter(Boolean);
}

export function readAuthConfig(env: Env = process.env): AuthConfig {
  const raw = readConfig(authVars, env);
  const problems: string[] = [];
  if (raw.lockoutMaxSeconds < raw.lockoutBaseSeconds) problems.push('AUTH_LOCKOUT_MAX_SECONDS must be at least AUTH_LOCKOUT_BASE_SECONDS');
  const internalKeys = new Map<string, string>();
  for (const entry of raw.internalKeys) {
    const i = entry.indexOf(':');
    const name = entry.slice(0, i);
    const secret = entry.slice(i + 1);
    // The secret itself is never echoed in the message.
    if (i < 1 || !/^[a-z0-9_-]{1,64}$/i.test(name) || secret.length < 16) {
      problems.push(`AUTH_INTERNAL_KEYS: each entry must be name:secret with a secret of at least 16 characters (entry ${internalKeys.size + 1})`);
    } else if (name.toLowerCase() === RESERVED_CALLER) {
      problems.push(`AUTH_INTERNAL_KEYS: "${name}" is reserved for the auth service's own notices (service:auth); name the caller otherwise`);
    } else internalKeys.set(name, secret);
  }
  for (const t of raw.outboxTargets) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(t).protocol);
    } catch {
      /* reported below */
    }
    if (!ok) problems.push(`AUTH_OUTBOX_TARGETS: ${t} is not an http(s) URL`);
  }
  const internalMtlsCallers = new Set<string>();
  for (const name of raw.internalMtlsCallers) {
    if (!/^[a-z0-9_.-]{1,64}$/i.test(name)) problems.push(`AUTH_INTERNAL_MTLS_CALLERS: ${JSON.stringify(name)} is not a caller name`);
    else if (name.toLowerCase() === RESERVED_CALLER) problems.push(`AUTH_INTERNAL_MTLS_CALLERS: "${name}" is reserved for the auth service's own notices (service:auth)`);
    else internalMtlsCallers.add(name);
  }
  let internalMtlsCa: string | undefined;
  if (raw.internalMtlsPort) {
    if (!raw.internalMtlsCaFile) problems.push('AUTH_INTERNAL_MTLS_CA_FILE is required with AUTH_INTERNAL_MTLS_PORT');
    if (!internalMtlsCallers.size) problems.push('AUTH_INTERNAL_MTLS_CALLERS must name at least one caller with AUTH_INTERNAL_MTLS_PORT');
    if (raw.internalMtlsPort === raw.port) problems.push('AUTH_INTERNAL_MTLS_PORT must differ from AUTH_PORT');
  }
  if (raw.internalMtlsCaFile) {
    try {
      internalMtlsCa = readFileSync(raw.internalMtlsCaFile, 'utf8');
    } catch (err) {
      problems.push(`AUTH_INTERNAL_MTLS_CA_FILE: cannot read ${raw.internalMtlsCaFile}: ${(err as Error).message}`);
    }
  }
  let outboxCa: string | undefined;
  if (raw.outboxCaFile) {
    try {
      outboxCa = readFileSync(raw.outboxCaFile, 'utf8');
    } catch (err) {
      problems.push(`AUTH_OUTBOX_CA_FILE: cannot read ${raw.outboxCaFile}: ${(err as Error).message}`);
    }
  }
  for (const id of raw.deviceClientIds) if (!CLIENT_ID.test(id)) problems.push(`AUTH_DEVICE_CLIENT_IDS: ${JSON.stringify(id)} is not a client id (${CLIENT_ID.source})`);
  if (raw.deviceVerificationUri && !/^https?:\/\//.test(raw.deviceVerificationUri)) problems.push('AUTH_DEVICE_VERIFICATION_URL (or AUTH_DEVICE_VERIFICATION_URI) must be an http(s) URL');
  for (const r of raw.secondFactorRoles) if (r !== 'moderator' && r !== 'admin') problems.push(`AUTH_SECOND_FACTOR_ROLES: ${JSON.stringify(r)} is not moderator or admin`);
  for (const f of raw.sanctionFeatures) {
    if (!/^[a-z][a-z0-9_]{0,31}$/.test(f) || f === 'ban' || f === 'chat') problems.push(`AUTH_SANCTION_FEATURES: ${JSON.stringify(f)} is not a feature name (a-z, 0-9, _; up to 32; not ban or chat)`);
  }
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw.schema)) problems.push('AUTH_DB_SCHEMA must be a lower-case SQL identifier');
  if (raw.guestScoreSlow > raw.guestScoreRefuse) problems.push('AUTH_GUEST_SCORE_SLOW must not exceed AUTH_GUEST_SCORE_REFUSE');
  const linkBase = ((raw.publicUrl as string | undefined) ?? raw.issuer).replace(/\/+$/, '');
  const webauthn = webauthnOf(raw, linkBase, problems);
  if (problems.length) throw new ConfigError(problems);
  return {
    ...raw,
    internalKeys,
    internalMtlsCallers,
    internalMtlsCa,
    outboxCa,
    trustProxy: parseTrustProxy(raw.trustProxy),
    passwordParams: { memoryCost: raw.passwordMemoryKib, timeCost: raw.passwordTimeCost, parallelism: raw.passwordParallelism },
    guestSecretParams: { memoryCost: raw.guestSecretMemoryKib, timeCost: raw.guestSecretTimeCost, parallelism: 1 },
    authDir: path.join(raw.dataDir, 'auth'),
    mailbox: path.resolve(raw.mailboxDir ?? path.join(raw.dataDir, 'auth', 'mailbox')),
    linkBase,
    webauthn,
  };
}

/** The relying party of passkeys (kit webauthn.ts): named, or the public URL's host and origin (what the embedded run serves). */
function webauthnOf(raw: Raw, linkBase: string, problems: string[]): AuthConfig['webauthn'] {
  return relyingPartyOf(
    { rpId: raw.webauthnRpId, rpName: raw.webauthnRpName, origins: raw.webauthnOrigins, baseUrl: linkBase },
    { rpId: 'AUTH_WEBAUTHN_RP_ID', origins: 'AUTH_WEBAUTHN_ORIGINS' },
    problems,
  );
}
