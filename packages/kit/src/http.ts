/**
 * The HTTP shell every service shares: Fastify 5 with TypeBox schemas,
 * strict request validation, OpenAPI 3.1 at /openapi.json and a docs UI at
 * /docs, one error handler, request ids, health and readiness probes, and a
 * graceful SIGTERM.
 */
// Carried into dist/http.d.ts: the services' route schemas use the `tags` that @fastify/swagger adds to FastifySchema.
/// <reference types="@fastify/swagger" preserve="true" />
import { installStops } from './app-stop.js';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import type { DestinationStream } from 'pino';
import { AppError } from './errors.js';
import { kitError, type ErrorCodes, type KitErrorCode } from './error-codes.js';
import { fieldName, type FieldCase } from './field-case.js';
import { installConnectionDrain } from './connection-drain.js';
import { nodeServerTimeoutOptions, resolveHttpTimeouts, type HttpTimeouts } from './config.js';
import { checkJsonInput, cleanNameFields, inputError } from './input.js';
import { lazyChildLoggerFactory, loggerOptions } from './logger.js';
import { accessOfCaller, publicPrefixRoute, type RegisteredRoute } from './route-access.js';
import { installCors, type CorsSettings } from './cors.js';
import { installResponseContract, responseChecksEnabled } from './response-contract.js';
import { installHttpMetrics, type ServiceMetrics } from './metrics.js';
import { withTimeout, type App } from './app-type.js';

export { fieldName, type FieldCase } from './field-case.js';

export type { App } from './app-type.js';
export { withTimeout } from './app-type.js';

/** HSTS of every service that terminates TLS: one year, subdomains included. */
export const HSTS = 'max-age=31536000; includeSubDomains';

const registeredRoutes = new WeakMap<object, RegisteredRoute[]>();

/** Every route the service registered (method, URL pattern, access), for tests that walk them all. */
export function routesOf(app: App): RegisteredRoute[] {
  return registeredRoutes.get(app) ?? [];
}

export interface ServiceOptions {
  name: string;
  version?: string;
  description?: string;
  /** Field-name case of the service's JSON (error bodies, probes). */
  fieldCase: FieldCase;
  logLevel?: string;
  /** Where log lines go (tests capture them); stdout when absent. */
  logStream?: DestinationStream;
  /** Dependencies /readyz checks; each must resolve within a second. */
  readiness?: Record<string, () => Promise<unknown>>;
  bodyLimit?: number;
  trustProxy?: boolean | string | string[];
  /** Connection timeouts (the services pass their config: HTTP_*_TIMEOUT_MS, TLS_HANDSHAKE_TIMEOUT_MS); defaults otherwise. */
  timeouts?: Partial<HttpTimeouts>;
  /** Send Strict-Transport-Security on every response (services that terminate TLS themselves). */
  hsts?: boolean;
  /** Allowed browser origins (cors.ts; the services pass their config: CORS_ALLOWED_ORIGINS, DATABASE_URL). */
  cors?: CorsSettings;
  /** Extra Fastify server options (https, http2 …). */
  server?: Partial<FastifyServerOptions> & Record<string, unknown>;
  /**
   * The service's error-code list (error-codes.ts). Every generic error response a route declares
   * (`errorSchema`) is documented with the listed codes of its status, and an error answered with an
   * unlisted code is logged as a bug.
   */
  errorCodes?: ErrorCodes<string>;
  /** The service's metrics (metrics.ts): every response is counted and timed by route pattern, method and status. */
  metrics?: ServiceMetrics;
  /** Every route may answer 429 unless its config says `rateLimited: false` (documents it; auth, social). */
  rateLimitsAllRoutes?: boolean;
  /** OpenAPI security schemes and tags. */
  openapi?: {
    securitySchemes?: Record<string, unknown>;
    tags?: { name: string; description?: string }[];
    /** Where the service is reached (the embedded defaults, e.g. https://localhost:8443). */
    servers?: { url: string; description?: string }[];
    /** Security of a route that declares none and is not public (e.g. [{ bearerAuth: [] }]). */
    defaultSecurity?: Record<string, string[]>[];
  };
}

/** The schemas errorSchema made: createService replaces them by the listed codes of their status. */
const genericErrorBodies = new WeakSet<object>();

