/**
 * The social service's HTTP surface. `buildApp(config, deps)` wires stores,
 * authentication and tenancy; tests inject their own stores, clock, key
 * resolver and registry.
 */
import type { FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import {
  createAccessTokenVerifier,
  createService,
  cursorSealer,
  serviceSecret,
  remoteKeyResolver,
  installCallers,
  serviceSubject,
  UUID_PATTERN,
  type App,
  type Database,
  type KeyResolver,
  type StateStore,
  type Unsubscribe,
  textFilters,
} from '@platform/kit';
import type { SocialConfig } from './config.js';
import { ANY_SERVICE, createAuthenticator, createServerVerifier, type Authenticator, type Principal, type ServerVerifier } from './services/auth.js';
import type { Ctx, GameContext, UserRow } from './context.js';
import { socialError, socialErrors } from './services/errors.js';
import { noteGamePlayed } from './services/user-games.js';
import { refreshPlatformFriends, startPlatformFriends } from './services/platform-friends.js';
import { createEventPublisher, replayRetention } from './services/events.js';
import { createRevocations } from './services/revocations.js';
import { createSanctions } from './services/sanctions.js';
import { createAuthAdmin } from './adapters/auth-client.js';
import { gameCredentials, registryTenancy, type TenancyResolver } from './adapters/registry-client.js';
import { ensureUser } from './services/users.js';
import { meRoutes } from './routes/me.js';
import { userRoutes } from './routes/users.js';
import { reportRoutes } from './routes/reports.js';
import { moderationRoutes } from './routes/moderation.js';
import { noteRoutes } from './routes/notes.js';
import { friendRoutes } from './routes/friends.js';
import { presenceRoutes } from './routes/presence.js';
import { inviteRoutes } from './routes/invites.js';
import { partyRoutes } from './routes/parties.js';
import { groupRoutes } from './routes/groups.js';
import { matchRoutes } from './routes/matches.js';
import { partyListingRoutes } from './routes/party-listings.js';
import { chatRoutes } from './routes/chat.js';
import { internalRoutes, type InternalRouteOptions } from './routes/internal.js';
import { notificationRoutes } from './routes/notifications.js';
import { probeRoutes } from './routes/probes.js';
import { realtimeRoutes } from './routes/realtime.js';
import { attachRealtime, type Realtime } from './realtime/gateway.js';
import { createSocialMetrics, type SocialMetrics } from './adapters/metrics.js';

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
  /**
   * Where the registry's notices arrive (kit GAME_CREDENTIALS_CHANNEL): `state` by default, which in production
   * is the Redis every service shares; npm start on memory passes one store all services share.
   */
  bus?: StateStore;
  logStream?: DestinationStream;
  /** Key set for token verification (tests); the JWKS at Social:Auth:JwksUrl otherwise. */
  keys?: KeyResolver;
  tenancy?: TenancyResolver;
  now?: () => Date;
  https?: { cert: string; key: string; minVersion?: 'TLSv1.3'; maxVersion?: 'TLSv1.3' };
}

export type SocialApp = App & { ctx: Ctx; realtime: Realtime };

