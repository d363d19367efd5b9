// The shared HTTP shell: strict validation, one error body, probes, OpenAPI.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createService, AppError, MAX_JSON_DEPTH, type App } from '../src/index.js';
import { captureLogs as capture, assertError } from '../src/testing.js';


async function build(fieldCase: 'pascal' | 'camel' | 'snake', ready = true, bodyLimit = 1024) {
  const logs = capture();
  const app = await createService({
    name: 'demo',
    fieldCase,
    logStream: logs.stream,
    bodyLimit,
    readiness: { database: async () => { if (!ready) throw new Error('down'); } },
  });
  app.post(
    '/things',
    {
      schema: {
        body: Type.Object({ Name: Type.String({ minLength: 1 }), Size: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) }),
      },
    },
    async (req) => ({ got: req.body, limit: req.query.limit ?? null }),
  );
  app.post(
    '/notes/:name',
    { schema: { params: Type.Object({ name: Type.String() }), querystring: Type.Object({ handle: Type.Optional(Type.String()) }) } },
    async (req) => ({ name: req.params.name, handle: req.query.handle ?? null, body: req.body ?? null }),
  );
  app.get('/boom', async () => {
    throw new Error('secret internals');
  });
  app.get('/leaky', async () => {
    // What a driver's error carries (PGlite: params; PostgreSQL: the failing row in detail).
    throw Object.assign(new Error('new row violates check constraint'), { code: '23514', constraint: 'c_check', params: ['SECRET-PARAM'], detail: 'Failing row contains (SECRET-ROW)', cause: Object.assign(new Error('inner'), { parameters: ['SECRET-CAUSE'] }) });
  });
  app.get('/teapot', async () => {
    throw new AppError(409, 'already_there', 'It exists', { details: { Extra: 1 }, headers: { 'retry-after': '3' } });
  });
  await app.ready();
  return { app, logs };
}