/** The error body schema of a service, for route response declarations. */
export function errorSchema(fieldCase: FieldCase) {
  const f = (n: string) => fieldName(fieldCase, n);
  const schema = Type.Object(
    {
      [f('code')]: Type.String({ description: 'Stable machine-readable error code' }),
      [f('message')]: Type.String({ description: 'Human-readable explanation' }),
    },
    { additionalProperties: true, $id: undefined },
  );
  genericErrorBodies.add(schema);
  return schema;
}

interface RouteForDocs {
  method: string | string[];
  url: string;
  schema?: { hide?: boolean; body?: unknown; response?: Record<string, unknown>; operationId?: string; security?: unknown; tags?: string[] };
  config?: unknown;
}

/** `GET /games/:gameId/users` → `getGamesByGameIdUsers`: stable, unique per method and path. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `By-${seg.slice(1)}` : seg.replace(/^\./, '')))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

/**
 * Every documented operation gets an operationId (unless it names one) and its security requirement: none
 * for public routes, the service's default for the others unless the route declares its own.
 */
function documentOperation(route: RouteForDocs, opts: ServiceOptions): void {
  if (route.schema?.hide || route.url === '*' || route.url.startsWith('/docs') || route.method === 'HEAD') return;
  const schema = (route.schema ??= {});
  const method = [route.method].flat()[0];
  schema.operationId ??= operationIdOf(method, route.url);
  const access = ((route.config ?? {}) as { access?: string }).access ?? 'authenticated';
  if (schema.security === undefined) schema.security = access === 'public' ? [] : (opts.openapi?.defaultSecurity ?? []);
}

/**
 * A route's error responses as the service's code list has them: each generic error body a route declares is
 * replaced by the schema naming the listed codes of its status, and the statuses any route of its kind can
 * answer are added when the route does not declare them: 400 (input checks, validation), 500, 503 (a store
 * down), 401 for routes that need credentials, 413 and 415 for routes that take a body, 429 where the
 * service rate-limits every route that does not opt out.
 */
function documentErrorCodes(route: RouteForDocs, errorCodes: ErrorCodes<string>, fieldCase: FieldCase, rateLimitsAll: boolean): void {
  if (route.schema?.hide || route.url === '*' || route.url.startsWith('/docs')) return;
  const schema = (route.schema ??= {});
  const response = (schema.response ??= {});
  const byStatus = errorCodes.responses(fieldCase);
  for (const [status, body] of Object.entries(response)) {
    if (body && typeof body === 'object' && genericErrorBodies.has(body) && byStatus[Number(status)]) response[status] = byStatus[Number(status)];
  }
  const config = (route.config ?? {}) as { access?: string; rateLimited?: boolean };
  const implied = [400, 500, 503];
  if (config.access !== 'public') implied.push(401);
  if (schema.body) implied.push(413, 415);
  if (rateLimitsAll && config.rateLimited !== false) implied.push(429);
  for (const status of implied) if (!response[status] && byStatus[status]) response[status] = byStatus[status];
}

/** Fastify's own client errors as the kit's codes (error-codes.ts), or undefined for any other error. */
function fastifyError(err: FastifyError): AppError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return kitError('payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return kitError('unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return kitError('malformed_json', 'Body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return kitError('malformed_json', 'Body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return kitError('bad_request', 'Content-Length does not match the body');
  }
  if (err instanceof SyntaxError || /JSON/.test(err.message) && err.statusCode === 400) {
    return kitError('malformed_json', 'Body is not valid JSON');
  }
  return undefined;
}

/** Names the offending field of an Ajv error, e.g. `Email` or `Settings.Mode`. */
function offendingField(err: FastifyError): string | undefined {
  const v = err.validation?.[0] as
    | { instancePath?: string; params?: { missingProperty?: string; additionalProperty?: string } }
    | undefined;
  if (!v) return undefined;
  const base = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const leaf = v.params?.missingProperty ?? v.params?.additionalProperty;
  return [base, leaf].filter(Boolean).join('.') || undefined;
}

