/**
 * Social configuration: an optional JSON file (SOCIAL_CONFIG_FILE, nested
 * keys such as {"Social":{"Auth":{"JwksUrl":"…"}}}) overlaid by environment
 * variables with the `__` convention (SOCIAL__AUTH__JWKSURL). Segments match
 * case-insensitively; the environment wins. Validated once at start.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, commonVars, readConfig, vars, type Env } from '@platform/kit';

export const CROSS_GAME_VISIBILITY = ['isolated', 'summary', 'full'] as const;

const spec = {
  ...commonVars,
  jwksUrl: vars.url('SOCIAL__AUTH__JWKSURL', { protocols: ['http', 'https'], description: 'Social:Auth:JwksUrl — the auth service key set' }),
  issuer: vars.string('SOCIAL__AUTH__ISSUER', { default: 'https://localhost:8443' }),
  audience: vars.string('SOCIAL__AUTH__AUDIENCE', { default: 'game-platform' }),
  caFile: vars.optionalString('SOCIAL__AUTH__CAFILE', 'PEM trusted for the JWKS fetch'),
  apiKey: vars.optionalString('SOCIAL__AUTH__APIKEY', 'Enables server-to-server API-key mode'),
  keyCooldownSeconds: vars.int('SOCIAL__AUTH__KEYCOOLDOWNSECONDS', { default: 30, min: 0, max: 3600 }),
  registryUrl: vars.url('SOCIAL__REGISTRY__URL', { default: 'http://127.0.0.1:3004', protocols: ['http', 'https'] }),
  registryCacheSeconds: vars.int('SOCIAL__REGISTRY__CACHESECONDS', { default: 10, min: 0, max: 300 }),
  presenceTtlSeconds: vars.int('SOCIAL__PRESENCE__TTLSECONDS', { default: 60, min: 1, max: 86_400 }),
  inviteTtlSeconds: vars.int('SOCIAL__INVITES__TTLSECONDS', { default: 300, min: 10, max: 7 * 86_400 }),
  chatEnabled: vars.bool('SOCIAL__CHAT__ENABLED', { default: true }),
  chatRetentionDays: vars.int('SOCIAL__CHAT__RETENTIONDAYS', { default: 30, min: 1, max: 3650 }),
  chatMaxLength: vars.int('SOCIAL__CHAT__MAXLENGTH', { default: 2000, min: 1, max: 10_000 }),
  partyDefaultMaxSize: vars.int('SOCIAL__PARTIES__DEFAULTMAXSIZE', { default: 4, min: 2, max: 100 }),
  partyMaxSizeLimit: vars.int('SOCIAL__PARTIES__MAXSIZELIMIT', { default: 16, min: 2, max: 100 }),
  chatPerMinute: vars.int('SOCIAL__LIMITS__CHATPERMINUTE', { default: 60, min: 1, max: 100_000 }),
  actionsPerMinute: vars.int('SOCIAL__LIMITS__ACTIONSPERMINUTE', { default: 30, min: 1, max: 100_000 }),
  searchesPerMinute: vars.int('SOCIAL__LIMITS__SEARCHESPERMINUTE', { default: 30, min: 1, max: 100_000, description: 'User searches per user and minute' }),
  searchMinPrefix: vars.int('SOCIAL__SEARCH__MINPREFIX', { default: 2, min: 1, max: 32, description: 'Shortest name prefix a search accepts (an exact Name#1234 always)' }),
  tlsMode: vars.oneOf('SOCIAL__TLS__MODE', ['https', 'http'] as const, { default: 'https' }),
  tlsCertFile: vars.optionalString('SOCIAL__TLS__CERTFILE'),
  tlsKeyFile: vars.optionalString('SOCIAL__TLS__KEYFILE'),
  schema: vars.string('SOCIAL__DATABASE__SCHEMA', { default: 'social', description: 'Social:Database:Schema — PostgreSQL schema owned by the social service' }),
  port: vars.int('SOCIAL__LISTEN__PORT', { default: 9443, min: 0, max: 65535 }),
  // WebSocket channel (docs/social-realtime.md).
  presenceSweepMs: vars.int('SOCIAL__PRESENCE__SWEEPMILLISECONDS', { default: 5000, min: 50, max: 600_000 }),
  wsMaxFrameBytes: vars.int('SOCIAL__REALTIME__MAXFRAMEBYTES', { default: 16_384, min: 256, max: 1_048_576 }),
  wsFramesPerSecond: vars.int('SOCIAL__REALTIME__FRAMESPERSECOND', { default: 20, min: 1, max: 10_000 }),
  wsSendBufferBytes: vars.int('SOCIAL__REALTIME__SENDBUFFERBYTES', { default: 1_048_576, min: 1024, max: 268_435_456 }),
  wsPingSeconds: vars.int('SOCIAL__REALTIME__PINGSECONDS', { default: 30, min: 1, max: 3600 }),
  wsMaxSocketsPerUser: vars.int('SOCIAL__REALTIME__MAXSOCKETSPERUSER', { default: 10, min: 1, max: 10_000, description: 'Open sockets per user and node' }),
  wsMaxSocketsPerAddress: vars.int('SOCIAL__REALTIME__MAXSOCKETSPERADDRESS', {
    default: 200,
    min: 1,
    max: 1_000_000,
    description: 'Open sockets per remote address and node (a NAT or a proxy shares one address)',
  }),
  relationsCacheMs: vars.int('SOCIAL__REALTIME__RELATIONSCACHEMILLISECONDS', {
    default: 5000,
    min: 100,
    max: 600_000,
    description: 'Social:Realtime:RelationsCacheMilliseconds — how stale a node may hold a chat author\'s mutes and blocks if an invalidation is lost',
  }),
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
  if (!config.jwksUrl && !config.apiKey) problems.push('SOCIAL__AUTH__JWKSURL (Social:Auth:JwksUrl) is required unless Social:Auth:ApiKey is set');
  if (config.apiKey !== undefined && config.apiKey.length < 16) problems.push('SOCIAL__AUTH__APIKEY (Social:Auth:ApiKey) must have at least 16 characters');
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(config.schema)) problems.push('SOCIAL__DATABASE__SCHEMA (Social:Database:Schema) must be a lower-case SQL identifier');
  if (config.partyDefaultMaxSize > config.partyMaxSizeLimit) problems.push('SOCIAL__PARTIES__DEFAULTMAXSIZE must not exceed SOCIAL__PARTIES__MAXSIZELIMIT');
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) problems.push('SOCIAL__TLS__CERTFILE and SOCIAL__TLS__KEYFILE go together');
  if (config.caFile) {
    try {
      config.ca = readFileSync(config.caFile, 'utf8');
    } catch (err) {
      problems.push(`SOCIAL__AUTH__CAFILE (Social:Auth:CaFile): cannot read ${config.caFile}: ${(err as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}
