/**
 * The auth service, defined once (kit defineService): stores, migrations, master key, TLS 1.3, the HTTPS listener,
 * its workers (workers/) and, with AUTH_INTERNAL_MTLS_PORT, the internal mutual-TLS listener.
 */
import path from 'node:path';
import {
  defineService,
  listenMutualTls,
  loadOrCreateKeyFile,
  migrate,
  onStop,
  openDatabase,
  openStateStore,
  stateStoreOptions,
  serviceTls,
  type EmbeddedPostgres,
  type Env,
  type RunningService,
  type StartOptions,
} from '@platform/kit';
import { authVars, readAuthConfig, type AuthConfig } from './config.js';
import { createApp, MIGRATIONS_DIR, type AuthApp, type AuthDeps } from './app.js';
import type { PlatformVerifiers } from './services/platform.js';
import { authWorkers } from './workers/index.js';

/** AUTH_MASTER_KEY, or a key generated once into DATA_DIR/auth/master.key (development only). */
export function resolveMasterKey(config: AuthConfig, warn: (msg: string) => void): Buffer {
  if (config.masterKey) return config.masterKey;
  const { key, file } = loadOrCreateKeyFile(path.join(config.authDir, 'master.key'));
  warn(`AUTH_MASTER_KEY is not set: using ${file}; production must set AUTH_MASTER_KEY (from a secret manager)`);
  return key;
}

/** The stores alone, migrated (the command-line tools: grant-role, rotate-key). `embedded`: npm start's shared PGlite. */
export async function openAuthStores(config: AuthConfig, embedded?: EmbeddedPostgres) {
  const db = await openDatabase({ url: config.databaseUrl, poolSize: config.databasePoolSize, pooler: config.databasePooler, dataDir: path.join(config.authDir, 'pg'), schema: config.schema, embedded });
  const state = await openStateStore(stateStoreOptions(config));
  await migrate(db, MIGRATIONS_DIR);
  return { db, state };
}

export const authService = defineService<AuthConfig, AuthConfig, AuthDeps, AuthApp>({
  name: 'auth',
  readConfig: readAuthConfig,
  settings: authVars,
  migrations: MIGRATIONS_DIR,
  port: (config) => config.port,
  https: () => true,
  async prepare(config) {
    const log: { level: 'info' | 'warn'; msg: string; fields?: object }[] = [];
    config.masterKey = resolveMasterKey(config, (msg) => log.push({ level: 'warn', msg }));
    const tls = await serviceTls(config, path.join(config.authDir, 'tls'), 'auth.platform.localhost');
    log.push({
      level: 'info',
      fields: { certPath: tls.certPath, generated: tls.generated },
      msg: `TLS certificate: ${tls.certPath}${tls.generated ? ' (self-signed, generated now; clients must trust it)' : ''}`,
    });
    return { config, deps: { tls }, log };
  },
  build: createApp,
  workers: authWorkers,
  // Internal callers with client certificates get their own listener (AUTH_INTERNAL_MTLS_PORT), closed first on shutdown.
  async afterListen(app, config, deps) {
    if (!config.internalMtlsPort || !config.internalMtlsCa || !deps.tls) return;
    const mtls = await listenMutualTls(app, { port: config.internalMtlsPort, host: config.host, tls: deps.tls, ca: config.internalMtlsCa, timeouts: config });
    onStop(app, 'internal mutual-TLS listener', () => mtls.close());
    app.log.info({ port: mtls.port }, `internal mutual-TLS listener on ${config.host}:${mtls.port}`);
  },
});

/** The auth app with its workers, not listening (tests use app.inject; with deps.tls it serves HTTPS). */
export const buildApp = authService.build;

export type RunningAuth = RunningService<AuthApp, AuthConfig>;

/** Starts auth from environment variables (kit StartOptions, plus `platformVerifiers` for tests). */
export const startAuth = (env: Env = process.env, options: StartOptions & { platformVerifiers?: PlatformVerifiers } = {}): Promise<RunningAuth> =>
  authService.start(env, { ...options, deps: options.platformVerifiers ? { platformVerifiers: options.platformVerifiers } : undefined });
