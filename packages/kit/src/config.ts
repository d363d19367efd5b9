/**
 * Configuration from environment variables, validated once at start. Every
 * variable is declared with its parser and default; a bad or missing value
 * raises ConfigError naming the variable, and the process stops.
 */
import { readFileSync } from 'node:fs';
import { guestFeaturesOf, parseGuestFeatures, type GuestFeature } from './guest-features.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export interface Variable<T> {
  readonly name: string;
  readonly description: string;
  read(env: Env): T;
}

type Parser<T> = (raw: string) => T;

function variable<T>(name: string, parse: Parser<T>, opts: { default?: T; description?: string; required?: boolean }): Variable<T> {
  return {
    name,
    description: opts.description ?? '',
    read(env) {
      const raw = env[name];
      if (raw === undefined || raw === '') {
        if (opts.default !== undefined) return opts.default;
        if (opts.required) throw new Error(`${name} is required`);
        return undefined as T;
      }
      try {
        return parse(raw);
      } catch (err) {
        throw new Error(`${name}: ${(err as Error).message} (got ${JSON.stringify(raw.length > 80 ? raw.slice(0, 80) + '…' : raw)})`);
      }
    },
  };
}

export const vars = {
  string(name: string, opts: { default?: string; required?: boolean; description?: string } = {}): Variable<string> {
    return variable(name, (s) => s, opts);
  },
  optionalString(name: string, description = ''): Variable<string | undefined> {
    return variable<string | undefined>(name, (s) => s, { description });
  },
  int(name: string, opts: { default?: number; min?: number; max?: number; required?: boolean; description?: string } = {}): Variable<number> {
    return variable(
      name,
      (s) => {
        if (!/^-?\d+$/.test(s.trim())) throw new Error('must be an integer');
        const n = Number(s);
        if (opts.min !== undefined && n < opts.min) throw new Error(`must be at least ${opts.min}`);
        if (opts.max !== undefined && n > opts.max) throw new Error(`must be at most ${opts.max}`);
        return n;
      },
      opts,
    );
  },
  bool(name: string, opts: { default?: boolean; description?: string } = {}): Variable<boolean> {
    return variable(
      name,
      (s) => {
        const v = s.trim().toLowerCase();
        if (['1', 'true', 'yes', 'on'].includes(v)) return true;
        if (['0', 'false', 'no', 'off'].includes(v)) return false;
        throw new Error('must be true or false');
      },
      opts,
    );
  },
  url(name: string, opts: { default?: string; required?: boolean; protocols?: string[]; description?: string } = {}): Variable<string> {
    return variable(
      name,
      (s) => {
        let u: URL;
        try {
          u = new URL(s);
        } catch {
          throw new Error('must be a URL');
        }
        if (opts.protocols && !opts.protocols.includes(u.protocol.replace(/:$/, ''))) {
          throw new Error(`must use one of ${opts.protocols.join(', ')}`);
        }
        return s;
      },
      opts,
    );
  },
  oneOf<T extends string>(name: string, values: readonly T[], opts: { default?: T; description?: string } = {}): Variable<T> {
    return variable(
      name,
      (s) => {
        if (!values.includes(s as T)) throw new Error(`must be one of ${values.join(', ')}`);
        return s as T;
      },
      opts,
    );
  },
  list(name: string, opts: { default?: string[]; description?: string } = {}): Variable<string[]> {
    return variable(
      name,
      (s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      opts,
    );
  },
  /**
   * A comma list of guest features (kit guest-features.ts) a service refuses to guests; `none` is the empty list
   * (an empty value reads as unset, so the default). Only the features of `service` are accepted.
   */
  guestFeatures(name: string, service: 'social' | 'auth', opts: { default: GuestFeature[]; description?: string }): Variable<GuestFeature[]> {
    return variable(
      name,
      (s) => {
        if (s.trim().toLowerCase() === 'none') return [];
        const r = parseGuestFeatures(s);
        const allowed = guestFeaturesOf(service);
        const bad = 'unknown' in r ? r.unknown : r.features.filter((f) => !allowed.includes(f));
        if ('unknown' in r || bad.length) throw new Error(`not a ${service} guest feature: ${bad.join(', ')} (features: ${allowed.join(', ')}, or none)`);
        return r.features;
      },
      opts,
    );
  },
  /** 32 bytes given as base64 or base64url (44/43 chars) or hex (64 chars). */
  key32(name: string, opts: { description?: string } = {}): Variable<Buffer | undefined> {
    return variable<Buffer | undefined>(name, parseKey32, opts);
  },
};

export function parseKey32(s: string): Buffer {
  const t = s.trim();
  let buf: Buffer;
  if (/^[0-9a-fA-F]{64}$/.test(t)) buf = Buffer.from(t, 'hex');
  else buf = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (buf.length !== 32) throw new Error('must be 32 bytes, as hex or base64');
  return buf;
}

/**
 * Setting names, the same shape in every service (README.md, "Setting names"): `<SERVICE>_<WHAT>`, a file path
 * ending in `_FILE`, a directory in `_DIR`, a URL in `_URL`, a duration in its unit (`_MS`, `_SECONDS`, …), an
 * on/off switch in `_ENABLED`, a rate limit `<SERVICE>_RATE_…`, a port `<SERVICE>_PORT` (`_<WHAT>_PORT`). A
 * setting renamed to fit keeps its older names as deprecated aliases; a service whose specification names its
 * settings `Service:Section:Key` also reads the spec's spelling `SERVICE__SECTION__KEY` (specEnvName). In both
 * cases the current name wins when both are set.
 */
export type Setting<T> = Variable<T> & { readonly aliases: readonly string[] };

/**
 * The variable read under its name, or under an older name when only that one is set (names kept working
 * after a rename; the current name wins when both are set). Errors name the spelling that was read.
 */
export function aliased<T>(v: Variable<T>, ...aliases: string[]): Setting<T> {
  const before = (v as Partial<Setting<T>>).aliases ?? [];
  const all = [...before, ...aliases];
  return {
    name: v.name,
    description: v.description,
    aliases: all,
    read(env) {
      const given = env[v.name];
      if (given !== undefined && given !== '') return v.read(env);
      const alias = all.find((a) => env[a] !== undefined && env[a] !== '');
      if (!alias) return v.read(env);
      try {
        return v.read({ ...env, [v.name]: env[alias] });
      } catch (err) {
        throw new Error((err as Error).message.replace(v.name, `${alias} (now ${v.name})`));
      }
    },
  };
}

/** A specification's setting path as an environment variable: `Social:Auth:JwksUrl` → `SOCIAL__AUTH__JWKSURL`. */
export function specEnvName(settingPath: string): string {
  return settingPath
    .split(':')
    .map((segment) => segment.trim().toUpperCase())
    .join('__');
}

/**
 * `v`, also read under its older names and then under the spec's spelling of `settingPath` (`Social:Chat:Enabled`
 * → `SOCIAL__CHAT__ENABLED`). Read the environment through withSpecNames, so that spelling is matched whatever
 * its case and a JSON configuration file can give it too.
 */
export function specSetting<T>(settingPath: string, v: Variable<T>, ...olderNames: string[]): Setting<T> & { readonly specPath: string } {
  return { ...aliased(v, ...olderNames, specEnvName(settingPath)), specPath: settingPath };
}

/** Flattens {"Social":{"Auth":{"JwksUrl":"x"}}} into SOCIAL__AUTH__JWKSURL=x (arrays joined by commas). */
function flattenSpecNames(obj: unknown, prefix: string, out: Env): void {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    if (prefix) out[prefix] = Array.isArray(obj) ? obj.join(',') : String(obj);
    return;
  }
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) flattenSpecNames(v, prefix ? `${prefix}__${k.toUpperCase()}` : k.toUpperCase(), out);
}

