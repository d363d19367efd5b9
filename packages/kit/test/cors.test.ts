// CORS through @fastify/cors: allowed origins by policy, preflights without credentials, errors readable
// by the page, refused origins logged once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, corsPolicy, createService, originAllowed, unauthorized } from '../src/index.js';
import { captureLogs } from '../src/testing.js';

async function build(cors: { corsAllowedOrigins?: string; databaseUrl?: string }) {
  const logs = captureLogs();
  const app = await createService({ name: 'demo', fieldCase: 'camel', logStream: logs.stream, cors });
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.access !== 'public' && req.headers.authorization !== 'Bearer good') throw unauthorized('unauthorized', 'no');
  });
  app.get('/v1/me', async () => ({ ok: true }));
  await app.ready();
  return { app, logs };
}

const preflight = (origin: string, url = '/v1/me') => ({
  method: 'OPTIONS' as const,
  url,
  headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,content-type' },
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin without credentials, before authentication', async () => {
    const { app } = await build({ corsAllowedOrigins: 'https://game.example, http://localhost:5173' });
    const r = await app.inject(preflight('https://game.example'));
    assert.equal(r.statusCode, 204);
    assert.equal(r.headers['access-control-allow-origin'], 'https://game.example');
    assert.match(String(r.headers['access-control-allow-headers']), /authorization/);
    // A browser game sends its client key, and the SDK an Idempotency-Key.
    for (const h of ['x-platform-client-key', 'idempotency-key']) assert.ok(String(r.headers['access-control-allow-headers']).split(/,\s*/).includes(h), h);
    assert.match(String(r.headers['access-control-allow-methods']), /PATCH/);
    assert.equal(r.headers['access-control-allow-credentials'], undefined);
    // An error the page must read (401) carries the CORS headers and exposes the request id and Retry-After.
    const denied = await app.inject({ method: 'GET', url: '/v1/me', headers: { origin: 'https://game.example' } });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.headers['access-control-allow-origin'], 'https://game.example');
    assert.match(String(denied.headers['access-control-expose-headers']), /x-request-id/);
    assert.match(String(denied.headers['access-control-expose-headers']), /retry-after/);
    await app.close();
  });

  it('gives a refused origin no CORS headers and logs it once', async () => {
    const { app, logs } = await build({ corsAllowedOrigins: 'https://game.example' });
    for (let i = 0; i < 3; i++) {
      const r = await app.inject(preflight('https://evil.example'));
      assert.equal(r.headers['access-control-allow-origin'], undefined);
      const g = await app.inject({ method: 'GET', url: '/v1/me', headers: { origin: 'https://evil.example', authorization: 'Bearer good' } });
      assert.equal(g.headers['access-control-allow-origin'], undefined);
    }
    const lines = logs.lines().filter((l) => /CORS: origin not allowed/.test(l.msg));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].origin, 'https://evil.example');
    await app.close();
  });

  it('allows localhost origins when embedded, none in production unless listed, any only with an explicit *', async () => {
    const embedded = corsPolicy({});
    assert.ok(originAllowed(embedded, 'http://localhost:8080'));
    assert.ok(originAllowed(embedded, 'http://127.0.0.1:5173'));
    assert.ok(!originAllowed(embedded, 'http://localhost.evil.example'));
    assert.ok(!originAllowed(embedded, 'https://game.example'));
    const production = corsPolicy({ databaseUrl: 'postgres://x/y' });
    assert.ok(!originAllowed(production, 'http://localhost:8080'));
    assert.ok(originAllowed(corsPolicy({ corsAllowedOrigins: '*', databaseUrl: 'postgres://x/y' }), 'https://any.example'));
    for (const bad of ['game.example', 'https://game.example/path', 'ftp://', 'https://a.example,not an origin']) {
      assert.throws(() => corsPolicy({ corsAllowedOrigins: bad }), ConfigError, bad);
    }
    const { app } = await build({});
    assert.equal((await app.inject(preflight('http://localhost:3000'))).headers['access-control-allow-origin'], 'http://localhost:3000');
    await app.close();
  });
});
