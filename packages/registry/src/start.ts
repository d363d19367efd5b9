/**
 * Starts the registry: configuration, PostgreSQL or embedded PGlite, Redis or memory state, migrations,
 * the master key and blob store under DATA_DIR, and the HTTP listener.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deprecatedNamesInUse, loadOrCreateKeyFile, migrate, openDatabase, openStateStore, serve, serveMetrics, type App, type EmbeddedPostgres, type Env, type StateStore } from '@platform/kit';
import { buildApp } from './app.js';
import { readRegistryConfig, REGISTRY_PORT, registryVars } from './config.js';
import { FsBlobStore } from './services/blobs.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** The master key from a file under DATA_DIR, made (mode 0600) on first use. */
/** The embedded default's master key file (REGISTRY_MASTER_KEY unset). */
export function loadOrCreateMasterKey(dataDir: string): { key: Buffer; file: string; created: boolean } {
  return loadOrCreateKeyFile(path.join(dataDir, 'registry', 'master.key'));
}

export interface RunningRegistry {
  app: App;
  /** The metrics endpoint's URL (REGISTRY_METRICS_PORT set), else undefined. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/**
 * Starts the registry from environment variables: config, stores,
 * migrations, HTTP on port 3004. `port` exists for tests only; signal
 * handling (SIGTERM drain) is installed unless `handleSignals` is false.
 * `embedded`: the process's shared PGlite (npm start), used instead of DATA_DIR/registry/pg.
 * `bus`: the store the services of one process share for their notices (npm start without REDIS_URL).
 */
export async function startRegistry(
  env: Env = process.env,
  options: { port?: number; handleSignals?: boolean; embedded?: EmbeddedPostgres; bus?: StateStore } = {},
): Promise<RunningRegistry> {
  const config = readRegistryConfig(env);
  let masterKey = config.masterKey;
  let generatedKeyFile: string | undefined;
  if (!masterKey) {
    const loaded = loadOrCreateMasterKey(config.dataDir);
    masterKey = loaded.key;
    generatedKeyFile = loaded.file;
  }
  const db = await openDatabase({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: path.join(config.dataDir, 'registry', 'pg'),
    schema: config.schema,
    embedded: options.embedded,
  });
  let state;
  try {
    await migrate(db, MIGRATIONS_DIR);
    state = await openStateStore({ url: config.redisUrl });
  } catch (err) {
    await db.close();
    throw err;
  }
  const closeStores = async () => {
    await state.close();
    await db.close();
  };
  let app: App;
  try {
    app = await buildApp({ ...config, masterKey }, { db, state, bus: options.bus, blobs: new FsBlobStore(path.join(config.dataDir, 'registry', 'blobs')) });
  } catch (err) {
    await closeStores();
    throw err;
  }
  for (const warning of deprecatedNamesInUse(registryVars, env)) app.log.warn(warning);
  if (generatedKeyFile) {
    app.log.warn({ file: generatedKeyFile }, 'REGISTRY_MASTER_KEY is unset: using the master key file; set REGISTRY_MASTER_KEY in production');
  }
  const port = options.port ?? REGISTRY_PORT;
  if (options.handleSignals === false) await app.listen({ port, host: config.host });
  else await serve(app, { port, host: config.host, onClose: closeStores });
  const metrics = await serveMetrics(app, config).catch(async (err: unknown) => {
    await app.close();
    await closeStores();
    throw err;
  });
  return {
    app,
    metricsUrl: metrics?.url,
    async close() {
      await app.close();
      await closeStores();
    },
  };
}