/**
 * The environment of a service whose spec names settings `Service:Section:Key` (prefix `SERVICE`): the JSON file
 * named by `fileVar` (when set), its nested keys flattened into `SERVICE__SECTION__KEY` names, overlaid by the
 * environment, in which a `SERVICE__…` name is upper-cased (the spec's segments are case-insensitive).
 */
export function withSpecNames(env: Env, opts: { prefix: string; fileVar?: string }): Env {
  const merged: Env = {};
  const file = opts.fileVar ? env[opts.fileVar] : undefined;
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ConfigError([`${opts.fileVar}: cannot read ${file}: ${(err as Error).message}`]);
    }
    flattenSpecNames(parsed, '', merged);
  }
  const spec = `${opts.prefix.toUpperCase()}__`;
  for (const [k, v] of Object.entries(env)) {
    if (k.toUpperCase().startsWith(spec)) merged[k.toUpperCase()] = v;
    else merged[k] = v;
  }
  return merged;
}

/**
 * One warning per deprecated name the environment gives instead of the current one (`AUTH_TLS_CERT is deprecated:
 * use AUTH_TLS_CERT_FILE`), for a service to log at start. The spec's `SERVICE__SECTION__KEY` spellings are
 * documented aliases, not deprecated: not listed.
 */
export function deprecatedNamesInUse(spec: Record<string, Pick<Variable<unknown>, 'name'> & { aliases?: readonly string[] }>, env: Env): string[] {
  const warnings: string[] = [];
  for (const v of Object.values(spec)) {
    if (settingValue(env, { name: v.name }) !== undefined) continue;
    const old = (v.aliases ?? []).find((a) => !a.includes('__') && settingValue(env, { name: a }) !== undefined);
    if (old) warnings.push(`${old} is deprecated: use ${v.name} (README.md, "Setting names")`);
  }
  return warnings;
}

