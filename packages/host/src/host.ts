/**
 * The whole platform in one Node.js process (`npm start`): auth (8443, TLS), registry (3004, calling auth) and
 * social (9443, trusting auth's certificate), wired as separate deployments would be, over ONE embedded PGlite at
 * DATA_DIR/pg (each service in its own schema) unless DATABASE_URL is set. One wasm PostgreSQL and one V8 heap
 * instead of three of each: that is where the start time and the memory went. Production keeps one process
 * per service (`node packages/<service>/dist/main.js`).
 *
 * Wiring (each only when not set in the environment):
 *   - both TLS certificates are made before any service starts (each service trusts the other's);
 *   - registry → auth: REGISTRY_AUTH_URL, REGISTRY_AUTH_CA_FILE, REGISTRY_AUTH_INTERNAL_KEY;
 *   - auth: AUTH_INTERNAL_KEYS (registry's and social's keys), AUTH_OUTBOX_TARGETS → social, AUTH_OUTBOX_CA_FILE, AUTH_MAILBOX_DIR
 *     (DATA_DIR/mailbox: without AUTH_SMTP_URL mail is written there, not sent);
 *   - social: SOCIAL_AUTH_JWKS_URL, SOCIAL_AUTH_CA_FILE, SOCIAL_REGISTRY_URL, SOCIAL_AUTH_INTERNAL_KEY (or their SOCIAL__ aliases);
 *   - the internal keys are generated once into DATA_DIR/internal-keys.json (mode 0600);
 *   - without REDIS_URL, one in-memory store is the bus the services' notices travel on (the registry's game
 *     credential notices reach social at once, as on a shared Redis); with it, each service's own store is.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ConfigError,
  createMemoryStore,
  loadOrCreateLocalCa,
  loadOrCreateTls,
  openEmbeddedPostgres,
  settingValue,
  type EmbeddedPostgres,
  type Env,
} from '@platform/kit';
import { MIGRATIONS_DIR as AUTH_MIGRATIONS, authService, authVars, readAuthConfig } from '@platform/auth';
import { MIGRATIONS_DIR as REGISTRY_MIGRATIONS, readRegistryConfig, REGISTRY_PORT, registryService, registryVars } from '@platform/registry';
import { MIGRATIONS_DIR as SOCIAL_MIGRATIONS, readSocialConfig, socialService } from '@platform/social';
import { importOldLayout } from './old-layout.js';

export interface RunningHost {
  dataDir: string;
  urls: { auth: string; registry: string; social: string };
  /** The web console's URL (served by the registry), or undefined with REGISTRY_CONSOLE_ENABLED=off. */
  consoleUrl?: string;
  /** The local CA that issued both certificates (the one file a client trusts). */
  caFile: string;
  /** The embedded database directory, or undefined on DATABASE_URL. */
  pgDir?: string;
  /** Where auth's mail goes: the local mailbox directory (no AUTH_SMTP_URL), or undefined when it is sent by SMTP. */
  mailbox?: string;
  /** Each service's metrics endpoint, when its <SERVICE>_METRICS_PORT is set (docs/deployment.md, "Metrics"). */
  metrics: { auth?: string; registry?: string; social?: string };
  /** Stops the services (social, registry, auth), then the embedded database. */
  close(): Promise<void>;
}

/** Service-to-service secrets, generated once (development only; production sets the variables). */
function internalKeys(dataDir: string): { registry: string; social: string } {
  const file = path.join(dataDir, 'internal-keys.json');
  const kept: Partial<Record<'registry' | 'social', string>> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  // A data directory of an older version has the registry's key only: social's is added.
  if (kept.registry && kept.social) return kept as { registry: string; social: string };
  mkdirSync(dataDir, { recursive: true });
  const keys = { registry: kept.registry ?? randomBytes(32).toString('base64url'), social: kept.social ?? randomBytes(32).toString('base64url') };
  writeFileSync(file, JSON.stringify(keys, null, 2) + '\n', { mode: 0o600 });
  return keys;
}