function validationMessage(err: FastifyError): string {
  const v = err.validation?.[0] as { keyword?: string; params?: Record<string, unknown>; message?: string } | undefined;
  const where = err.validationContext ?? 'body';
  const field = offendingField(err);
  if (v?.keyword === 'additionalProperties') return `${where} has an unknown field ${field}`;
  if (v?.keyword === 'required') return `${where} is missing the required field ${field}`;
  return field ? `${where} field ${field} ${v?.message ?? 'is invalid'}` : `${where} ${v?.message ?? 'is invalid'}`;
}

/**
 * Fastify's own response serializers (fast-json-stringify), each built on its route's first response instead of
 * at start: building every route's was, after the validators, the next share of a service's start-up CPU.
 */
const defaultSerializers = SerializerSelector();
function lazySerializers(externalSchemas: unknown, serializerOpts: unknown) {
  const build = defaultSerializers(externalSchemas as never, serializerOpts as never);
  return (route: Parameters<typeof build>[0]) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= build(route))(data);
  };
}

/** The house error body: code, message, the error's details, and the request id, in the service's field case. */
function errorBody(f: (n: string) => string, e: AppError, requestId: string): Record<string, unknown> {
  return { [f('code')]: e.code, [f('message')]: e.message, ...e.details, [f('requestId')]: requestId };
}

/**
 * A request Fastify refuses before routing (a path with malformed percent-encoding or an overlong UTF-8
 * sequence, FST_ERR_BAD_URL; a failed route constraint): answered in the house error format like any other 400.
 */
function frameworkErrorHandler(f: (n: string) => string) {
  return (err: FastifyError, req: { id: string }, reply: { code(n: number): unknown; headers(h: Record<string, string>): unknown; send(b: unknown): unknown }) => {
    const e = err.code === 'FST_ERR_BAD_URL' ? kitError('bad_request', 'The path is not a valid URL (malformed percent-encoding or UTF-8)') : kitError('bad_request', 'The request cannot be routed');
    reply.headers({ 'x-request-id': req.id, ...SECURITY_HEADERS });
    reply.code(e.status);
    reply.send(errorBody(f, e, req.id));
  };
}

/** On every answer (kit, decision: docs/decisions/0006-security-headers.md). */
const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

/**
 * Every answer is nosniff; every HTML page (the docs UI, auth's email-link and device pages, the console) is never
 * framed and sends no referrer (its URL may carry a one-time token), whatever its route set itself.
 */
function installSecurityHeaders(app: App): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) {
      if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
      if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
      const csp = reply.getHeader('content-security-policy');
      if (csp === undefined) reply.header('content-security-policy', "frame-ancestors 'none'");
      else if (!/frame-ancestors/i.test(String(csp))) reply.header('content-security-policy', `${String(csp)}; frame-ancestors 'none'`);
    }
    done(null, payload);
  });
}