/**
 * The raw text a setting is read from: its name, else the first of its aliases that is set; undefined when none
 * is (for code that passes a setting on, e.g. `npm start`'s wiring, and honours the old names as the service does).
 */
export function settingValue(env: Env, v: Pick<Variable<unknown>, 'name'> & { aliases?: readonly string[] }): string | undefined {
  for (const name of [v.name, ...(v.aliases ?? [])]) {
    const given = env[name];
    if (given !== undefined && given !== '') return given;
  }
  return undefined;
}

/** Reads every variable of a spec; collects all problems before failing. */
export function readConfig<S extends Record<string, Variable<unknown>>>(
  spec: S,
  env: Env = process.env,
): { [K in keyof S]: S[K] extends Variable<infer T> ? T : never } {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, v] of Object.entries(spec)) {
    try {
      out[key] = v.read(env);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return out as never;
}

/**
 * How long a connection may hold a listener without making progress (all in milliseconds). Without them a
 * client sending half a request line, half a WebSocket upgrade, or nothing at all after the TLS handshake
 * keeps its connection (and a file descriptor) forever. Defaults in README.md, "Configuration shared by
 * every service"; createService applies them.
 */
export interface HttpTimeouts {
  /** Request line and headers complete (a partial WebSocket upgrade too). */
  httpHeadersTimeoutMs: number;
  /** Whole request, body included, received. */
  httpRequestTimeoutMs: number;
  /** An idle keep-alive connection between two requests. */
  httpKeepAliveTimeoutMs: number;
  /** No byte in either direction on an HTTP connection (a silent connection after the TLS handshake). */
  httpIdleTimeoutMs: number;
  /** TLS handshake complete (HTTPS listeners). */
  tlsHandshakeTimeoutMs: number;
  /** On close, how long requests in flight may still run before every remaining connection is cut. */
  httpShutdownGraceMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 60_000,
  // Longer than the 60 s idle timeout of common load balancers, so they close first and never reuse a closed connection.
  httpKeepAliveTimeoutMs: 65_000,
  httpIdleTimeoutMs: 60_000,
  tlsHandshakeTimeoutMs: 10_000,
  // Under the 30 s a container orchestrator usually waits after SIGTERM before it kills the process.
  httpShutdownGraceMs: 10_000,
};

/** The given timeouts (the keys of HttpTimeouts picked out of a service's config) over the defaults, checked. */
export function resolveHttpTimeouts(given: Partial<HttpTimeouts> = {}): HttpTimeouts {
  const t = { ...DEFAULT_HTTP_TIMEOUTS };
  for (const k of Object.keys(DEFAULT_HTTP_TIMEOUTS) as (keyof HttpTimeouts)[]) if (typeof given[k] === 'number') t[k] = given[k];
  if (t.httpHeadersTimeoutMs > t.httpRequestTimeoutMs) {
    throw new ConfigError([`HTTP_HEADERS_TIMEOUT_MS (${t.httpHeadersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${t.httpRequestTimeoutMs})`]);
  }
  return t;
}

/**
 * Options of node's http/https createServer for these timeouts. Node checks the headers and request
 * timeouts every connectionsCheckingInterval (30 s by default): here at least twice per headers timeout,
 * so a stalled connection goes within 1.5 × its limit. The keep-alive and idle timeouts are set on the
 * server once made (`server.keepAliveTimeout`, `server.setTimeout`).
 */
export function nodeServerTimeoutOptions(t: HttpTimeouts) {
  return {
    headersTimeout: t.httpHeadersTimeoutMs,
    requestTimeout: t.httpRequestTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(t.httpHeadersTimeoutMs / 2))),
    keepAliveTimeout: t.httpKeepAliveTimeoutMs,
    handshakeTimeout: t.tlsHandshakeTimeoutMs,
  };
}

