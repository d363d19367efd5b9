/**
 * The registry's HTTP application. buildApp is port-agnostic and takes its
 * stores as dependencies, so tests inject their own; main.ts wires the real
 * ones. Building also prepares the shared state: the token-signing key and
 * the seeded super-admin.
 */
import { createService, dummyPasswordHash, installCallers, type App } from '@platform/kit';
import { adminRoutes } from './routes/admin.js';
import { consoleRoutes } from './routes/console.js';
import { developerRoutes } from './routes/developers.js';
import { gameRoutes } from './routes/games.js';
import { secondFactorRoutes } from './routes/second-factors.js';
import { passkeyRoutes } from './routes/passkeys.js';
import { moduleRoutes } from './routes/modules.js';
import { validateKeyRoutes } from './routes/game-keys.js';
import { registerUserRoutes } from './routes/registrations.js';
import { registryCallers } from './services/auth.js';
import { seedSuperAdmin } from './services/developers.js';
import { validateKey } from './services/game-keys.js';
import { registryErrors } from './errors.js';
import type { AppConfig, AppDeps, Context } from './context.js';
import { ApiKeyCache } from './services/api-key-cache.js';
import { gameNotices } from './services/game-notices.js';
import { importAllowlist } from './services/wasm.js';
import { loadSigningKey, tokenService } from './services/tokens.js';
import { createRegistryMetrics } from './services/metrics.js';

export type { AppConfig, AppDeps, Context } from './context.js';

const announceToStderr = (text: string) => process.stderr.write(text);

export function adminPasswordBanner(email: string, password: string): string {
  const line = '='.repeat(72);
  return `\n${line}\n  Super-admin account created: ${email}\n  Generated password (shown only this once): ${password}\n  Set REGISTRY_ADMIN_PASSWORD to choose it yourself.\n${line}\n\n`;
}

export async function createApp(config: AppConfig, deps: AppDeps): Promise<App> {
  const { db, state, blobs } = deps;
  const clock = deps.clock ?? Date.now;

  const key = await loadSigningKey(db, config.masterKey);
  const tokens = tokenService(key, { ttlSeconds: config.tokenTtlSeconds, clock });
  const seeded = await seedSuperAdmin(db, { email: config.adminEmail, password: config.adminPassword });
  if (seeded.generatedPassword) (deps.announce ?? announceToStderr)(adminPasswordBanner(config.adminEmail.toLowerCase(), seeded.generatedPassword));

  // Made now so the first login for an unknown email costs no more than any other.
  await dummyPasswordHash();

  const cache = new ApiKeyCache(state, config.keyCacheTtlMs);
  await cache.start();

  const metrics = createRegistryMetrics(db);
  const app = await createService({
    name: 'registry',
    metrics: metrics.metrics,
    description: 'Developer accounts, games and their API credentials, server-module admission',
    fieldCase: 'pascal',
    errorCodes: registryErrors,
    logLevel: config.logLevel,
    timeouts: config,
    cors: config,
    logStream: deps.logStream,
    readiness: { database: () => db.ping(), state: () => state.ping() },
    openapi: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (EdDSA)' },
        gameKey: { type: 'apiKey', in: 'header', name: 'X-Platform-Api-Key' },
        gameSecret: { type: 'apiKey', in: 'header', name: 'X-Platform-Api-Secret' },
      },
      tags: [
        { name: 'developers', description: 'Developer accounts and their tokens' },
        { name: 'games', description: 'Games, their credentials and their players' },
        { name: 'modules', description: 'Server-module builds and their admission' },
        { name: 'admin', description: 'Super-admin views' },
        { name: 'auth', description: 'Game credential checks for the other services' },
      ],
      servers: [{ url: config.publicUrl, description: 'The registry as developers reach it (REGISTRY_PUBLIC_URL)' }],
      defaultSecurity: [{ bearerAuth: [] }],
    },
  });
  if (seeded.demoted) app.log.warn({ demoted: seeded.demoted }, 'the previous super-admin was demoted to developer');
  app.addHook('onClose', async () => cache.stop());

  const notices = gameNotices(cache, deps.bus ?? state, app.log);
  const ctx: Context = {
    config,
    db,
    state,
    blobs,
    authClient: { url: config.authUrl, ca: config.authCa, internalKey: config.authInternalKey },
    tokens,
    keyCache: cache,
    notices,
    importAllowed: importAllowlist(config.importAllowlist),
    metrics,
  };
  // Who may call each route is declared on the route (config.caller) and resolved here, once (kit route-access.ts).
  installCallers(app, registryCallers(ctx, validateKey));
  developerRoutes(app, ctx);
  secondFactorRoutes(app, ctx);
  passkeyRoutes(app, ctx);
  gameRoutes(app, ctx);
  moduleRoutes(app, ctx);
  adminRoutes(app, ctx);
  validateKeyRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  consoleRoutes(app, ctx);
  return app;
}
