/**
 * The OpenAPI documents are generated from the route schemas; this keeps the answers honest to them. When
 * `PLATFORM_CHECK_RESPONSES=1` (scripts/test.mjs sets it for every test run) each response of a documented
 * route is checked against the schema documented for its status: an undocumented status, or a body that
 * does not match, is replaced by a 500 `response_contract_violation` naming the route, the status and the
 * mismatch, so the test that produced it fails. Off in production: it costs a validation per response.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-type.js';

export const CHECK_RESPONSES_ENV = 'PLATFORM_CHECK_RESPONSES';

export function responseChecksEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[CHECK_RESPONSES_ENV] === '1';
}

/** Statuses that carry no body to check (a WebSocket upgrade, not-modified). */
const UNCHECKED_STATUSES = new Set([101, 304]);

export function installResponseContract(app: App, f: (n: string) => string): void {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  const compiled = new WeakMap<object, ValidateFunction>();
  const validatorOf = (schema: object) => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile(schema);
      compiled.set(schema, v);
    }
    return v;
  };

  app.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    const problem = contractProblem(req, reply, payload, validatorOf);
    if (!problem) return done(null, payload);
    req.log.error({ problem, route: req.routeOptions.url, status: reply.statusCode }, 'response does not match its documented contract');
    reply.status(500).header('content-type', 'application/json; charset=utf-8');
    done(null, JSON.stringify({ [f('code')]: 'response_contract_violation', [f('message')]: `${req.method} ${req.routeOptions.url}: ${problem}`, [f('requestId')]: req.id }));
  });
}

function contractProblem(req: FastifyRequest, reply: FastifyReply, payload: unknown, validatorOf: (s: object) => ValidateFunction): string | undefined {
  const route = req.routeOptions;
  const schema = route.schema as { hide?: boolean; response?: Record<string, object> } | undefined;
  // Unrouted requests (404 route_not_found), hidden routes (docs UI, /openapi.json), CORS preflights.
  if (!route.url || schema?.hide || req.method === 'OPTIONS' || route.url === '*') return undefined;
  const status = reply.statusCode;
  if (UNCHECKED_STATUSES.has(status)) return undefined;
  const responses = schema?.response ?? {};
  const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses[`${String(status)[0]}xx`] ?? responses.default;
  if (!documented) return `status ${status} is not documented (documented: ${Object.keys(responses).join(', ') || 'none'})`;
  // Node never sends a body with 204 (Fastify may hand the serialised `null` to this hook).
  if (status === 204) return undefined;
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
  if (text === undefined) return undefined; // a stream: not checked
  const isNull = (documented as { type?: string }).type === 'null';
  if (text === '') return isNull ? undefined : `status ${status} has an empty body but documents one`;
  const type = String(reply.getHeader('content-type') ?? '');
  if (!type.includes('json')) return undefined; // text answers (metrics, HTML) are documented by their route
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status} body is not JSON`;
  }
  const validate = validatorOf(documented);
  if (validate(body)) return undefined;
  const e = validate.errors?.[0];
  return `status ${status} body ${e?.instancePath || '/'} ${e?.message ?? 'does not match'}${e?.params ? ' ' + JSON.stringify(e.params) : ''}`;
}
