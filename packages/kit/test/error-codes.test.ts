// The error-code list mechanism: typed fail/factory with the listed status, list checks, OpenAPI responses,
// and the kit's own answers using only codes from its list.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { AppError, createService, defineErrorCodes, errorSchema, kitErrorCodes, type App } from '../src/index.js';
import { captureLogs } from '../src/testing.js';

const demo = kitErrorCodes.extend({
  thing_not_found: { status: 404, description: 'No such thing' },
  thing_exists: 409,
  thing_locked: { status: 409, description: 'Locked by another user' },
});

describe('defineErrorCodes', () => {
  it('builds the AppError of a code with its listed status, details, headers and cause', () => {
    const cause = new Error('inner');
    const e = demo.fail('thing_exists', 'It exists', { Name: 'a' }, { headers: { 'retry-after': '2' }, cause });
    assert.ok(e instanceof AppError);
    assert.deepEqual([e.status, e.code, e.message, e.details, e.headers, e.cause], [409, 'thing_exists', 'It exists', { Name: 'a' }, { 'retry-after': '2' }, cause]);
    assert.equal(demo.fail('validation_failed', 'bad').status, 400, 'a kit code stays in an extended list');
    // @ts-expect-error an unlisted code does not type-check ...
    assert.throws(() => demo.fail('thing_gone', 'x'), /not in the list/); // ... and fails loudly if forced
  });

  it('makes per-code factories with a default message', () => {
    const notFound = demo.factory('thing_not_found', 'No such thing');
    assert.deepEqual([notFound().status, notFound().message, notFound('Nope', { Id: 1 }).details], [404, 'No such thing', { Id: 1 }]);
    // @ts-expect-error
    assert.throws(() => demo.factory('nope', 'x'));
  });

  it('knows its codes and their statuses', () => {
    assert.equal(demo.status('thing_locked'), 409);
    assert.ok(demo.has('route_not_found') && demo.has('thing_exists'));
    assert.equal(demo.has('thing_gone'), false);
    assert.deepEqual(demo.entries.at(-1), { code: 'thing_locked', status: 409, description: 'Locked by another user' });
  });

  it('refuses a list with a non-snake_case code, a non-error status or a code listed with two statuses', () => {
    assert.throws(() => defineErrorCodes({ UserNotFound: 404 }), /snake_case/);
    assert.throws(() => defineErrorCodes({ ok_thing: 200 }), /4xx or 5xx/);
    assert.throws(() => defineErrorCodes({ odd: 404.5 }), /4xx or 5xx/);
    assert.throws(() => kitErrorCodes.extend({ validation_failed: 422 }), /status 400 and 422/);
    assert.equal(kitErrorCodes.extend({ validation_failed: 400 }).status('validation_failed'), 400);
  });
});