describe('http shell', () => {
  let app: App;
  let logs: ReturnType<typeof capture>;
  before(async () => {
    ({ app, logs } = await build('pascal'));
  });
  after(() => app.close());

  it('accepts a valid body and coerces query strings', async () => {
    const r = await app.inject({ method: 'POST', url: '/things?limit=5', payload: { Name: 'a', Size: 2 } });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { got: { Name: 'a', Size: 2 }, limit: 5 });
    assert.match(r.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
  });

  it('rejects wrong types without coercing them', async () => {
    const r = await app.inject({ method: 'POST', url: '/things', payload: { Name: 123 } });
    assertError(r, 400, 'validation_failed');
    assert.equal(r.json().Field, 'Name');
  });

  it('names a missing field', async () => {
    const r = await app.inject({ method: 'POST', url: '/things', payload: {} });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().Field, 'Name');
    assert.match(r.json().Message, /missing the required field Name/);
  });

  it('rejects unknown fields instead of dropping them', async () => {
    const r = await app.inject({ method: 'POST', url: '/things', payload: { Name: 'a', Colour: 'red' } });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().Field, 'Colour');
  });

  it('rejects malformed JSON with malformed_json', async () => {
    const r = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"Name":' });
    assertError(r, 400, 'malformed_json');
  });

  it('takes an empty body with content-type application/json as no body; a route that needs one says which field', async () => {
    for (const payload of ['', '  \n']) {
      const none = await app.inject({ method: 'POST', url: '/notes/a', headers: { 'content-type': 'application/json' }, payload });
      assert.equal(none.statusCode, 200, none.body);
      assert.deepEqual(none.json(), { name: 'a', handle: null, body: null });
      assertError(await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json; charset=utf-8' }, payload }), 400, 'validation_failed');
    }
    const malformed = await app.inject({ method: 'POST', url: '/notes/a', headers: { 'content-type': 'application/json' }, payload: ' {' });
    assert.equal(malformed.json().Code, 'malformed_json');
    const poisoned = await app.inject({ method: 'POST', url: '/notes/a', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' });
    assert.equal(poisoned.statusCode, 400, 'prototype poisoning is still refused by the default parser');
  });

  it('rejects an oversized body with 413', async () => {
    const r = await app.inject({ method: 'POST', url: '/things', payload: { Name: 'x'.repeat(5000) } });
    assertError(r, 413, 'payload_too_large');
  });

  it('rejects a non-JSON content type with 415', async () => {
    const r = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'text/xml' }, payload: '<a/>' });
    assertError(r, 415, 'unsupported_media_type');
  });

  it('refuses NUL and unpaired surrogates in body values and keys at any depth, query values and path params', async () => {
    const cases: [string, Record<string, unknown> | undefined, string][] = [
      ['/notes/a', { Text: 'x\u0000y' }, 'Text'],
      ['/notes/a', { Deep: { List: ['ok', { Leaf: 'x\u0000' }] } }, 'Deep.List.1.Leaf'],
      ['/notes/a', { Deep: { ['k\u0000']: 1 } }, 'Deep.k\\u0000'],
      ['/notes/a', { Text: 'x\ud800y' }, 'Text'],
      ['/notes/a', { Text: '\udc00' }, 'Text'],
      ['/notes/%00', undefined, 'name'],
      ['/notes/a?handle=%00', undefined, 'handle'],
    ];
    for (const [url, payload, field] of cases) {
      const r = await app.inject({ method: 'POST', url, ...(payload ? { payload } : {}) });
      assert.equal(r.statusCode, 400, `${url} ${JSON.stringify(payload)}: ${r.body}`);
      assert.equal(r.json().Code, 'invalid_character');
      assert.equal(r.json().Field, field);
    }
    // A well-formed pair (an emoji) is text like any other.
    const ok = await app.inject({ method: 'POST', url: '/notes/%F0%9F%98%80?handle=b', payload: { Text: 'smile \ud83d\ude00' } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { name: '\u{1F600}', handle: 'b', body: { Text: 'smile \u{1F600}' } });
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with too_deep, before any schema runs`, async () => {
    const { app } = await build('pascal', true, 64 * 1024);
    const nest = (levels: number) => '{"A":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
    assertError(await app.inject({ method: 'POST', url: '/notes/a', headers: { 'content-type': 'application/json' }, payload: `{"Settings":${nest(6000)}}` }), 400, 'too_deep');
    const arrays = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '['.repeat(6000) + ']'.repeat(6000) });
    assert.equal(arrays.json().Code, 'too_deep');
    const limit = await app.inject({ method: 'POST', url: '/notes/a', headers: { 'content-type': 'application/json' }, payload: nest(MAX_JSON_DEPTH) });
    assert.equal(limit.statusCode, 200);
    const over = await app.inject({ method: 'POST', url: '/notes/a', headers: { 'content-type': 'application/json' }, payload: nest(MAX_JSON_DEPTH + 1) });
    assert.equal(over.json().Code, 'too_deep');
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    await app.close();
  });

  it('answers unknown routes with 404 route_not_found', async () => {
    const r = await app.inject({ method: 'GET', url: '/nowhere' });
    assertError(r, 404, 'route_not_found');
  });

  it('maps AppError with its details and headers', async () => {
    const r = await app.inject({ method: 'GET', url: '/teapot' });
    assert.equal(r.statusCode, 409);
    assert.equal(r.headers['retry-after'], '3');
    assert.deepEqual({ ...(r.json() as object), RequestId: undefined }, { Code: 'already_there', Message: 'It exists', Extra: 1, RequestId: undefined });
  });

  it('hides internals of an unexpected error', async () => {
    const r = await app.inject({ method: 'GET', url: '/boom' });
    assertError(r, 500, 'internal_error');
    assert.doesNotMatch(r.body, /secret internals|at /);
    assert.match(logs.text(), /secret internals/); // logged for operators
  });

  it('logs an error without the data it carried (parameters, row), keeping code, constraint and cause', async () => {
    assert.equal((await app.inject({ url: '/leaky' })).statusCode, 500);
    const line = logs.lines().find((l) => l.err?.constraint === 'c_check');
    assert.ok(line);
    assert.deepEqual([line.err.code, line.err.message, line.err.cause.message], ['23514', 'new row violates check constraint', 'inner']);
    assert.doesNotMatch(logs.text(), /SECRET-/);
  });

  it('serves liveness, readiness and OpenAPI 3.1', async () => {
    assert.deepEqual((await app.inject({ url: '/healthz' })).json(), { Status: 'ok' });
    const ready = await app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { Status: 'ready', Checks: { database: 'ok' } });
    const spec = (await app.inject({ url: '/openapi.json' })).json();
    assert.equal(spec.openapi, '3.1.0');
    assert.ok(spec.paths['/things'].post);
    assert.equal((await app.inject({ url: '/docs' })).statusCode < 400, true);
  });

  it('logs a request id on request lines', () => {
    const lines = logs.lines().filter((l) => l.req);
    assert.ok(lines.length > 0);
    assert.ok(lines.every((l) => typeof l.requestId === 'string'));
  });
});

describe('http shell in lower case', () => {
  it('uses code/message and reports failing readiness with 503', async () => {
    const { app } = await build('snake', false);
    const r = await app.inject({ url: '/readyz' });
    assert.equal(r.statusCode, 503);
    assert.deepEqual(r.json(), { status: 'unavailable', checks: { database: 'failing' } });
    const e = await app.inject({ url: '/nowhere' });
    assert.equal(e.json().code, 'route_not_found');
    assert.equal(typeof e.json().request_id, 'string');
    await app.close();
  });
});

describe('503 answers', () => {
  it('every 503 carries Retry-After (1 s unless the error names its own); other errors do not get one', async () => {
    const app = await createService({ name: 'unavailable', fieldCase: 'camel', logLevel: 'silent' });
    app.get('/down', { config: { access: 'public' } }, async () => {
      throw new AppError(503, 'database_unavailable', 'The database is unavailable; retry later');
    });
    app.get('/draining', { config: { access: 'public' } }, async () => {
      throw new AppError(503, 'database_unavailable', 'later', { headers: { 'retry-after': '7' } });
    });
    app.get('/refused', { config: { access: 'public' } }, async () => {
      throw new AppError(403, 'forbidden', 'no');
    });
    const down = await app.inject({ url: '/down' });
    assert.deepEqual([down.statusCode, down.headers['retry-after'], down.json().code], [503, '1', 'database_unavailable']);
    assert.equal((await app.inject({ url: '/draining' })).headers['retry-after'], '7');
    assert.equal((await app.inject({ url: '/refused' })).headers['retry-after'], undefined);
    await app.close();
  });
});

describe('internal routes', () => {
  it('an internal route must name its one caller: without config.caller it is refused at registration, with one it is recorded', async () => {
    const { routesOf } = await import('../src/index.js');
    const app = await createService({ name: 'demo', fieldCase: 'camel', logStream: capture().stream });
    assert.throws(() => app.post('/v1/internal/x', { config: { access: 'internal' } }, async () => ({})), /must name its caller/);
    app.post('/v1/internal/y', { config: { access: 'internal', caller: 'service:auth' } }, async () => ({}));
    await app.ready();
    assert.deepEqual(routesOf(app).filter((r) => r.access === 'internal'), [{ method: 'POST', url: '/v1/internal/y', access: 'internal', caller: 'service:auth' }]);
    await app.close();
  });
});

describe('redactUrl', () => {
  it('redacts secret parameters by decoded, case-folded name, every occurrence, query and fragment', async () => {
    const { redactUrl } = await import('../src/logger.js');
    const cases: [string, string][] = [
      ['/v1/ws?access_token=S', '/v1/ws?access_token=[REDACTED]'],
      ['/v1/ws?access%5Ftoken=S', '/v1/ws?access%5Ftoken=[REDACTED]'],
      ['/v1/ws?%61ccess_token=S&x=1', '/v1/ws?%61ccess_token=[REDACTED]&x=1'],
      ['/v1/ws?ACCESS_TOKEN=S1&access_token=S2', '/v1/ws?ACCESS_TOKEN=[REDACTED]&access_token=[REDACTED]'],
      ['/v1/ws?access_token+=S&access%20token=S&accessToken=S&access-token=S', '/v1/ws?access_token+=[REDACTED]&access%20token=[REDACTED]&accessToken=[REDACTED]&access-token=[REDACTED]'],
      ['/x?api%5Fkey=K&refresh_token=R#token=T', '/x?api%5Fkey=[REDACTED]&refresh_token=[REDACTED]#token=[REDACTED]'],
      ['/x?access_token=a;b?c=d', '/x?access_token=[REDACTED]'],
      ['/x?handle=ada&limit=5', '/x?handle=ada&limit=5'],
      // By class, whatever the spelling: client keys (a game secret sent by mistake), device codes, search text, addresses.
      ['/v1/ws?clientKey=S&ClientKey=S&client_key=S', '/v1/ws?clientKey=[REDACTED]&ClientKey=[REDACTED]&client_key=[REDACTED]'],
      ['/device?user_code=WDJB-MJHT&userCode=X&user%2Dcode=Y', '/device?user_code=[REDACTED]&userCode=[REDACTED]&user%2Dcode=[REDACTED]'],
      ['/admin/accounts?q=victim%40example.test&limit=5', '/admin/accounts?q=[REDACTED]&limit=5'],
      ['/admin/accounts?Q=ada&limit=5', '/admin/accounts?Q=[REDACTED]&limit=5'],
      ['/x?next=a@b.test&guest_secret=G&x-api-secret=A', '/x?next=[REDACTED]&guest_secret=[REDACTED]&x-api-secret=[REDACTED]'],
      ['/users/a%40b.test/profile?x=1', '/users/[REDACTED]/profile?x=1'],
      ['/users/ada@b.test', '/users/[REDACTED]'],
      ['/oauth/callback?code=C&state=s', '/oauth/callback?code=[REDACTED]&state=s'],
    ];
    for (const [url, want] of cases) assert.equal(redactUrl(url), want, url);
  });
});

describe('log fields redacted by class', () => {
  it('every credential, one-time code and address is censored at any depth and spelling; codes of errors and ids stay', async () => {
    const { default: pino } = await import('pino');
    const { loggerOptions } = await import('../src/logger.js');
    const out: string[] = [];
    const log = pino(loggerOptions('test', 'info'), { write: (s: string) => void out.push(s) });
    log.info(
      {
        clientKey: 'GAME-SECRET-1',
        nested: { 'X-Api-Secret': 'GAME-SECRET-2', guestSecret: 'GUEST-SECRET', deep: [{ user_code: 'WDJB-MJHT' }, { Email: 'victim@example.test' }] },
        body: { Password: 'hunter2', refreshToken: 'RT', idempotency: 'keep-me' },
        code: 'validation_failed',
        accountId: '7d7c8f1c-0000-4000-8000-000000000001',
      },
      'something happened',
    );
    const line = out.join('');
    for (const secret of ['GAME-SECRET-1', 'GAME-SECRET-2', 'GUEST-SECRET', 'WDJB-MJHT', 'victim@example.test', 'hunter2', '"RT"']) {
      assert.ok(!line.includes(secret), `${secret} was logged: ${line}`);
    }
    const parsed = JSON.parse(line);
    assert.equal(parsed.code, 'validation_failed');
    assert.equal(parsed.accountId, '7d7c8f1c-0000-4000-8000-000000000001');
    assert.equal(parsed.body.idempotency, 'keep-me');
    assert.equal(parsed.clientKey, '[REDACTED]');
  });
});

describe('per-request logger (made lazily)', () => {
  it('writes nothing below the level, and writes enabled lines with the request bindings', async () => {
    const { default: pino } = await import('pino');
    const { LazyChildLogger } = await import('../src/logger.js');
    const out: string[] = [];
    const parent = pino({ level: 'warn' }, { write: (s: string) => void out.push(s) });
    const quiet = new LazyChildLogger(parent, { requestId: 'r-1' }, {});
    quiet.info('not written');
    quiet.debug('not written');
    assert.equal(out.length, 0);
    assert.equal(quiet.isLevelEnabled('info'), false);
    assert.equal(quiet.isLevelEnabled('error'), true);
    quiet.error({ code: 'x' }, 'written');
    assert.equal(out.length, 1);
    assert.deepEqual([JSON.parse(out[0]).requestId, JSON.parse(out[0]).msg], ['r-1', 'written']);
    // A route's own level (Fastify's logLevel) opens lower levels for its requests.
    const verbose = new LazyChildLogger(parent, { requestId: 'r-2' }, { level: 'debug' });
    verbose.debug('route debug');
    assert.equal(JSON.parse(out[1]).requestId, 'r-2');
    assert.equal(verbose.level, 'debug');
  });
});