/** The Fastify instance with the shell's server options: logger, request ids, limits and connection timeouts. */
function createFastify(opts: ServiceOptions, f: (n: string) => string): App {
  const logger = opts.logStream
    ? { ...loggerOptions(opts.name, opts.logLevel ?? 'info'), stream: opts.logStream }
    : loggerOptions(opts.name, opts.logLevel ?? 'info');

  // Connection timeouts (config.ts, HttpTimeouts): no client holds a connection without making progress.
  const t = resolveHttpTimeouts(opts.timeouts);
  const { handshakeTimeout, ...nodeServer } = nodeServerTimeoutOptions(t);
  const extra = opts.server ?? {};
  const https = extra.https ? { ...(extra.https === true ? {} : (extra.https as object)), ...nodeServer, handshakeTimeout } : undefined;

  const app = Fastify({
    logger,
    bodyLimit: opts.bodyLimit ?? 64 * 1024,
    trustProxy: opts.trustProxy ?? false,
    requestIdHeader: 'x-request-id',
    logController: new LogController({ requestIdLogLabel: 'requestId' } as never),
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyChildLoggerFactory,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    requestTimeout: t.httpRequestTimeoutMs,
    keepAliveTimeout: t.httpKeepAliveTimeoutMs,
    connectionTimeout: t.httpIdleTimeoutMs,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    frameworkErrors: frameworkErrorHandler(f),
    ...extra,
    http: { ...((extra.http as object | undefined) ?? {}), ...nodeServer },
    ...(https ? { https } : {}),
  } as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>() as App;
  installConnectionDrain(app, t.httpShutdownGraceMs);
  return app;
}

/**
 * Strict schemas (Ajv per request part) and the checks that run before any schema: every request part free
 * of unstorable text and of JSON nested deeper than MAX_JSON_DEPTH.
 */
function installValidation(app: App, f: (n: string) => string): void {
  // Bodies are validated strictly: no coercion, no silent stripping of
  // unknown fields. Query strings, params and headers are strings on the wire,
  // so they are coerced to the declared types.
  const makeAjv = (coerceTypes: boolean) => {
    const ajv = new Ajv({ allErrors: false, removeAdditional: false, coerceTypes, useDefaults: true, strict: false });
    addFormats.default(ajv);
    return ajv;
  };
  let bodyAjv: Ajv | undefined;
  let otherAjv: Ajv | undefined;
  // Each route's validator is compiled on its first request, not at start: compiling every route's schemas was
  // the largest share of a service's start-up CPU (bench/startup.ts, docs/benchmarks.md).
  app.setValidatorCompiler(({ schema, httpPart }) => {
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown) => {
      compiled ??= (httpPart === 'body' ? (bodyAjv ??= makeAjv(false)) : (otherAjv ??= makeAjv(true))).compile(schema as object);
      const ok = compiled(data);
      validate.errors = compiled.errors;
      return ok;
    };
    validate.errors = undefined as ValidateFunction['errors'];
    return validate;
  });

  // A bodyless request is bodyless whatever its content type says: many HTTP clients and SDKs send
  // `content-type: application/json` on every request. An empty (or whitespace-only) JSON body is no body;
  // a route that needs one answers validation_failed, and a non-empty malformed body is still malformed_json.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });

  // Callback style, not async: no promise per request on every route's hot path.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });

  // Before any schema runs (Ajv recurses, PostgreSQL refuses NUL): text that cannot be stored and JSON nested
  // deeper than MAX_JSON_DEPTH are refused in every part of every request, whatever its content type.
  app.addHook('preValidation', (req, _reply, done) => {
    for (const [where, value] of [
      ['path', req.params],
      ['query', req.query],
      ['body', req.body],
    ] as const) {
      if (value === undefined || value === null) continue;
      const problem = checkJsonInput(value);
      if (problem) return done(inputError(problem, where, f('field')));
    }
    // Names are shown to other people: no bidi override, zero-width or line-breaking character reaches a schema
    // or a row (input.ts, displayText).
    cleanNameFields(req.body);
    done();
  });
}

/** The Retry-After of a 503 that names none. */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 1;

/** One error body for every failure: AppErrors as thrown, everything else mapped to a kit code (error-codes.ts). */
function installErrorHandlers(app: App, f: (n: string) => string, errorCodes?: ErrorCodes<string>): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    let e: AppError;
    if (err instanceof AppError) {
      e = err;
      if (errorCodes && !errorCodes.has(e.code)) req.log.error({ code: e.code }, 'error code not in the service list (a bug: add it to the list)');
      if (e.status >= 500) req.log.error({ err: e.cause ?? e, code: e.code }, 'service unavailable');
    } else if (err.validation) {
      const field = offendingField(err);
      e = kitError('validation_failed', validationMessage(err), field ? { [f('field')]: field } : undefined);
    } else if (fastifyError(err)) {
      e = fastifyError(err)!;
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Any other client error Fastify raises keeps the status it chose.
      e = new AppError(err.statusCode, 'bad_request' satisfies KitErrorCode, err.message);
    } else {
      req.log.error({ err }, 'unhandled error');
      e = kitError('internal_error', 'Internal error');
    }
    if (e.headers) reply.headers(e.headers);
    // Every 503 says when to come back (RFC 9110 §10.2.3): a dependency that is down, a node that is draining.
    // Clients (the SDK, the cluster's retrying client) wait at least this long; an error that knows better sets its own.
    if (e.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
    reply.status(e.status).send(errorBody(f, e, req.id));
  });

  app.setNotFoundHandler((req, reply) => {
    const e = kitError('route_not_found', `No route ${req.method} ${req.url.split('?')[0]}`);
    reply.status(e.status).send(errorBody(f, e, req.id));
  });
}