describe('error codes in OpenAPI and in the kit’s own answers', () => {
  let app: App;
  before(async () => {
    app = await createService({ name: 'codes-demo', fieldCase: 'pascal', logStream: captureLogs().stream, bodyLimit: 64 });
    app.post(
      '/things/:id',
      {
        schema: {
          params: Type.Object({ id: Type.Integer() }),
          body: Type.Object({ Name: Type.String() }, { additionalProperties: false }),
          response: { 200: Type.Object({ Name: Type.String() }), ...demo.responses('pascal', ['thing_not_found', 'thing_exists', 'thing_locked', 'validation_failed']) },
        },
      },
      async (req) => {
        if (req.params.id === 0) throw demo.fail('thing_not_found', 'No thing 0');
        if (req.params.id === 1) throw demo.fail('thing_locked', 'Locked', { Holder: 'x' });
        return req.body;
      },
    );
    app.get('/boom', async () => {
      throw new Error('bug');
    });
    await app.ready();
  });
  after(() => app.close());

  it('documents one response per status, the codes of that status as its enum and description', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const responses = doc.paths['/things/{id}'].post.responses;
    assert.deepEqual(Object.keys(responses).sort(), ['200', '400', '404', '409']);
    const conflictSchema = responses['409'].content['application/json'].schema;
    assert.deepEqual(conflictSchema.properties.Code.enum, ['thing_exists', 'thing_locked']);
    assert.equal(responses['409'].description, 'thing_exists; thing_locked: Locked by another user');
    assert.deepEqual(responses['404'].content['application/json'].schema.properties.Code.enum, ['thing_not_found']);
    assert.deepEqual(responses['400'].content['application/json'].schema.properties.Code.enum, ['validation_failed']);
  });

  it('serializes a listed error with its status and details through the response schema', async () => {
    const r = await app.inject({ method: 'POST', url: '/things/1', payload: { Name: 'a' } });
    assert.equal(r.statusCode, 409);
    const { RequestId, ...body } = r.json() as Record<string, unknown>;
    assert.equal(typeof RequestId, 'string');
    assert.deepEqual(body, { Code: 'thing_locked', Message: 'Locked', Holder: 'x' });
    assert.equal((await app.inject({ method: 'POST', url: '/things/0', payload: { Name: 'a' } })).statusCode, 404);
  });

  it('answers its own errors with codes of kitErrorCodes at their listed status', async () => {
    const cases = [
      app.inject({ method: 'POST', url: '/things/2', payload: { Name: 'a', Extra: 1 } }),
      app.inject({ method: 'POST', url: '/things/2', headers: { 'content-type': 'application/json' }, payload: '{"Name":' }),
      app.inject({ method: 'POST', url: '/things/2', payload: { Name: 'a'.repeat(100) } }),
      app.inject({ method: 'POST', url: '/things/2', headers: { 'content-type': 'text/csv' }, payload: 'a,b' }),
      app.inject({ method: 'POST', url: '/things/2', payload: { Name: 'a\u0000' } }),
      app.inject({ method: 'GET', url: '/nowhere' }),
      app.inject({ method: 'GET', url: '/boom' }),
    ];
    const seen = (await Promise.all(cases)).map((r): [number, string] => [r.statusCode, r.json().Code]);
    assert.deepEqual(seen, [
      [400, 'validation_failed'],
      [400, 'malformed_json'],
      [413, 'payload_too_large'],
      [415, 'unsupported_media_type'],
      [400, 'invalid_character'],
      [404, 'route_not_found'],
      [500, 'internal_error'],
    ]);
    for (const [status, code] of seen) assert.ok(kitErrorCodes.has(code) && kitErrorCodes.status(code) === status, code);
  });
});

describe('a service given its error-code list (createService errorCodes)', () => {
  let app: App;
  const logs = captureLogs();
  before(async () => {
    // The response contract check (on in tests) would turn the unlisted code below into a 500: this test is
    // about the log line of a service where it is off, as in production.
    const check = process.env.PLATFORM_CHECK_RESPONSES;
    delete process.env.PLATFORM_CHECK_RESPONSES;
    app = await createService({ name: 'listed-demo', fieldCase: 'snake', errorCodes: demo, logStream: logs.stream });
    if (check !== undefined) process.env.PLATFORM_CHECK_RESPONSES = check;
    const ErrorBody = errorSchema('snake');
    app.get('/things/:id', { schema: { params: Type.Object({ id: Type.Integer() }), response: { 200: Type.Object({ id: Type.Integer() }), 404: ErrorBody, 409: ErrorBody, 418: ErrorBody } } }, async (req) => {
      if (req.params.id === 0) throw demo.fail('thing_not_found', 'No thing 0');
      if (req.params.id === 1) throw new AppError(409, 'thing_unlisted', 'Not in the list');
      return { id: req.params.id };
    });
    await app.ready();
  });
  after(() => app.close());

  it('documents each generic error response with the listed codes of its status; a status with none keeps the generic body', async () => {
    const responses = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().paths['/things/{id}'].get.responses;
    assert.deepEqual(responses['404'].content['application/json'].schema.properties.code.enum, ['route_not_found', 'thing_not_found']);
    assert.deepEqual(responses['409'].content['application/json'].schema.properties.code.enum, ['thing_exists', 'thing_locked']);
    assert.equal(responses['418'].content['application/json'].schema.properties.code.enum, undefined);
  });

  it('answers a listed code as thrown, and logs an unlisted one as a bug while still answering it', async () => {
    const listed = await app.inject({ method: 'GET', url: '/things/0' });
    assert.deepEqual([listed.statusCode, listed.json().code], [404, 'thing_not_found']);
    assert.equal(logs.lines().filter((l) => /not in the service list/.test(l.msg as string)).length, 0);
    const unlisted = await app.inject({ method: 'GET', url: '/things/1' });
    assert.deepEqual([unlisted.statusCode, unlisted.json().code], [409, 'thing_unlisted']);
    const bug = logs.lines().filter((l) => /not in the service list/.test(l.msg as string));
    assert.deepEqual(bug.map((l) => [l.level, l.code]), [[50, 'thing_unlisted']]);
  });
});