function createShell(config: SocialConfig, deps: SocialDeps, metrics: SocialMetrics): Promise<App> {
  return createService({
    name: 'social',
    metrics: metrics.metrics,
    fieldCase: 'camel',
    logStream: deps.logStream,
    logLevel: config.logLevel,
    timeouts: config,
    cors: config,
    // Behind a TLS-terminating load balancer (plain HTTP here), the balancer sends HSTS.
    hsts: Boolean(deps.https),
    readiness: { database: () => deps.db.ping(), state: () => deps.state.ping() },
    server: deps.https ? { https: deps.https } : undefined,
    // Every response is documented from this list (routes/responses.ts) and, in tests, checked against it.
    errorCodes: socialErrors,
    openapi: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'PASETO v4.public or EdDSA JWT', description: 'An access token of the auth service' },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description: 'Server to server (when Social:Auth:ApiKey is set): the API key, with X-User-Id naming the acting account',
        },
        userId: { type: 'apiKey', in: 'header', name: 'X-User-Id', description: 'API-key mode: the account the call acts for' },
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'GET /v1/ws only (browsers): the access token as a query parameter' },
        gameKey: { type: 'apiKey', in: 'header', name: 'X-Platform-Game-Key', description: 'A game server (POST /v1/matches): the game\'s API key, with its secret' },
        gameSecret: { type: 'apiKey', in: 'header', name: 'X-Platform-Game-Secret', description: 'A game server (POST /v1/matches): the game\'s API secret' },
        serverToken: { type: 'http', scheme: 'bearer', bearerFormat: 'PASETO v4.public or EdDSA JWT', description: 'An access token with the server role of the route\'s one caller: service:auth (auth notices), service:moderation (moderation notices); for POST /v1/matches any server token issued for a game (its `game` claim)' },
      },
      tags: [
        { name: 'self', description: 'The caller: profile, name, privacy export and erasure' },
        { name: 'users', description: 'Finding users and reporting them' },
        { name: 'notes', description: 'Private notes about other users' },
        { name: 'friends', description: 'Friends and friend requests' },
        { name: 'blocks', description: 'Blocking users' },
        { name: 'mutes', description: 'Muting users' },
        { name: 'presence', description: 'Presence and rich presence' },
        { name: 'invites', description: 'Game invites and the invite inbox' },
        { name: 'parties', description: 'Parties, their members and party invites' },
        { name: 'groups', description: 'Groups (clans, guilds): roles, joining, requests, invites, bans' },
        { name: 'matches', description: 'Match rosters from game servers, and each player\'s recent players' },
        { name: 'chat', description: 'Direct and party chat' },
        { name: 'notifications', description: 'The notification inbox: what was addressed to the caller, online or not' },
        { name: 'realtime', description: 'The WebSocket channel (docs/social-realtime.md)' },
        { name: 'moderation', description: 'The report queue, for moderators and admins' },
        { name: 'internal', description: 'Server-to-server: notices from the auth service, moderation notices to users' },
      ],
      servers: [{ url: `https://localhost:${config.port || 9443}`, description: 'npm start (embedded, self-signed TLS)' }],
      // A caller's route: an access token, or the API key with the acting account.
      defaultSecurity: [{ bearer: [] }, { apiKey: [], userId: [] }],
    },
  });
}

/**
 * A key rotation announced by the auth service drops the cached key set. The arrival is the notice: no member is
 * read, so every version is (docs/decisions/0020-versioned-messages.md).
 */
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

/**
 * The game of a server-role token issued for it (auth's POST /internal/server-token with `game_id`: the `game` claim);
 * a token without the role (a player's) or without a game is 403 `forbidden`, a bad token 401 `unauthorized`.
 */
async function gameOfServerToken(headers: FastifyRequest['headers'], verifyServer: ServerVerifier): Promise<GameContext> {
  const claims = await verifyServer(headers, ANY_SERVICE);
  if (claims.game === undefined || !UUID_PATTERN.test(claims.game)) throw socialError('forbidden', 'This server token was not issued for a game');
  return { gameId: claims.game.toLowerCase(), visibility: 'isolated' };
}

/**
 * Who may call is declared on each route (config.caller) and resolved once by the kit (installCallers), before the
 * body is read: `player` (an access token, or the API key with the acting account, plus the game context of the
 * tenancy headers) or `service:<name>` (a server token of exactly that identity). /v1/ws is `none` here: it reaches
 * the router only without an upgrade (400 whatever the credentials); upgrades authenticate in the gateway.
 */
function authenticateRequests(app: App, ctx: Ctx, auth: { authenticator: Authenticator; tenancy: TenancyResolver; verifyServer: ServerVerifier }): void {
  installCallers(
    app,
    {
      async player(req) {
        req.principal = await auth.authenticator.authenticate(req.headers);
        req.game = await auth.tenancy.resolve(gameCredentials(req.headers));
        return req.principal;
      },
      // A game server (POST /v1/matches): the game's key and secret, or a server token issued for the game (its `game`
      // claim); never a client key (public in every client) nor a player's token.
      async game(req) {
        const creds = gameCredentials(req.headers);
        if (creds.key === undefined && creds.secret === undefined) {
          if (creds.clientKey !== undefined) throw socialError('game_secret_required', 'This route needs the game’s key and secret, not a client key');
          if (req.headers.authorization === undefined) throw socialError('unauthorized', 'This route needs the game’s key and secret, or a server token of the game');
          req.game = await gameOfServerToken(req.headers, auth.verifyServer);
          return req.game;
        }
        req.game = await auth.tenancy.resolve(creds);
        return req.game;
      },
      async service(req, name) {
        const claims = await auth.verifyServer(req.headers, serviceSubject(name ?? ''));
        req.principal = { accountId: claims.sub };
        return req.principal;
      },
    },
    'onRequest',
  );

  app.addHook('preHandler', async (req) => {
    if (!req.principal || req.routeOptions.config?.noProfile) return;
    req.user = await ensureUser(ctx, req.principal.accountId, req.principal.handleHint);
    await noteGamePlayed(ctx, req.user, req.game);
    await refreshPlatformFriends(ctx, req.user, req.game);
  });
}

