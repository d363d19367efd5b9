// Headers and refusals every service shares (docs/decisions/0006-security-headers.md): nosniff on
// every answer, HTML never framed and without referrer, and a path Fastify cannot route (malformed percent-encoding,
// overlong UTF-8, a backslash) answered in the house error format over a real socket, not Fastify's own body.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createService, type App } from '../src/index.js';

/** One raw HTTP/1.1 request (the path exactly as written, no client normalising it); status line, headers and body. */
function raw(port: number, path: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    let data = '';
    s.setEncoding('latin1');
    s.on('data', (d) => (data += d));
    s.on('error', reject);
    s.on('end', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: rest.join('\r\n\r\n') });
    });
  });
}

for (const fieldCase of ['snake', 'pascal'] as const) {
  describe(`security headers and unroutable paths (${fieldCase})`, () => {
    let app: App;
    let port: number;
    const f = (n: string) => (fieldCase === 'pascal' ? n[0].toUpperCase() + n.slice(1) : n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
    before(async () => {
      app = await createService({ name: 'demo', fieldCase, logLevel: 'silent' });
      app.get('/page', { config: { access: 'public' } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send('<!doctype html><p>hi</p>'));
      app.get('/page-with-csp', { config: { access: 'public' } }, async (_req, reply) =>
        reply.type('text/html').header('content-security-policy', "default-src 'self'").send('<p>x</p>'),
      );
      app.get('/things/:id', { config: { access: 'public' } }, async (req) => ({ id: (req.params as { id: string }).id }));
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as net.AddressInfo).port;
    });
    after(() => app.close());

    it('every answer is nosniff; HTML pages are never framed and send no referrer (a CSP of their own gains frame-ancestors)', async () => {
      const json = await app.inject({ url: '/things/1' });
      assert.equal(json.headers['x-content-type-options'], 'nosniff');
      assert.equal(json.headers['x-frame-options'], undefined);
      const page = await app.inject({ url: '/page' });
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.equal(page.headers['content-security-policy'], "frame-ancestors 'none'");
      const own = await app.inject({ url: '/page-with-csp' });
      assert.equal(own.headers['content-security-policy'], "default-src 'self'; frame-ancestors 'none'");
      const docs = await app.inject({ url: '/docs/' });
      assert.equal(docs.headers['x-content-type-options'], 'nosniff');
      if (String(docs.headers['content-type']).startsWith('text/html')) assert.match(String(docs.headers['content-security-policy']), /frame-ancestors/);
      const missing = await app.inject({ url: '/nowhere' });
      assert.equal(missing.headers['x-content-type-options'], 'nosniff');
    });

    it('overlong UTF-8, malformed escapes and backslashes answer 400 or 404 in the house format, never Fastify’s own body', async () => {
      for (const path of ['/%C0%AE%C0%AE/x', '/things/%E0%80%AF', '/%ff', '/things/%C0%AF', '/things/a%', '/a\\b', '/things\\..\\x']) {
        const r = await raw(port, path);
        assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status}`);
        const body = JSON.parse(r.body);
        assert.deepEqual(Object.keys(body).sort(), [f('code'), f('message'), f('requestId')].sort(), `${path}: ${r.body}`);
        assert.ok(['bad_request', 'route_not_found'].includes(body[f('code')]), `${path}: ${r.body}`);
        assert.ok(!r.body.includes('FST_'), path);
        assert.match(r.headers, /x-content-type-options: nosniff/);
        assert.match(r.headers, /x-request-id: [0-9a-f-]{36}/);
      }
    });
  });
}
