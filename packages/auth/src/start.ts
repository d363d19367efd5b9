/** Starting the service from the environment: stores, migrations, master key, TLS, HTTPS listener. */
import path from 'node:path';
import { deprecatedNamesInUse, listenMutualTls, loadOrCreateKeyFile, loadOrCreateLocalCa, loadOrCreateTls, openDatabase, openStateStore, serve, serveMetrics, type EmbeddedPostgres, type Env } from '@platform/kit';
import { authVars, readAuthConfig, type AuthConfig } from './config.js';
import { buildApp, migrateAuth, type AuthApp } from './app.js';
import type { PlatformVerifiers } from './services/platform.js';

/** AUTH_MASTER_KEY, or a key generated once into DATA_DIR/auth/master.key (development only). */
export function resolveMasterKey(config: AuthConfig, warn: (msg: string) => void): Buffer {
  if (config.masterKey) return config.masterKey;
  const { key, file } = loadOrCreateKeyFile(path.join(config.authDir, 'master.key'));
  warn(`AUTH_MASTER_KEY is not set: using ${file}; production must set AUTH_MASTER_KEY (from a secret manager)`);
  return key;
}

/** `embedded`: the process's shared PGlite (npm start), used instead of DATA_DIR/auth/pg. */
export async function openAuthStores(config: AuthConfig, embedded?: EmbeddedPostgres) {
  const db = await openDatabase({ url: config.databaseUrl, poolSize: config.databasePoolSize, dataDir: path.join(config.authDir, 'pg'), schema: config.schema, embedded });
  const state = await openStateStore({ url: config.redisUrl });
  await migrateAuth(db);
  return { db, state };
}

/** `handleSignals: false` (hosted with other services): the caller stops it with app.close(). */
export async function startAuth(
  env: Env = process.env,
  opts: { platformVerifiers?: PlatformVerifiers; embedded?: EmbeddedPostgres; handleSignals?: boolean } = {},
): Promise<AuthApp> {
  const config = readAuthConfig(env);
  const warnings: string[] = deprecatedNamesInUse(authVars, env);
  config.masterKey = resolveMasterKey(config, (m) => warnings.push(m));
  const generated = !config.tlsCertFile && !config.tlsKeyFile;
  const tls = await loadOrCreateTls({
    certPath: config.tlsCertFile,
    keyPath: config.tlsKeyFile,
    dir: path.join(config.authDir, 'tls'),
    commonName: 'auth.platform.localhost',
    ca: generated ? await loadOrCreateLocalCa(path.join(config.dataDir, 'ca')) : undefined,
  });
  const { db, state } = await openAuthStores(config, opts.embedded);
  const app = await buildApp(config, { db, state, tls, platformVerifiers: opts.platformVerifiers });
  for (const w of warnings) app.log.warn(w);
  app.log.info(
    { certPath: tls.certPath, generated: tls.generated },
    `TLS certificate: ${tls.certPath}${tls.generated ? ' (self-signed, generated now; clients must trust it)' : ''}`,
  );
  // Internal callers with client certificates get their own listener (AUTH_INTERNAL_MTLS_PORT), closed first on shutdown.
  let mtls: Awaited<ReturnType<typeof listenMutualTls>> | undefined;
  app.addHook('preClose', async () => {
    await mtls?.close();
  });
  await serve(app, {
    port: config.port,
    host: config.host,
    handleSignals: opts.handleSignals,
    onClose: async () => {
      await state.close();
      await db.close();
    },
  });
  // The metrics listener (AUTH_METRICS_PORT): its own address, loopback by default; closed with the app.
  await serveMetrics(app, config).catch(async (err: unknown) => {
    await app.close();
    throw err;
  });
  if (config.internalMtlsPort && config.internalMtlsCa) {
    mtls = await listenMutualTls(app, { port: config.internalMtlsPort, host: config.host, tls, ca: config.internalMtlsCa, timeouts: config });
    app.log.info({ port: mtls.port }, `internal mutual-TLS listener on ${config.host}:${mtls.port}`);
  }
  return app;
}