function registerRoutes(app: App, ctx: Ctx, internal: InternalRouteOptions): void {
  meRoutes(app, ctx);
  userRoutes(app, ctx);
  reportRoutes(app, ctx);
  moderationRoutes(app, ctx);
  noteRoutes(app, ctx);
  friendRoutes(app, ctx);
  presenceRoutes(app, ctx);
  inviteRoutes(app, ctx);
  partyRoutes(app, ctx);
  groupRoutes(app, ctx);
  matchRoutes(app, ctx);
  partyListingRoutes(app, ctx);
  chatRoutes(app, ctx);
  internalRoutes(app, ctx, internal);
  notificationRoutes(app, ctx);
  realtimeRoutes(app);
}

/** The app with its context, routes and socket gateway; its background work is in workers/ (started by the kit: service.ts). */
export async function createApp(config: SocialConfig, deps: SocialDeps): Promise<SocialApp> {
  const metrics = createSocialMetrics(deps.db);
  const app = await createShell(config, deps, metrics);
  const events = createEventPublisher(deps.state, deps.db, app.log, { replay: replayRetention(config), onPublishFailed: () => metrics.dropped('publish_failed') });
  // Chat sanctions announced by auth (bus and outbox): chat refused on every node (docs/social.md, "Sanctions").
  const sanctions = await createSanctions({ state: deps.state, origin: events.origin, log: app.log });
  app.addHook('onClose', () => sanctions.close());
  // One cursor key for every node: kept in the database, made by the first node to start (kit cursor.ts).
  const cursors = cursorSealer(await serviceSecret(deps.db, 'cursors'));
  const ctx: Ctx = { db: deps.db, state: deps.state, config, events, metrics, sanctions, authAdmin: createAuthAdmin(config), cursors, textFilters: textFilters(), now: deps.now ?? (() => new Date()) };

  // Platform friends refreshed in the background (services/platform-friends.ts); the close waits for those running.
  const platformFriends = startPlatformFriends(ctx, app.log);
  app.addHook('onClose', () => platformFriends.settle());

  const keys =
    deps.keys ??
    (config.jwksUrl ? remoteKeyResolver({ url: config.jwksUrl, ca: config.ca, cooldownMs: config.keyCooldownSeconds * 1000 }) : undefined);
  const verifier = keys ? createAccessTokenVerifier({ issuer: config.issuer, audience: config.audience, keys }) : undefined;
  // Revocations announced by auth (bus and outbox): tokens refused, sockets closed (docs/social.md, "Revocation").
  const revocations = await createRevocations({ state: deps.state, highSecurity: config.highSecurity, origin: events.origin, log: app.log });
  app.addHook('onClose', () => revocations.close());
  const authenticator = createAuthenticator({ verifier, apiKey: config.apiKey, revocations });
  const tenancy = deps.tenancy ?? registryTenancy({ registryUrl: config.registryUrl, cacheMs: config.registryCacheSeconds * 1000 });
  const verifyServer = createServerVerifier({ verifier, keys });

  await followKeyRotations(app, deps.state, keys);
  authenticateRequests(app, ctx, { authenticator, tenancy, verifyServer });
  probeRoutes(app);
  registerRoutes(app, ctx, { refreshKeys: async () => keys?.refresh(), revocations });
  const realtime = attachRealtime(app, ctx, { authenticator, tenancy, bus: deps.bus ?? deps.state, revocations });
  metrics.watchRealtime(realtime);

  return Object.assign(app, { ctx, realtime });
}
