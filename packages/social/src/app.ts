/**
 * The social service's HTTP surface. `buildApp(config, deps)` wires stores,
 * authentication and tenancy; tests inject their own stores, clock, key
 * resolver and registry.
 */
import type { DestinationStream } from 'pino';
import {
  createAccessTokenVerifier,
  createService,
  remoteKeyResolver,
  routeAccess,
  type App,
  type Database,
  type KeyResolver,
  type StateStore,
  type Unsubscribe,
} from '@platform/kit';
import type { SocialConfig } from './config.js';
import { createAuthenticator, createServerVerifier, type Authenticator, type Principal, type ServerVerifier } from './services/auth.js';
import type { Ctx, GameContext, UserRow } from './services/context.js';
import { socialError } from './services/errors.js';
import { createEventPublisher } from './services/events.js';
import { gameCredentials, registryTenancy, type TenancyResolver } from './services/tenancy.js';
import { ensureUser } from './services/users.js';
import { meRoutes } from './routes/me.js';
import { userRoutes } from './routes/users.js';
import { reportRoutes } from './routes/reports.js';
import { noteRoutes } from './routes/notes.js';
import { friendRoutes } from './routes/friends.js';
import { presenceRoutes } from './routes/presence.js';
import { inviteRoutes } from './routes/invites.js';
import { partyRoutes } from './routes/parties.js';
import { chatRoutes } from './routes/chat.js';
import { internalRoutes, type InternalRouteOptions } from './routes/internal.js';
import { attachRealtime, WS_PATH, type Realtime } from './realtime/gateway.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    game: GameContext;
    user: UserRow;
  }
  interface FastifyContextConfig {
    /** The route works on the principal alone and must not create a profile (DELETE /v1/me). */
    noProfile?: boolean;
  }
}

export interface SocialDeps {
  db: Database;
  state: StateStore;
  logStream?: DestinationStream;
  /** Key set for token verification (tests); the JWKS at Social:Auth:JwksUrl otherwise. */
  keys?: KeyResolver;
  tenancy?: TenancyResolver;
  now?: () => Date;
  https?: { cert: string; key: string; minVersion?: 'TLSv1.3'; maxVersion?: 'TLSv1.3' };
}

export type SocialApp = App & { ctx: Ctx; realtime: Realtime };

function createApp(config: SocialConfig, deps: SocialDeps): Promise<App> {
  return createService({
    name: 'social',
    fieldCase: 'camel',
    logStream: deps.logStream,
    logLevel: config.logLevel,
    timeouts: config,
    cors: config,
    // Behind a TLS-terminating load balancer (plain HTTP here), the balancer sends HSTS.
    hsts: Boolean(deps.https),
    readiness: { database: () => deps.db.ping(), state: () => deps.state.ping() },
    server: deps.https ? { https: deps.https } : undefined,
    openapi: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
  });
}

/** A key rotation announced by the auth service drops the cached key set. */
async function followKeyRotations(app: App, state: StateStore, keys: KeyResolver | undefined): Promise<void> {
  let stopRotation: Unsubscribe | undefined;
  if (keys) {
    stopRotation = await state.subscribe('auth:key_rotation', () => {
      void keys.refresh();
    });
  }
  app.addHook('onClose', async () => {
    await stopRotation?.();
  });
}

/** Aliases beside the kit's probes. */
function probeAliases(app: App): void {
  const probe = { access: 'public', rateLimited: false } as const;
  app.get('/health', { schema: { tags: ['health'], summary: 'Liveness (alias of /healthz)' }, config: probe }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { tags: ['health'], summary: 'Readiness (alias of /readyz)' }, config: probe }, async (_req, reply) => {
    const r = await app.inject({ method: 'GET', url: '/readyz' });
    reply.status(r.statusCode);
    return r.json();
  });
}

/**
 * Who may call is decided by the route that runs (routeAccess), never by the request URL: the router
 * matches the decoded path, so /v1/%69nternal/… runs the internal route and is judged as one.
 */
function authenticateRequests(app: App, ctx: Ctx, auth: { authenticator: Authenticator; tenancy: TenancyResolver; verifyServer: ServerVerifier }): void {
  app.addHook('onRequest', async (req) => {
    const access = routeAccess(req);
    // Public routes, and paths no route serves (404 needs no credentials). /v1/ws is public here: it reaches
    // the router only without an upgrade (400 whatever the credentials); upgrades authenticate in the gateway.
    if (access === 'public' || access === 'unmatched') return;
    if (access === 'internal') {
      const claims = await auth.verifyServer(req.headers);
      req.principal = { accountId: claims.sub };
      return;
    }
    req.principal = await auth.authenticator.authenticate(req.headers);
    req.game = await auth.tenancy.resolve(gameCredentials(req.headers));
  });

  app.addHook('preHandler', async (req) => {
    if (!req.principal || req.routeOptions.config?.noProfile) return;
    req.user = await ensureUser(ctx, req.principal.accountId, req.principal.handleHint);
  });
}

function registerRoutes(app: App, ctx: Ctx, internal: InternalRouteOptions): void {
  meRoutes(app, ctx);
  userRoutes(app, ctx);
  reportRoutes(app, ctx);
  noteRoutes(app, ctx);
  friendRoutes(app, ctx);
  presenceRoutes(app, ctx);
  inviteRoutes(app, ctx);
  partyRoutes(app, ctx);
  chatRoutes(app, ctx);
  internalRoutes(app, ctx, internal);
  // Upgrades never reach the router (the server's upgrade listener takes them); a plain GET does.
  app.get(
    WS_PATH,
    { schema: { tags: ['realtime'], summary: 'WebSocket channel (see docs/social-realtime.md); 400 without an upgrade' }, config: { access: 'public' } },
    async () => {
      throw socialError('upgrade_required', 'GET /v1/ws must be a WebSocket upgrade');
    },
  );
}

export async function buildApp(config: SocialConfig, deps: SocialDeps): Promise<SocialApp> {
  const app = await createApp(config, deps);
  const events = createEventPublisher(deps.state, deps.db, app.log);
  const ctx: Ctx = { db: deps.db, state: deps.state, config, events, now: deps.now ?? (() => new Date()) };

  const keys =
    deps.keys ??
    (config.jwksUrl ? remoteKeyResolver({ url: config.jwksUrl, ca: config.ca, cooldownMs: config.keyCooldownSeconds * 1000 }) : undefined);
  const verifier = keys ? createAccessTokenVerifier({ issuer: config.issuer, audience: config.audience, keys }) : undefined;
  const authenticator = createAuthenticator({ verifier, apiKey: config.apiKey });
  const tenancy = deps.tenancy ?? registryTenancy({ registryUrl: config.registryUrl, cacheMs: config.registryCacheSeconds * 1000 });
  const verifyServer = createServerVerifier({ verifier, keys });

  await followKeyRotations(app, deps.state, keys);
  probeAliases(app);
  authenticateRequests(app, ctx, { authenticator, tenancy, verifyServer });
  registerRoutes(app, ctx, { refreshKeys: async () => keys?.refresh(), requireServer: (req) => verifyServer(req.headers) });
  const realtime = attachRealtime(app, ctx, { authenticator, tenancy });

  return Object.assign(app, { ctx, realtime });
}
