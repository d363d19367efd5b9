/**
 * The auth service: buildApp(config, deps) wires stores, keys and routes into
 * a Fastify app. With deps.tls it serves HTTPS (TLS 1.3 only); without, tests
 * use app.inject.
 */
import type { FastifyRequest } from 'fastify';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { DestinationStream } from 'pino';
import {
  createAccessTokenVerifier,
  createService,
  createSourceLockout,
  installCallers,
  migrate,
  serviceSubject,
  tokenRejectionReason,
  tls13Options,
  type App,
  type Database,
  type KeyResolver,
  type ServiceOptions,
  type StateStore,
  type TlsMaterial,
} from '@platform/kit';
import type { AuthConfig } from './config.js';
import type { AuthContext } from './context.js';
import { authErrors, fail } from './errors.js';
import { KeyCache, advanceRotation, ensureActiveKey, keyTimings } from './services/keys.js';
import type { PlatformVerifiers } from './services/platform.js';
import { createPlatformVerifiers } from './providers/index.js';
import { createRateLimiter, type Limit, type RateLimiter } from './services/rate-limit.js';
import { purgeDeletedAccounts, pruneIdleGuests } from './services/retention.js';
import { createGuestWriter } from './services/sign-in-guest.js';
import { createRotator } from './services/tokens.js';
import { createRevoker, DENY_ACCOUNT_PREFIX, DENY_JTI, DENY_SID } from './services/revocation.js';
import { createOutboxWorker } from './services/outbox.js';
import { sweepSanctions } from './services/sanctions.js';
import { createAuthMetrics, type AuthMetrics } from './services/metrics.js';
import { authCallers } from './services/callers.js';
import { createInternalAuth, forwardedGameOf, type InternalAuth } from './services/internal.js';
import { internalRoutes } from './routes/internal.js';
import { signInRoutes } from './routes/sign-in.js';
import { tokenRoutes } from './routes/tokens.js';
import { accountRoutes } from './routes/accounts.js';
import { adminRoutes } from './routes/admin.js';
import { appealRoutes } from './routes/appeals.js';
import { secondFactorRoutes } from './routes/second-factors.js';
import { passkeyRoutes } from './routes/passkeys.js';
import { sessionRoutes } from './routes/sessions.js';
import { deviceRoutes } from './routes/device-grants.js';
import { oauthRoutes } from './routes/oauth.js';
import { emailRoutes } from './routes/email.js';
import { createMailer } from './adapters/mailer.js';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../migrations');

export { HSTS } from '@platform/kit';

export async function migrateAuth(db: Database): Promise<string[]> {
  return migrate(db, MIGRATIONS_DIR);
}

export interface AuthDeps {
  db: Database;
  state: StateStore;
  logStream?: DestinationStream;
  /** HTTPS material; absent → plain HTTP (tests through app.inject). */
  tls?: TlsMaterial;
  /** External platform ticket verification; absent → every provider is not configured. */
  platformVerifiers?: PlatformVerifiers;
}

export type AuthApp = App & {
  auth: AuthContext;
  purgeDeletedAccounts(now?: Date): Promise<number>;
  pruneIdleGuests(now?: Date): Promise<number>;
  /** One pass of the sanction sweeper (tests; every node runs it each AUTH_SANCTION_SWEEP_SECONDS). */
  sweepSanctions(): Promise<number>;
};

/** Verifies our own tokens; an unknown kid (a key another node just created) triggers one reload. */
function ownKeyResolver(keys: KeyCache): KeyResolver {
  let lastMissReload = 0;
  return {
    async resolve(kid) {
      let key: KeyObject | undefined = keys.publicKeys().get(kid);
      if (!key && Date.now() - lastMissReload > 5000) {
        lastMissReload = Date.now();
        await keys.reload();
        key = keys.publicKeys().get(kid);
      }
      return key;
    },
    async refresh() {
      await keys.reload();
    },
  };
}