type Envs = Awaited<ReturnType<typeof wiring>>;

/** The console's origins (the registry serves it: docs/console.md), as a browser on this machine names them. */
export function consoleOrigins(registryPort: number): string[] {
  return [`http://localhost:${registryPort}`, `http://127.0.0.1:${registryPort}`];
}

/**
 * CORS_ALLOWED_ORIGINS for auth and social, so the console can call them: unset and embedded, localhost origins are
 * allowed already (kit cors.ts), so it stays unset; unset on DATABASE_URL (where none would be), the console's
 * origins; a list, the list plus the console's origins; `*` as it is. REGISTRY_CONSOLE_ENABLED=off: untouched.
 */
export function corsWithConsole(env: Env, registryPort: number): string | undefined {
  const set = env.CORS_ALLOWED_ORIGINS?.trim();
  if (!consoleEnabled(env) || set === '*') return env.CORS_ALLOWED_ORIGINS;
  if (!set && !env.DATABASE_URL) return env.CORS_ALLOWED_ORIGINS;
  const list = (set ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  return [...new Set([...list, ...consoleOrigins(registryPort)])].join(',');
}

/** REGISTRY_CONSOLE_ENABLED (or its older name REGISTRY_CONSOLE) is not off. */
function consoleEnabled(env: Env): boolean {
  return !/^(0|false|no|off)$/i.test(settingValue(env, registryVars.consoleEnabled)?.trim() ?? '');
}

/** Each service's environment: the process's, plus the wiring it does not set itself (to the ports they listen on). */
async function wiring(env: Env, dataDir: string, registryPort: number) {
  const authPort = env.AUTH_PORT ?? '8443';
  const socialPort = env.SOCIAL_PORT ?? env.SOCIAL__LISTEN__PORT ?? '9443';
  const authCert = path.join(dataDir, 'auth', 'tls', 'tls-cert.pem');
  const socialCert = path.join(dataDir, 'social', 'tls', 'tls-cert.pem');
  // Made here (the services would make the same files) so each side can trust the other's at once. One local CA
  // issues both: a client trusts one file for every service. A self-signed pair of an older data directory is issued again.
  const localCa = await loadOrCreateLocalCa(path.join(dataDir, 'ca'));
  // AUTH_TLS_CERT_FILE (or its older name AUTH_TLS_CERT): the given certificate is the one the others trust.
  const authCertGiven = settingValue(env, authVars.tlsCertFile);
  if (!authCertGiven) await loadOrCreateTls({ dir: path.dirname(authCert), ca: localCa, commonName: 'auth.platform.localhost' });
  const socialCertGiven = env.SOCIAL_TLS_CERT_FILE || env.SOCIAL__TLS__CERTFILE || undefined;
  if (!socialCertGiven) await loadOrCreateTls({ dir: path.dirname(socialCert), ca: localCa, commonName: 'social.platform.localhost' });
  const generated = internalKeys(dataDir);
  const registryKey = env.REGISTRY_AUTH_INTERNAL_KEY ?? generated.registry;
  const socialKey = env.SOCIAL_AUTH_INTERNAL_KEY ?? env.SOCIAL__AUTH__INTERNALKEY ?? generated.social;
  const cors = corsWithConsole(env, registryPort);
  const base: Env = { ...env, DATA_DIR: dataDir, ...(cors !== undefined ? { CORS_ALLOWED_ORIGINS: cors } : {}) };
  const urls = { auth: `https://localhost:${authPort}`, registry: `http://localhost:${registryPort}`, social: `https://localhost:${socialPort}` };
  return {
    caFile: localCa.certPath,
    urls,
    console: `${urls.registry}/console/`,
    // Without an SMTP server, auth's mail (password reset, email verification) is written here, not sent.
    mailbox: env.AUTH_SMTP_URL ? undefined : path.resolve(env.AUTH_MAILBOX_DIR ?? path.join(dataDir, 'mailbox')),
    auth: {
      ...base,
      // Tokens, mail links, the device page's URI, discovery and OpenAPI name the port auth runs on.
      AUTH_ISSUER: env.AUTH_ISSUER ?? urls.auth,
      AUTH_MAILBOX_DIR: env.AUTH_MAILBOX_DIR ?? path.join(dataDir, 'mailbox'),
      AUTH_INTERNAL_KEYS: env.AUTH_INTERNAL_KEYS ?? `registry:${registryKey},social:${socialKey}`,
      AUTH_OUTBOX_TARGETS: env.AUTH_OUTBOX_TARGETS ?? `https://127.0.0.1:${socialPort}/v1/internal/auth-events`,
      AUTH_OUTBOX_CA_FILE: env.AUTH_OUTBOX_CA_FILE ?? socialCertGiven ?? localCa.certPath,
    },
    registry: {
      ...base,
      REGISTRY_AUTH_URL: env.REGISTRY_AUTH_URL ?? `https://127.0.0.1:${authPort}`,
      REGISTRY_AUTH_CA_FILE: env.REGISTRY_AUTH_CA_FILE ?? authCertGiven ?? localCa.certPath,
      REGISTRY_AUTH_INTERNAL_KEY: registryKey,
      REGISTRY_PUBLIC_URL: env.REGISTRY_PUBLIC_URL ?? urls.registry,
      // The console in the browser reaches auth and social where npm start serves them.
      REGISTRY_CONSOLE_AUTH_URL: env.REGISTRY_CONSOLE_AUTH_URL ?? urls.auth,
      REGISTRY_CONSOLE_SOCIAL_URL: env.REGISTRY_CONSOLE_SOCIAL_URL ?? urls.social,
    },
    social: {
      ...base,
      SOCIAL_AUTH_JWKS_URL: env.SOCIAL_AUTH_JWKS_URL ?? env.SOCIAL__AUTH__JWKSURL ?? `https://127.0.0.1:${authPort}/.well-known/jwks.json`,
      SOCIAL_AUTH_CA_FILE: env.SOCIAL_AUTH_CA_FILE ?? env.SOCIAL__AUTH__CAFILE ?? authCertGiven ?? localCa.certPath,
      SOCIAL_REGISTRY_URL: env.SOCIAL_REGISTRY_URL ?? env.SOCIAL__REGISTRY__URL ?? `http://127.0.0.1:${registryPort}`,
      // The issuer auth signs with (above), whatever port it runs on.
      SOCIAL_AUTH_ISSUER: env.SOCIAL_AUTH_ISSUER ?? env.SOCIAL__AUTH__ISSUER ?? env.AUTH_ISSUER ?? urls.auth,
      // Social asks auth whether an account is active before it makes a profile for a moderation notice.
      SOCIAL_AUTH_INTERNAL_KEY: socialKey,
    },
  };
}

/** REGISTRY_PORT (npm start only), else the registry's fixed port; a ConfigError for anything but a port number. */
export function registryPortOf(env: Env): number {
  const raw = env.REGISTRY_PORT?.trim();
  if (!raw) return REGISTRY_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) throw new ConfigError([`REGISTRY_PORT must be a port number (1-65535), got ${JSON.stringify(raw)}`]);
  return port;
}

