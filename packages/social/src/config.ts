/**
 * Social configuration: environment variables named as in every service
 * (`SOCIAL_<SECTION>_<SETTING>`, e.g. SOCIAL_AUTH_JWKS_URL), over an optional
 * JSON file (SOCIAL_CONFIG_FILE, nested keys such as {"Social":{"Auth":{"JwksUrl":"…"}}}).
 * The spec's `__` spelling (SOCIAL__AUTH__JWKSURL, segments case-insensitive)
 * keeps working as an alias; the new name wins when both are set.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, aliased, commonVars, metricsVars, readConfig, vars, type Env } from '@platform/kit';

export const CROSS_GAME_VISIBILITY = ['isolated', 'summary', 'full'] as const;

const spec = {
  ...commonVars,
  metricsPort: aliased(metricsVars('SOCIAL').metricsPort, 'SOCIAL__METRICS__PORT'),
  metricsHost: aliased(metricsVars('SOCIAL').metricsHost, 'SOCIAL__METRICS__HOST'),
  jwksUrl: aliased(vars.url('SOCIAL_AUTH_JWKS_URL', { protocols: ['http', 'https'], description: 'Social:Auth:JwksUrl — the auth service key set' }), 'SOCIAL__AUTH__JWKSURL'),
  issuer: aliased(vars.string('SOCIAL_AUTH_ISSUER', { default: 'https://localhost:8443' }), 'SOCIAL__AUTH__ISSUER'),
  audience: aliased(vars.string('SOCIAL_AUTH_AUDIENCE', { default: 'game-platform' }), 'SOCIAL__AUTH__AUDIENCE'),
  authUrl: aliased(
    vars.optionalString('SOCIAL_AUTH_URL', 'Social:Auth:Url — the auth service base URL for moderation actions; default: the origin of SOCIAL_AUTH_JWKS_URL'),
    'SOCIAL__AUTH__URL',
  ),
  caFile: aliased(vars.optionalString('SOCIAL_AUTH_CA_FILE', 'PEM trusted for the JWKS fetch and the auth service calls'), 'SOCIAL__AUTH__CAFILE'),
  apiKey: aliased(vars.optionalString('SOCIAL_AUTH_API_KEY', 'Enables server-to-server API-key mode'), 'SOCIAL__AUTH__APIKEY'),
  authInternalKey: aliased(vars.optionalString(
    'SOCIAL_AUTH_INTERNAL_KEY',
    'Social:Auth:InternalKey — social\'s secret in the auth service\'s AUTH_INTERNAL_KEYS (sent as X-Internal-Key to ask whether an account is active)',
  ), 'SOCIAL__AUTH__INTERNALKEY'),
  highSecurity: aliased(vars.bool('SOCIAL_AUTH_HIGH_SECURITY', {
    default: false,
    description: 'Social:Auth:HighSecurity — every request and upgrade also reads the revoked sessions from the state store (docs/social.md, "Revocation")',
  }), 'SOCIAL__AUTH__HIGHSECURITY'),
  keyCooldownSeconds: aliased(vars.int('SOCIAL_AUTH_KEY_COOLDOWN_SECONDS', { default: 30, min: 0, max: 3600 }), 'SOCIAL__AUTH__KEYCOOLDOWNSECONDS'),
  registryUrl: aliased(vars.url('SOCIAL_REGISTRY_URL', { default: 'http://127.0.0.1:3004', protocols: ['http', 'https'] }), 'SOCIAL__REGISTRY__URL'),
  registryCacheSeconds: aliased(vars.int('SOCIAL_REGISTRY_CACHE_SECONDS', { default: 10, min: 0, max: 300 }), 'SOCIAL__REGISTRY__CACHESECONDS'),
  presenceTtlSeconds: aliased(vars.int('SOCIAL_PRESENCE_TTL_SECONDS', { default: 60, min: 1, max: 86_400 }), 'SOCIAL__PRESENCE__TTLSECONDS'),
  inviteTtlSeconds: aliased(vars.int('SOCIAL_INVITES_TTL_SECONDS', { default: 300, min: 10, max: 7 * 86_400 }), 'SOCIAL__INVITES__TTLSECONDS'),
  chatEnabled: aliased(vars.bool('SOCIAL_CHAT_ENABLED', { default: true }), 'SOCIAL__CHAT__ENABLED'),
  chatRetentionDays: aliased(vars.int('SOCIAL_CHAT_RETENTION_DAYS', { default: 30, min: 1, max: 3650 }), 'SOCIAL__CHAT__RETENTIONDAYS'),
  notificationsRetentionDays: aliased(vars.int('SOCIAL_NOTIFICATIONS_RETENTION_DAYS', { default: 90, min: 1, max: 3650, description: 'Social:Notifications:RetentionDays — how long a notification is kept' }), 'SOCIAL__NOTIFICATIONS__RETENTIONDAYS'),
  notificationsMaxPerUser: aliased(vars.int('SOCIAL_NOTIFICATIONS_MAX_PER_USER', { default: 500, min: 10, max: 100_000, description: 'Social:Notifications:MaxPerUser — the newest a user keeps; older ones are deleted' }), 'SOCIAL__NOTIFICATIONS__MAXPERUSER'),
  chatMaxLength: aliased(vars.int('SOCIAL_CHAT_MAX_LENGTH', { default: 2000, min: 1, max: 10_000 }), 'SOCIAL__CHAT__MAXLENGTH'),
  partyDefaultMaxSize: aliased(vars.int('SOCIAL_PARTIES_DEFAULT_MAX_SIZE', { default: 4, min: 2, max: 100 }), 'SOCIAL__PARTIES__DEFAULTMAXSIZE'),
  partyMaxSizeLimit: aliased(vars.int('SOCIAL_PARTIES_MAX_SIZE_LIMIT', { default: 16, min: 2, max: 100 }), 'SOCIAL__PARTIES__MAXSIZELIMIT'),
  chatPerMinute: aliased(vars.int('SOCIAL_LIMITS_CHAT_PER_MINUTE', { default: 60, min: 1, max: 100_000 }), 'SOCIAL__LIMITS__CHATPERMINUTE'),
  actionsPerMinute: aliased(vars.int('SOCIAL_LIMITS_ACTIONS_PER_MINUTE', { default: 30, min: 1, max: 100_000 }), 'SOCIAL__LIMITS__ACTIONSPERMINUTE'),
  searchesPerMinute: aliased(vars.int('SOCIAL_LIMITS_SEARCHES_PER_MINUTE', { default: 30, min: 1, max: 100_000, description: 'User searches per user and minute' }), 'SOCIAL__LIMITS__SEARCHESPERMINUTE'),
  reportMergeHours: aliased(vars.int('SOCIAL_REPORTS_MERGE_HOURS', {
    default: 24,
    min: 1,
    max: 720,
    description: 'Social:Reports:MergeHours — a reporter\'s repeated report about the same target within this time, while the first is open, is merged into it',
  }), 'SOCIAL__REPORTS__MERGEHOURS'),
  searchMinPrefix: aliased(vars.int('SOCIAL_SEARCH_MIN_PREFIX', { default: 2, min: 1, max: 32, description: 'Shortest name prefix a search accepts (an exact Name#1234 always)' }), 'SOCIAL__SEARCH__MINPREFIX'),
  tlsMode: aliased(vars.oneOf('SOCIAL_TLS_MODE', ['https', 'http'] as const, { default: 'https' }), 'SOCIAL__TLS__MODE'),
  tlsCertFile: aliased(vars.optionalString('SOCIAL_TLS_CERT_FILE'), 'SOCIAL__TLS__CERTFILE'),
  tlsKeyFile: aliased(vars.optionalString('SOCIAL_TLS_KEY_FILE'), 'SOCIAL__TLS__KEYFILE'),
  schema: aliased(vars.string('SOCIAL_DB_SCHEMA', { default: 'social', description: 'Social:Database:Schema — PostgreSQL schema owned by the social service' }), 'SOCIAL__DATABASE__SCHEMA'),
  port: aliased(vars.int('SOCIAL_PORT', { default: 9443, min: 0, max: 65535 }), 'SOCIAL__LISTEN__PORT'),
  // WebSocket channel (docs/social-realtime.md).
  presenceSweepMs: aliased(vars.int('SOCIAL_PRESENCE_SWEEP_MS', { default: 5000, min: 50, max: 600_000 }), 'SOCIAL__PRESENCE__SWEEPMILLISECONDS'),
  wsMaxFrameBytes: aliased(vars.int('SOCIAL_REALTIME_MAX_FRAME_BYTES', { default: 16_384, min: 256, max: 1_048_576 }), 'SOCIAL__REALTIME__MAXFRAMEBYTES'),
  wsFramesPerSecond: aliased(vars.int('SOCIAL_REALTIME_FRAMES_PER_SECOND', { default: 20, min: 1, max: 10_000 }), 'SOCIAL__REALTIME__FRAMESPERSECOND'),
  wsSendBufferBytes: aliased(vars.int('SOCIAL_REALTIME_SEND_BUFFER_BYTES', { default: 1_048_576, min: 1024, max: 268_435_456 }), 'SOCIAL__REALTIME__SENDBUFFERBYTES'),
  wsPingSeconds: aliased(vars.int('SOCIAL_REALTIME_PING_SECONDS', { default: 30, min: 1, max: 3600 }), 'SOCIAL__REALTIME__PINGSECONDS'),
  wsMaxSocketsPerUser: aliased(vars.int('SOCIAL_REALTIME_MAX_SOCKETS_PER_USER', { default: 10, min: 1, max: 10_000, description: 'Open sockets per user and node' }), 'SOCIAL__REALTIME__MAXSOCKETSPERUSER'),
  wsMaxSocketsPerAddress: aliased(vars.int('SOCIAL_REALTIME_MAX_SOCKETS_PER_ADDRESS', {
    default: 200,
    min: 1,
    max: 1_000_000,
    description: 'Open sockets per remote address and node (a NAT or a proxy shares one address)',
  }), 'SOCIAL__REALTIME__MAXSOCKETSPERADDRESS'),
  replayEntries: aliased(vars.int('SOCIAL_REALTIME_REPLAY_ENTRIES', {
    default: 1000,
    min: 0,
    max: 100_000,
    description: 'Social:Realtime:ReplayEntries — events kept per user and per party for a reconnecting socket (0: no replay log, no event ids)',
  }), 'SOCIAL__REALTIME__REPLAYENTRIES'),
  replaySeconds: aliased(vars.int('SOCIAL_REALTIME_REPLAY_SECONDS', {
    default: 600,
    min: 1,
    max: 86_400,
    description: 'Social:Realtime:ReplaySeconds — how long an event stays replayable',
  }), 'SOCIAL__REALTIME__REPLAYSECONDS'),
  relationsCacheMs: aliased(vars.int('SOCIAL_REALTIME_RELATIONS_CACHE_MS', {
    default: 5000,
    min: 100,
    max: 600_000,
    description: 'Social:Realtime:RelationsCacheMilliseconds — how stale a node may hold a chat author\'s mutes and blocks if an invalidation is lost',
  }), 'SOCIAL__REALTIME__RELATIONSCACHEMILLISECONDS'),
  presenceGraceMs: aliased(vars.int('SOCIAL_PRESENCE_GRACE_MS', {
    default: 5000,
    min: 0,
    max: 600_000,
    description: 'Social:Presence:GraceMilliseconds — how long a user whose last socket closed stays online (0: offline at once)',
  }), 'SOCIAL__PRESENCE__GRACEMILLISECONDS'),
  tokenGraceSeconds: aliased(vars.int('SOCIAL_REALTIME_TOKEN_GRACE_SECONDS', {
    default: 60,
    min: 0,
    max: 86_400,
    description: 'Social:Realtime:TokenGraceSeconds — how long past its access token\'s exp a socket stays open without re-authenticating (then close 4004)',
  }), 'SOCIAL__REALTIME__TOKENGRACESECONDS'),
};

export type SocialConfig = ReturnType<typeof readConfig<typeof spec>> & { ca?: string };

/** Flattens {"Social":{"Auth":{"JwksUrl":"x"}}} into SOCIAL__AUTH__JWKSURL=x. */
function flatten(obj: unknown, prefix: string, out: Env): void {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    if (prefix) out[prefix] = Array.isArray(obj) ? obj.join(',') : String(obj);
    return;
  }
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) flatten(v, prefix ? `${prefix}__${k.toUpperCase()}` : k.toUpperCase(), out);
}