function serviceOptions(config: AuthConfig, deps: AuthDeps, keys: KeyCache, metrics: AuthMetrics): ServiceOptions {
  const { db, state } = deps;
  return {
    name: 'auth',
    metrics: metrics.metrics,
    description: 'Identities, accounts, sessions, access and refresh tokens, key set',
    fieldCase: 'snake',
    errorCodes: authErrors,
    // The general per-address limit covers every route that does not opt out (probes, key set).
    rateLimitsAllRoutes: true,
    logStream: deps.logStream,
    logLevel: config.logLevel,
    timeouts: config,
    cors: config,
    hsts: true,
    trustProxy: config.trustProxy as boolean | string[],
    server: deps.tls ? { https: tls13Options(deps.tls) } : undefined,
    readiness: {
      database: () => db.ping(),
      state: () => state.ping(),
      signing_keys: async () => {
        if (!keys.loaded) throw new Error('signing keys not loaded');
      },
    },
    openapi: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'PASETO v4.public or EdDSA JWT' },
        internalKey: { type: 'apiKey', in: 'header', name: 'X-Internal-Key' },
      },
      tags: [
        { name: 'sign-in', description: 'Guest, email and platform sign-in' },
        { name: 'tokens', description: 'Refresh, sign-out and the key set' },
        { name: 'account', description: 'The signed-in player’s own account' },
        { name: 'admin', description: 'Operators: account search and lookup, status, roles, sanctions, signing keys' },
        { name: 'internal', description: 'Server-to-server (internal key or mTLS)' },
        { name: 'oauth', description: 'OAuth 2.0: device authorization grant (RFC 8628), token endpoint, metadata (RFC 8414), the approval page' },
        { name: 'email', description: 'Password reset and email verification (mailed tokens)' },
      ],
      servers: [{ url: config.linkBase, description: 'This service as players reach it (AUTH_PUBLIC_URL, else AUTH_ISSUER)' }],
      defaultSecurity: [{ bearer: [] }],
    },
  };
}

/** The general per-IP limit and each route's own limits, checked together in one round trip. */
function installRateLimits(app: App, config: AuthConfig, limiter: RateLimiter, internal: InternalAuth): void {
  // A request made for a player of a game (register-user) counts against the player's address and, separately, the game.
  const generalLimits = (req: FastifyRequest): Limit[] => {
    const game = forwardedGameOf(req);
    const byAddress = { name: 'all:ip', key: req.ip, limit: config.rateGeneralPerIp };
    return game === undefined ? [byAddress] : [byAddress, { name: 'all:game', key: game, limit: config.rateGeneralPerGame }];
  };
  app.addHook('onRequest', async (req) => {
    // A service calling on behalf of a player (the registry's register-user) names the player's
    // address, so the per-IP limits and the audit see the player, not the service.
    internal.applyForwardedClientIp(req);
    const route = req.routeOptions.config;
    // Exemptions are the route's (probes, key set), never a test on the URL. Routes with body-keyed limits
    // check everything in preHandler, in one round trip.
    if (route.rateLimited !== false && !route.bodyLimits) {
      await limiter.check(...generalLimits(req), ...(route.requestLimits?.(req) ?? []));
    }
  });
  app.addHook('preHandler', async (req) => {
    const route = req.routeOptions.config;
    if (!route.bodyLimits) return;
    await limiter.check(...generalLimits(req), ...(route.requestLimits?.(req) ?? []), ...route.bodyLimits(req));
  });
}

/**
 * `Cache-Control: no-store` (and `Pragma: no-cache`, RFC 6749 §5.1) on every response whose route does not set
 * its own caching (the key set and the metadata do): every response carrying a token (sign-ins, /refresh,
 * /oauth/token, the server token) and every other account answer, errors included, stays out of caches.
 */
function installNoStore(app: App): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    done(null, payload);
  });
}

function bearerToken(req: { headers: Record<string, unknown> }): string {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || !/^Bearer\s+\S+$/i.test(h)) throw fail('unauthenticated', 'A Bearer access token is required');
  return h.replace(/^Bearer\s+/i, '').trim();
}

/**
 * Who a request acts as, once verified (a Bearer token's subject, or service:<name> for an internal caller): the
 * audit entries it writes record it as their actor (services/audit.ts), so the player's export can leave staff out.
 */
const callers = new WeakMap<object, string>();

/** Bearer authentication: the token's signature and claims, then the deny set (logout, reuse, deletion, operators) and the account's cut. */
function createAuthenticate(config: AuthConfig, state: StateStore, keys: KeyCache): AuthContext['authenticate'] {
  const verify = createAccessTokenVerifier({ issuer: config.issuer, audience: config.audience, keys: ownKeyResolver(keys) });
  return async (req, opts = {}) => {
    const claims = await verify(bearerToken(req)).catch((err: unknown) => {
      // The answer is the same for every rejected token; why, at debug level (never the token).
      const reason = tokenRejectionReason(err);
      if (reason) (req as { log?: { debug(o: object, m: string): void } }).log?.debug({ reason }, 'access token rejected');
      throw err;
    });
    // The deny set (sid, jti) and the account's cut (account-scope revocations, a role taken away), in parallel.
    const [sid, jti, cut] = await Promise.all([
      state.setHas(DENY_SID, claims.sid),
      state.setHas(DENY_JTI, claims.jti),
      state.get(`${DENY_ACCOUNT_PREFIX}${claims.sub}`),
    ]);
    const revoked = sid || jti || (cut !== null && claims.iatMs <= Number(cut));
    if (revoked && !opts.allowRevoked) throw fail('invalid_token', 'Access token rejected');
    callers.set(req, claims.sub);
    return { ...claims, revoked };
  };
}