function httpTimeoutVars(): { [K in keyof HttpTimeouts]: Variable<number> } {
  const ms = (name: string, key: keyof HttpTimeouts, description: string) =>
    vars.int(name, { default: DEFAULT_HTTP_TIMEOUTS[key], min: 10, max: 3_600_000, description });
  return {
    httpHeadersTimeoutMs: ms('HTTP_HEADERS_TIMEOUT_MS', 'httpHeadersTimeoutMs', 'Request line and headers must arrive within this'),
    httpRequestTimeoutMs: ms('HTTP_REQUEST_TIMEOUT_MS', 'httpRequestTimeoutMs', 'The whole request must arrive within this (at least the headers timeout)'),
    httpKeepAliveTimeoutMs: ms('HTTP_KEEP_ALIVE_TIMEOUT_MS', 'httpKeepAliveTimeoutMs', 'An idle keep-alive connection is closed after this'),
    httpIdleTimeoutMs: ms('HTTP_IDLE_TIMEOUT_MS', 'httpIdleTimeoutMs', 'A connection with no traffic either way is closed after this'),
    tlsHandshakeTimeoutMs: ms('TLS_HANDSHAKE_TIMEOUT_MS', 'tlsHandshakeTimeoutMs', 'The TLS handshake must complete within this'),
    httpShutdownGraceMs: ms('HTTP_SHUTDOWN_GRACE_MS', 'httpShutdownGraceMs', 'On shutdown, requests in flight may run this long; then every connection is cut'),
  };
}

/** Variables every service reads the same way. */
export const commonVars = {
  dataDir: vars.string('DATA_DIR', { default: './data', description: 'Directory for embedded storage, keys and blobs' }),
  databaseUrl: vars.optionalString('DATABASE_URL', 'PostgreSQL URL; embedded PGlite under DATA_DIR when unset'),
  databasePoolSize: vars.int('DATABASE_POOL_SIZE', {
    default: 10,
    min: 1,
    max: 500,
    description: 'PostgreSQL connections per process (see docs/deployment.md for sizing)',
  }),
  databasePooler: vars.oneOf('DATABASE_POOLER', ['none', 'transaction'] as const, {
    default: 'none',
    description:
      'transaction: DATABASE_URL reaches PostgreSQL through a transaction-mode pooler (PgBouncer pool_mode = transaction): no startup options, no named prepared statements, the schema set per transaction unless the role already defaults to it (docs/deployment.md)',
  }),
  redisUrl: vars.optionalString('REDIS_URL', 'Redis URL; in-memory state (single node) when unset'),
  redisClusterNodes: vars.list('REDIS_CLUSTER_NODES', {
    description: 'Seed nodes of a Redis Cluster (host:port or redis[s]://[user:password@]host:port, comma-separated), instead of REDIS_URL',
  }),
  redisSentinels: vars.list('REDIS_SENTINELS', {
    description: 'Redis Sentinels (host:port or redis[s]://[user:password@]host:port for the data nodes, comma-separated), instead of REDIS_URL',
  }),
  redisSentinelName: vars.string('REDIS_SENTINEL_NAME', { default: 'mymaster', description: 'The primary the sentinels of REDIS_SENTINELS watch' }),
  redisKeyPrefix: vars.string('REDIS_KEY_PREFIX', {
    default: '',
    description: 'Put before every Redis key and channel: several deployments (or test runs) on one Redis keep apart',
  }),
  logLevel: vars.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  host: vars.string('HOST', { default: '0.0.0.0', description: 'Interface to listen on' }),
  corsAllowedOrigins: vars.optionalString(
    'CORS_ALLOWED_ORIGINS',
    'Browser origins allowed by CORS: a comma-separated list, or * for any; unset: localhost origins when embedded, none with DATABASE_URL',
  ),
  ...httpTimeoutVars(),
};
