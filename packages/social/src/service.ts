/**
 * The social service, defined once (kit defineService): config (file + environment), PostgreSQL or embedded PGlite,
 * Redis or memory state, migrations, TLS (self-signed into DATA_DIR/social/tls unless configured, or plain HTTP
 * behind a TLS-terminating load balancer), the listener, and its workers (workers/: the hourly purge).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineService, serviceTls, tls13Options, type Env, type RunningService, type StartOptions } from '@platform/kit';
import { createApp, type SocialApp, type SocialDeps } from './app.js';
import { readSocialConfig, socialVars, type SocialConfig } from './config.js';
import { purgeWorker } from './workers/purge.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations');

export const socialService = defineService<SocialConfig, SocialConfig, SocialDeps, SocialApp>({
  name: 'social',
  readConfig: readSocialConfig,
  settings: socialVars,
  migrations: MIGRATIONS_DIR,
  port: (config) => config.port,
  https: (config) => config.tlsMode === 'https',
  async prepare(config) {
    if (config.tlsMode !== 'https') return { config, deps: {} };
    const tls = await serviceTls(config, path.join(config.dataDir, 'social', 'tls'), 'social.platform.localhost');
    return { config, deps: { https: tls13Options(tls) } };
  },
  build: createApp,
  workers: (app) => [purgeWorker(app)],
});

/** The social app with its workers, not listening (tests use app.inject). */
export const buildApp = socialService.build;

export type RunningSocial = RunningService<SocialApp, SocialConfig>;

/** Starts social from environment variables (kit StartOptions: listen, embedded, handleSignals, bus). */
export const startSocial = (env: Env = process.env, options: StartOptions = {}): Promise<RunningSocial> => socialService.start(env, options);
