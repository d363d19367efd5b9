// The web console's files at /console (routes/console.ts, docs/console.md): the page with its CSP and security
// headers, the script and stylesheet, config.json from the REGISTRY_CONSOLE_* settings, and nothing else: unknown
// names, encoded paths and traversal attempts are 404 route_not_found, other methods are refused, and
// REGISTRY_CONSOLE=off removes the route.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { captureLogs } from '@platform/kit/testing';
import { DEFAULT_CONSOLE_DIR, readRegistryConfig } from '../src/config.js';
import { useHarness } from './helpers.js';

describe('registry: /console', () => {
  const h = useHarness({ consoleAuthUrl: 'https://auth.example.test:8443/', consoleSocialUrl: 'https://social.example.test', consoleIdleMinutes: 7 });

  const get = (url: string, method: 'GET' | 'HEAD' = 'GET') => h.app.inject({ method, url });

  it('serves the page at /console and /console/ with a strict CSP and no caching', async () => {
    for (const url of ['/console', '/console/', '/console/index.html']) {
      const r = await get(url);
      assert.equal(r.statusCode, 200, url);
      assert.match(r.headers['content-type'] as string, /^text\/html; charset=utf-8/);
      assert.match(r.body, /<script type="module" src="\/console\/console.js"><\/script>/);
      assert.equal(
        r.headers['content-security-policy'],
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://auth.example.test:8443 https://social.example.test; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.equal(r.headers['cache-control'], 'no-store');
      assert.equal(r.headers['set-cookie'], undefined);
    }
  });

  it('serves the bundle (the SDK inside, no Node built-in), the stylesheet and config.json', async () => {
    const js = await get('/console/console.js');
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['content-type'] as string, /^text\/javascript/);
    assert.ok(js.headers['content-security-policy']);
    assert.match(js.body, /\/v1\/moderation\/reports/, 'the SDK is bundled');
    assert.doesNotMatch(js.body, /from"node:|require\("node:/);
    assert.doesNotMatch(js.body, /localStorage|sessionStorage|document\.cookie/, 'the console never touches browser storage');
    const css = await get('/console/style.css');
    assert.equal(css.statusCode, 200);
    assert.match(css.headers['content-type'] as string, /^text\/css/);
    const config = await get('/console/config.json');
    assert.equal(config.statusCode, 200);
    assert.deepEqual(config.json(), { authUrl: 'https://auth.example.test:8443/', socialUrl: 'https://social.example.test', idleMinutes: 7 });
    const head = await get('/console/console.js', 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('answers 404 route_not_found for every other name, encoded paths and traversal attempts', async () => {
    for (const url of [
      '/console/nope.js',
      '/console/app/main.ts',
      '/console/../package.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/..%2F..%2Fpackage.json',
      '/console/%2e%2e%2fsrc%2findex.ts',
      '/console/web/index.html',
      '/console/INDEX.HTML',
      '/console/%00',
      '/console/console.js%00.png',
      '/console//etc/passwd',
      '/console/%252e%252e/package.json',
    ]) {
      const r = await get(url);
      if (r.statusCode === 400) {
        assert.ok(r.json().Code, url); // a path the HTTP layer refuses outright
        continue;
      }
      assert.equal(r.statusCode, 404, url);
      assert.equal(r.json().Code, 'route_not_found', url);
      assert.doesNotMatch(r.body, /"name"|import |<html/, url);
    }
    // An encoded spelling of a real name is the same name (the router decodes): served as the plain one.
    const encoded = await get('/console/%63onsole.js');
    assert.equal(encoded.statusCode, 200);
    // A trailing slash is ignored, as on every route of the service.
    assert.equal((await get('/console/index.html/')).statusCode, 200);
  });

  it('takes no other method and no credentials', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const r = await h.app.inject({ method, url: '/console/index.html', payload: {} });
      assert.equal(r.statusCode, 404, method);
    }
    const withBearer = await h.app.inject({ method: 'GET', url: '/console/', headers: { authorization: 'Bearer forged' } });
    assert.equal(withBearer.statusCode, 200, 'the files are public; a stray header changes nothing');
  });

  it('is absent from the OpenAPI document', async () => {
    const doc = (await get('/openapi.json')).json() as { paths: Record<string, unknown> };
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/console')), []);
  });

  it('REGISTRY_CONSOLE=off: no /console at all', async () => {
    const off = await h.build({ consoleEnabled: false });
    assert.equal((await off.inject({ method: 'GET', url: '/console/' })).statusCode, 404);
  });

  it('serves the files of REGISTRY_CONSOLE_DIR; without a built console there, says so once and answers 503 console_unavailable', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'registry-console-'));
    try {
      const logs = captureLogs();
      const missing = path.join(dir, 'public');
      const node = await h.build({ consoleDir: missing, logLevel: 'info' }, { logStream: logs.stream });
      for (const url of ['/console/', '/console/console.js', '/console/config.json', '/console/nope.js']) {
        const r = await node.inject({ method: 'GET', url });
        assert.equal(r.statusCode, 503, url);
        assert.equal(r.json().Code, 'console_unavailable', url);
      }
      const said = logs.lines().filter((l) => /console is not built/.test(l.msg ?? ''));
      assert.equal(said.length, 1, 'said once');
      assert.equal(said[0].consoleDir, missing);
      // Built meanwhile (here: copied from the default directory): served without a restart.
      cpSync(DEFAULT_CONSOLE_DIR, missing, { recursive: true });
      const page = await node.inject({ method: 'GET', url: '/console/' });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<script type="module" src="\/console\/console.js"><\/script>/);
      assert.equal((await node.inject({ method: 'GET', url: '/console/nope.js' })).json().Code, 'route_not_found');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('REGISTRY_CONSOLE_ENABLED turns it off; REGISTRY_CONSOLE, its older name, still does', () => {
    assert.equal(readRegistryConfig({}).consoleEnabled, true);
    assert.equal(readRegistryConfig({ REGISTRY_CONSOLE_ENABLED: 'off' }).consoleEnabled, false);
    assert.equal(readRegistryConfig({ REGISTRY_CONSOLE: 'off' }).consoleEnabled, false);
    assert.equal(readRegistryConfig({ REGISTRY_CONSOLE: 'off', REGISTRY_CONSOLE_ENABLED: 'on' }).consoleEnabled, true);
  });
});