/** OpenAPI 3.1 at /openapi.json and a docs UI at /docs. */
async function installDocs(app: App, opts: ServiceOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: opts.name, version: opts.version ?? '0.1.0', description: opts.description, license: { name: 'MIT', identifier: 'MIT' } },
      servers: opts.openapi?.servers,
      components: { securitySchemes: (opts.openapi?.securitySchemes ?? {}) as never },
      tags: [...(opts.openapi?.tags ?? []), { name: 'health', description: 'Liveness and readiness probes' }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { access: 'public', rateLimited: false } }, async () => app.swagger());
}

/** /healthz (liveness) and /readyz (each readiness check within a second). */
function installProbes(app: App, opts: ServiceOptions, f: (n: string) => string): void {
  const probe = Type.Object(
    { [f('status')]: Type.String(), [f('checks')]: Type.Optional(Type.Record(Type.String(), Type.String())) },
    { additionalProperties: false },
  );
  app.get('/healthz', { schema: { tags: ['health'], summary: 'Liveness', response: { 200: probe } }, config: { access: 'public', rateLimited: false } }, async () => ({ [f('status')]: 'ok' }));
  app.get(
    '/readyz',
    {
      schema: { tags: ['health'], summary: 'Readiness of data stores', response: { 200: probe, 503: probe } },
      config: { access: 'public', rateLimited: false },
    },
    async (_req, reply) => {
      const checks: Record<string, string> = {};
      let ok = true;
      await Promise.all(
        Object.entries(opts.readiness ?? {}).map(async ([name, check]) => {
          try {
            await withTimeout(check(), 1000);
            checks[name] = 'ok';
          } catch {
            ok = false;
            checks[name] = 'failing';
          }
        }),
      );
      reply.status(ok ? 200 : 503);
      return { [f('status')]: ok ? 'ready' : 'unavailable', [f('checks')]: checks } as never;
    },
  );
}

export async function createService(opts: ServiceOptions): Promise<App> {
  const f = (n: string) => fieldName(opts.fieldCase, n);
  const app = createFastify(opts, f);
  installStops(app);
  installSecurityHeaders(app);
  // Every route is recorded as registered; the docs UI's routes are public by the prefix they are registered under.
  const routes: RegisteredRoute[] = [];
  registeredRoutes.set(app, routes);
  app.addHook('onRoute', (route) => {
    publicPrefixRoute(route, ['/docs']);
    // The CORS preflight route: answered before any service hook, never with credentials.
    if (route.method === 'OPTIONS' && route.url === '*') route.config = { ...(route.config ?? {}), access: 'public' } as never;
    const config = route.config as { access?: RegisteredRoute['access']; caller?: string } | undefined;
    // The access follows from the declared caller (route-access.ts) unless the route names it.
    const access = config?.access ?? (config?.caller ? accessOfCaller(config.caller) : 'authenticated');
    if (config?.caller && !config.access) route.config = { ...config, access } as never;
    // An internal route accepts one server identity, named where the route is declared (route-access.ts).
    if (access === 'internal' && !config?.caller) throw new Error(`${route.url}: an internal route must name its caller (config.caller)`);
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, access, ...(config?.caller ? { caller: config.caller } : {}) });
    documentOperation(route as RouteForDocs, opts);
    if (opts.errorCodes) documentErrorCodes(route as RouteForDocs, opts.errorCodes, opts.fieldCase, opts.rateLimitsAllRoutes ?? false);
  });
  if (opts.hsts) {
    app.addHook('onRequest', (_req, reply, done) => {
      reply.header('strict-transport-security', HSTS);
      done();
    });
  }
  if (opts.metrics) installHttpMetrics(app, opts.metrics);
  await installCors(app, opts.cors, app.log);
  installValidation(app, f);
  installErrorHandlers(app, f, opts.errorCodes);
  // Checked for the services whose error responses come from their code list (documentErrorCodes).
  if (opts.errorCodes && responseChecksEnabled()) installResponseContract(app, f);
  await installDocs(app, opts);
  installProbes(app, opts, f);
  return app;
}