/**
 * The three services share one process: two metrics listeners on one port would fail to start. Refused
 * before anything starts (0, any free port, may repeat).
 */
export function metricsPortClashes(env: Env): string[] {
  const byPort = new Map<string, string[]>();
  for (const name of ['AUTH_METRICS_PORT', 'REGISTRY_METRICS_PORT', 'SOCIAL_METRICS_PORT']) {
    const port = (env[name] || (name === 'SOCIAL_METRICS_PORT' ? env.SOCIAL__METRICS__PORT : undefined))?.trim();
    if (port && port !== '0') byPort.set(port, [...(byPort.get(port) ?? []), name]);
  }
  return [...byPort].filter(([, names]) => names.length > 1).map(([port, names]) => `${names.join(' and ')} are both ${port}: each service needs its own metrics port`);
}

/** DATA_DIR/pg, with the data of the older layout (DATA_DIR/<service>/pg) copied in on the way. */
async function openSharedDatabase(dataDir: string, envs: Envs, log: (msg: string) => void, opening?: Promise<EmbeddedPostgres>): Promise<EmbeddedPostgres> {
  const embedded = await (opening ?? openEmbeddedPostgres(path.join(dataDir, 'pg')));
  try {
    await importOldLayout(
      dataDir,
      embedded,
      [
        { name: 'auth', schema: readAuthConfig(envs.auth).schema, migrationsDir: AUTH_MIGRATIONS },
        { name: 'registry', schema: readRegistryConfig(envs.registry).schema, migrationsDir: REGISTRY_MIGRATIONS },
        { name: 'social', schema: readSocialConfig(envs.social).schema, migrationsDir: SOCIAL_MIGRATIONS },
      ],
      log,
    );
  } catch (err) {
    await embedded.close();
    throw err;
  }
  return embedded;
}

