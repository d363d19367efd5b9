/**
 * Starts the social service: config (file + environment), PostgreSQL or
 * embedded PGlite under DATA_DIR/social/pg, Redis or memory state, migrations,
 * TLS (self-signed into DATA_DIR/social/tls unless configured, or plain HTTP
 * behind a TLS-terminating load balancer), and an hourly purge of chat and notifications.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deprecatedNamesInUse, loadOrCreateLocalCa, loadOrCreateTls, migrate, openDatabase, openStateStore, serve, serveMetrics, tls13Options, type EmbeddedPostgres, type Env, type StateStore } from '@platform/kit';
import { buildApp } from './app.js';
import { readSocialConfig, socialVars } from './config.js';
import { purgeChat } from './services/chat.js';
import { purgeNotifications } from './services/notifications.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations');

/**
 * `embedded`: the process's shared PGlite (npm start), used instead of DATA_DIR/social/pg;
 * `handleSignals: false` (hosted with other services): the caller stops it with app.close();
 * `bus`: the store the services of one process share for their notices (npm start without REDIS_URL).
 */
export async function startSocial(
  env: Env = process.env,
  opts: { listen?: boolean; embedded?: EmbeddedPostgres; handleSignals?: boolean; bus?: StateStore } = {},
) {
  const config = readSocialConfig(env);
  const db = await openDatabase({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: path.join(config.dataDir, 'social', 'pg'),
    schema: config.schema,
    embedded: opts.embedded,
  });
  await migrate(db, MIGRATIONS_DIR);
  const state = await openStateStore({ url: config.redisUrl });
  const https =
    config.tlsMode === 'https'
      ? tls13Options(
          await loadOrCreateTls({
            certPath: config.tlsCertFile,
            keyPath: config.tlsKeyFile,
            dir: path.join(config.dataDir, 'social', 'tls'),
            commonName: 'social.platform.localhost',
            ca: config.tlsCertFile || config.tlsKeyFile ? undefined : await loadOrCreateLocalCa(path.join(config.dataDir, 'ca')),
          }),
        )
      : undefined;
  const app = await buildApp(config, { db, state, https, bus: opts.bus });
  for (const warning of deprecatedNamesInUse(socialVars, env)) app.log.warn(warning);
  const purge = setInterval(() => {
    purgeChat(app.ctx).catch((err) => app.log.warn({ err }, 'chat purge failed'));
    purgeNotifications(app.ctx).catch((err) => app.log.warn({ err }, 'notification purge failed'));
  }, 3_600_000);
  purge.unref();
  const close = async () => {
    clearInterval(purge);
    await state.close();
    await db.close();
  };
  let metricsUrl: string | undefined;
  if (opts.listen !== false) {
    await serve(app, { port: config.port, host: config.host, onClose: close, handleSignals: opts.handleSignals });
    // The metrics listener (SOCIAL_METRICS_PORT): its own address, loopback by default; closed with the app.
    const endpoint = await serveMetrics(app, config).catch(async (err: unknown) => {
      await app.close();
      throw err;
    });
    metricsUrl = endpoint?.url;
  }
  return { app, config, close, metricsUrl };
}