/** The file's settings overlaid by the environment, with SOCIAL__ keys upper-cased. */
export function mergedEnv(env: Env): Env {
  const merged: Env = {};
  const file = env.SOCIAL_CONFIG_FILE;
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ConfigError([`SOCIAL_CONFIG_FILE: cannot read ${file}: ${(err as Error).message}`]);
    }
    flatten(parsed, '', merged);
  }
  for (const [k, v] of Object.entries(env)) {
    if (k.toUpperCase().startsWith('SOCIAL__')) merged[k.toUpperCase()] = v;
    else merged[k] = v;
  }
  return merged;
}

export function readSocialConfig(env: Env = process.env): SocialConfig {
  const merged = mergedEnv(env);
  const config = readConfig(spec, merged) as SocialConfig;
  const problems: string[] = [];
  if (!config.jwksUrl && !config.apiKey) problems.push('SOCIAL_AUTH_JWKS_URL (SOCIAL__AUTH__JWKSURL, Social:Auth:JwksUrl) is required unless SOCIAL_AUTH_API_KEY (Social:Auth:ApiKey) is set');
  if (config.apiKey !== undefined && config.apiKey.length < 16) problems.push('SOCIAL_AUTH_API_KEY (SOCIAL__AUTH__APIKEY, Social:Auth:ApiKey) must have at least 16 characters');
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(config.schema)) problems.push('SOCIAL_DB_SCHEMA (SOCIAL__DATABASE__SCHEMA, Social:Database:Schema) must be a lower-case SQL identifier');
  if (config.partyDefaultMaxSize > config.partyMaxSizeLimit) problems.push('SOCIAL_PARTIES_DEFAULT_MAX_SIZE (SOCIAL__PARTIES__DEFAULTMAXSIZE) must not exceed SOCIAL_PARTIES_MAX_SIZE_LIMIT (SOCIAL__PARTIES__MAXSIZELIMIT)');
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) problems.push('SOCIAL_TLS_CERT_FILE and SOCIAL_TLS_KEY_FILE (SOCIAL__TLS__CERTFILE, SOCIAL__TLS__KEYFILE) go together');
  if (config.authUrl !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(config.authUrl).protocol);
    } catch {
      /* reported below */
    }
    if (!ok) problems.push('SOCIAL_AUTH_URL (SOCIAL__AUTH__URL, Social:Auth:Url) must be an http(s) URL');
  }
  if (config.caFile) {
    try {
      config.ca = readFileSync(config.caFile, 'utf8');
    } catch (err) {
      problems.push(`SOCIAL_AUTH_CA_FILE (SOCIAL__AUTH__CAFILE, Social:Auth:CaFile): cannot read ${config.caFile}: ${(err as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}