/**
 * Starts auth, the registry and social in this process (in that order: each may call the one before). Config
 * errors surface as the services' ConfigError; a failure stops what had started. `opening`: the embedded
 * database at DATA_DIR/pg, already being opened by the caller. Ports: AUTH_PORT and SOCIAL_PORT (alias SOCIAL__LISTEN__PORT) as the
 * services read them; the registry's is fixed (3004) but for REGISTRY_PORT (npm start only) and `registryPort` (tests).
 */
export async function startHost(
  env: Env = process.env,
  opts: { log?: (msg: string) => void; opening?: Promise<EmbeddedPostgres>; registryPort?: number } = {},
): Promise<RunningHost> {
  const log = opts.log ?? ((m: string) => console.log(`[platform] ${m}`));
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  // The registry's port is fixed by its spec (3004); npm start alone lets REGISTRY_PORT move it, for a machine where
  // 3004 is taken, and every URL it prints or wires follows.
  let registryPort: number;
  try {
    registryPort = opts.registryPort ?? registryPortOf(env);
  } catch (err) {
    await opts.opening?.then((pg) => pg.close()).catch(() => {});
    throw err;
  }
  const clashes = metricsPortClashes(env);
  if (clashes.length) {
    await opts.opening?.then((pg) => pg.close()).catch(() => {});
    throw new ConfigError(clashes);
  }
  let envs: Envs;
  try {
    envs = await wiring(env, dataDir, registryPort);
  } catch (err) {
    await opts.opening?.then((pg) => pg.close()).catch(() => {});
    throw err;
  }
  const embedded = env.DATABASE_URL ? undefined : await openSharedDatabase(dataDir, envs, log, opts.opening);
  // Each service opens its own memory store without a Redis (REDIS_URL, _CLUSTER_NODES, _SENTINELS); their notices need one they share.
  const bus = env.REDIS_URL || env.REDIS_CLUSTER_NODES || env.REDIS_SENTINELS ? undefined : createMemoryStore();
  const stops: (() => Promise<void>)[] = [];
  const metrics: RunningHost['metrics'] = {};
  const close = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => log(`stopping: ${(err as Error).message}`));
    await bus?.close();
    await embedded?.close();
  };
  try {
    // In this order: each may call the one before. Each is a kit RunningService, started and stopped alike.
    const services = [
      () => authService.start(envs.auth, { embedded, bus, handleSignals: false }),
      () => registryService.start(envs.registry, { embedded, bus, handleSignals: false, port: registryPort }),
      () => socialService.start(envs.social, { embedded, bus, handleSignals: false }),
    ];
    for (const start of services) {
      const running = await start();
      stops.push(() => running.close());
      metrics[running.name as keyof RunningHost['metrics']] = running.metricsUrl;
    }
  } catch (err) {
    await close();
    throw err;
  }
  const consoleOn = consoleEnabled(env);
  return {
    dataDir,
    urls: envs.urls,
    consoleUrl: consoleOn ? envs.console : undefined,
    caFile: envs.caFile,
    pgDir: embedded?.dataDir,
    mailbox: envs.mailbox,
    metrics,
    close,
  };
}