/** The app with its context and routes; its background work is in workers/ (started by the kit: service.ts). */
export async function createApp(config: AuthConfig, deps: AuthDeps): Promise<AuthApp> {
  const { db, state } = deps;
  if (!config.masterKey) throw new Error('buildApp needs config.masterKey (AUTH_MASTER_KEY or the generated master.key)');
  const keys = new KeyCache(db, config.masterKey);
  const nodeCtx = { nodeId: config.nodeId, ip: null };
  await ensureActiveKey(db, config.masterKey, nodeCtx);
  await keys.reload();

  const verifiers = deps.platformVerifiers ?? createPlatformVerifiers(config);
  const metrics = createAuthMetrics(db, keys);
  const app = (await createService(serviceOptions(config, deps, keys, metrics))) as AuthApp;
  const outbox = createOutboxWorker(config, db, keys, app.log, metrics.outboxAttempt);
  // Every revocation (logout, reuse, status, deletion) goes through it: DB, deny set, bus, outbox.
  const revoker = createRevoker({ config, db, state, outbox, log: app.log });
  const limiter = createRateLimiter(state, config.rateWindowSeconds, { onLimited: metrics.rateLimited });
  const internal = createInternalAuth(config.internalKeys, config.internalMtlsCallers);
  installRateLimits(app, config, limiter, internal);

  const authenticate = createAuthenticate(config, state, keys);
  // Mail leaves off the request path (adapters/mailer.ts); what is queued is sent before the app closes.
  const mailer = createMailer(config, app.log);
  app.addHook('onClose', () => mailer.close());
  if (mailer.mode === 'mailbox') app.log.info({ mailbox: config.mailbox }, `mail is not sent (AUTH_SMTP_URL is unset): each message is written to ${config.mailbox}`);
  const context: AuthContext = {
    config,
    log: app.log,
    db,
    state,
    keys,
    verifiers,
    rotator: createRotator(db, config.refreshTtlDays * 86_400_000),
    revoker,
    guestWriter: createGuestWriter(db),
    limiter,
    emailLimiter: createRateLimiter(state, config.rateEmailWindowSeconds, { onLimited: metrics.rateLimited }),
    mailer,
    // The same per-(source, credential) lockout as /login (same state keys): the password of an email change counts there.
    passwordLockout: createSourceLockout(
      state,
      'password',
      { threshold: config.lockoutThreshold, baseSeconds: config.lockoutBaseSeconds, maxSeconds: config.lockoutMaxSeconds },
      metrics.lockoutHooks,
    ),
    outbox,
    requireInternalCaller: (req) => {
      const name = internal.require(req);
      callers.set(req, serviceSubject(name));
      return name;
    },
    authenticate,
    optionalAuth: async (req) => (req.headers.authorization === undefined ? undefined : authenticate(req)),
    auditCtx: (req) => ({ nodeId: config.nodeId, ip: req.ip, actor: callers.get(req) ?? null }),
    async refreshKeys() {
      await advanceRotation(db, keyTimings(config), nodeCtx);
      await keys.reload();
    },
  };
  app.decorate('auth', context);
  app.decorate('purgeDeletedAccounts', (now?: Date) => purgeDeletedAccounts(context, now));
  app.decorate('pruneIdleGuests', (now?: Date) => pruneIdleGuests(context, now));
  app.decorate('sweepSanctions', () => sweepSanctions(context, { nodeId: config.nodeId, ip: null }));

  installNoStore(app);
  // Who may call each route is declared on the route (config.caller) and resolved here, once (services/callers.ts).
  installCallers(app, authCallers(context));
  for (const routes of [signInRoutes, tokenRoutes, accountRoutes, adminRoutes, appealRoutes, secondFactorRoutes, passkeyRoutes, internalRoutes, sessionRoutes, deviceRoutes, oauthRoutes, emailRoutes]) {
    await app.register(async (scope) => routes(scope as App, context));
  }
  return app;
}
