/**
 * The registry, defined once (kit defineService): configuration, PostgreSQL or embedded PGlite, Redis or memory
 * state, migrations, the master key and blob store under DATA_DIR, and the HTTP listener (port 3004).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineService, loadOrCreateKeyFile, type Env, type RunningService, type StartOptions, type App } from '@platform/kit';
import { createApp } from './app.js';
import { readRegistryConfig, REGISTRY_PORT, registryVars, type RegistryConfig } from './config.js';
import type { AppConfig, AppDeps } from './context.js';
import { FsBlobStore } from './adapters/blob-store.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** The embedded default's master key file (REGISTRY_MASTER_KEY unset), made (mode 0600) on first use. */
export function loadOrCreateMasterKey(dataDir: string): { key: Buffer; file: string; created: boolean } {
  return loadOrCreateKeyFile(path.join(dataDir, 'registry', 'master.key'));
}

export const registryService = defineService<RegistryConfig, AppConfig, AppDeps, App>({
  name: 'registry',
  readConfig: readRegistryConfig,
  settings: registryVars,
  migrations: MIGRATIONS_DIR,
  port: () => REGISTRY_PORT,
  async prepare(config) {
    const log: { level: 'warn'; msg: string; fields: object }[] = [];
    let masterKey = config.masterKey;
    if (!masterKey) {
      const loaded = loadOrCreateMasterKey(config.dataDir);
      masterKey = loaded.key;
      log.push({ level: 'warn', fields: { file: loaded.file }, msg: 'REGISTRY_MASTER_KEY is unset: using the master key file; set REGISTRY_MASTER_KEY in production' });
    }
    return { config: { ...config, masterKey }, deps: { blobs: new FsBlobStore(path.join(config.dataDir, 'registry', 'blobs')) }, log };
  },
  build: createApp,
});

/** The registry's app, not listening (tests use app.inject). */
export const buildApp = registryService.build;

export type RunningRegistry = RunningService<App, RegistryConfig>;

/** Starts the registry from environment variables (kit StartOptions: port, handleSignals, embedded, bus). */
export const startRegistry = (env: Env = process.env, options: StartOptions = {}): Promise<RunningRegistry> => registryService.start(env, options);
