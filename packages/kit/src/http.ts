/**
 * The HTTP shell every service shares: Fastify 5 with TypeBox schemas,
 * strict request validation, OpenAPI 3.1 at /openapi.json and a docs UI at
 * /docs, one error handler, request ids, health and readiness probes, and a
 * graceful SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import type { DestinationStream } from 'pino';
import { AppError } from './errors.js';
import { lazyChildLoggerFactory, loggerOptions } from './logger.js';

export type FieldCase = 'pascal' | 'camel' | 'snake';

export type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

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
  /** Extra Fastify server options (https, http2 …). */
  server?: Partial<FastifyServerOptions> & Record<string, unknown>;
  /** OpenAPI security schemes and tags. */
  openapi?: { securitySchemes?: Record<string, unknown>; tags?: { name: string; description?: string }[] };
}

const ucFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const toSnake = (s: string) => s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

/** Renames a camelCase key to the service's case. */
export function fieldName(fieldCase: FieldCase, camel: string): string {
  return fieldCase === 'pascal' ? ucFirst(camel) : fieldCase === 'snake' ? toSnake(camel) : camel;
}

/** The error body schema of a service, for route response declarations. */
export function errorSchema(fieldCase: FieldCase) {
  const f = (n: string) => fieldName(fieldCase, n);
  return Type.Object(
    {
      [f('code')]: Type.String({ description: 'Stable machine-readable error code' }),
      [f('message')]: Type.String({ description: 'Human-readable explanation' }),
    },
    { additionalProperties: true, $id: undefined },
  );
}

function fastifyErrorCode(err: FastifyError): { status: number; code: string; message: string } | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large', message: 'Request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'Content-Type must be application/json' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'malformed_json', message: 'Body is empty but Content-Type is application/json' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'malformed_json', message: 'Body is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'bad_request', message: 'Content-Length does not match the body' };
  }
  if (err instanceof SyntaxError || /JSON/.test(err.message) && err.statusCode === 400) {
    return { status: 400, code: 'malformed_json', message: 'Body is not valid JSON' };
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

export async function createService(opts: ServiceOptions): Promise<App> {
  const f = (n: string) => fieldName(opts.fieldCase, n);
  const logger = opts.logStream
    ? { ...loggerOptions(opts.name, opts.logLevel ?? 'info'), stream: opts.logStream }
    : loggerOptions(opts.name, opts.logLevel ?? 'info');

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
    ...(opts.server ?? {}),
  } as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>() as App;

  // Bodies are validated strictly: no coercion, no silent stripping of
  // unknown fields. Query strings, params and headers are strings on the wire,
  // so they are coerced to the declared types.
  const bodyAjv = new Ajv({ allErrors: false, removeAdditional: false, coerceTypes: false, useDefaults: true, strict: false });
  const otherAjv = new Ajv({ allErrors: false, removeAdditional: false, coerceTypes: true, useDefaults: true, strict: false });
  addFormats.default(bodyAjv);
  addFormats.default(otherAjv);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : otherAjv).compile(schema as object) as any,
  );

  // Callback style, not async: no promise per request on every route's hot path.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    let status: number;
    let code: string;
    let message: string;
    let details: Record<string, unknown> | undefined;
    if (err instanceof AppError) {
      ({ status, code, message, details } = err);
      if (err.headers) reply.headers(err.headers);
      if (status >= 500) req.log.error({ err: err.cause ?? err, code }, 'service unavailable');
    } else if (err.validation) {
      status = 400;
      code = 'validation_failed';
      message = validationMessage(err);
      const field = offendingField(err);
      details = field ? { [f('field')]: field } : undefined;
    } else if (fastifyErrorCode(err)) {
      ({ status, code, message } = fastifyErrorCode(err)!);
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      code = 'bad_request';
      message = err.message;
    } else {
      req.log.error({ err }, 'unhandled error');
      status = 500;
      code = 'internal_error';
      message = 'Internal error';
    }
    reply.status(status).send({ [f('code')]: code, [f('message')]: message, ...details, [f('requestId')]: req.id });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ [f('code')]: 'route_not_found', [f('message')]: `No route ${req.method} ${req.url.split('?')[0]}`, [f('requestId')]: req.id });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: opts.name, version: opts.version ?? '0.1.0', description: opts.description },
      components: { securitySchemes: (opts.openapi?.securitySchemes ?? {}) as never },
      tags: opts.openapi?.tags,
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const probe = Type.Object(
    { [f('status')]: Type.String(), [f('checks')]: Type.Optional(Type.Record(Type.String(), Type.String())) },
    { additionalProperties: false },
  );
  app.get('/healthz', { schema: { tags: ['health'], summary: 'Liveness', response: { 200: probe } } }, async () => ({ [f('status')]: 'ok' }));
  app.get(
    '/readyz',
    { schema: { tags: ['health'], summary: 'Readiness of data stores', response: { 200: probe, 503: probe } } },
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
  return app;
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/**
 * Listens and installs SIGTERM/SIGINT handlers: stop accepting, let in-flight
 * requests finish, close connections and stores, then exit.
 */
export async function serve(
  app: App,
  opts: { port: number; host: string; onClose?: () => Promise<void>; graceMs?: number },
): Promise<void> {
  await app.listen({ port: opts.port, host: opts.host });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), opts.graceMs ?? 10_000);
    force.unref();
    try {
      await app.close();
      await opts.onClose?.();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
