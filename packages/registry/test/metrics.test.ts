// The registry's metrics, scraped over HTTP from the metrics listener after real traffic over HTTP, parsed as
// Prometheus text: requests by route pattern, key validations, module admissions and rejections, refused
// sign-ins, the counts of developers, games and builds; no /metrics on the public listener.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveMetrics, type MetricsEndpoint } from '@platform/kit';
import { scrapeMetrics } from '@platform/kit/testing';
import { startRegistry } from '../src/index.js';
import { bearer, harness, type Harness, assertError } from './helpers.js';
import { allowedWat, forbiddenWat, wat2wasm } from './wasm.js';

describe('registry metrics', () => {
  let h: Harness;
  let base: string;
  let endpoint: MetricsEndpoint;
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(base + url, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };

  before(async () => {
    h = await harness({ rateLoginPerIpEmail: 2 });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
    endpoint = (await serveMetrics(h.app, { metricsPort: 0, metricsHost: '127.0.0.1' }))!;
  });
  after(() => h.drop());

  it('counts requests, key validations, module admissions and rejections, and refused sign-ins', async () => {
    const email = `metrics.${Date.now()}@example.test`;
    const dev = await call('POST', '/developers/register', { Email: email, Password: 'correct horse battery', DisplayName: 'Dev' });
    assert.equal(dev.status, 201);
    const auth = bearer(dev.body.Token);
    const game = await call('POST', '/games', { DisplayName: 'Metrics' }, auth);
    assert.equal(game.status, 201);
    const { GameId, ApiKey, ClientKey } = game.body.Game;
    assert.equal((await call('GET', `/games/${GameId}`, undefined, auth)).status, 200);
    assert.equal((await call('GET', '/games/00000000-0000-4000-8000-000000000000', undefined, auth)).status, 404);
    assert.equal((await call('GET', `/no/such/${ApiKey}`)).status, 404);
    assert.equal((await call('POST', '/auth/validate-key', { ApiKey, ApiSecret: game.body.ApiSecret })).status, 200);
    assert.equal((await call('POST', '/auth/validate-key', { ApiKey, ApiSecret: 'wrong' })).status, 401);
    assert.equal((await call('POST', '/auth/validate-client-key', { ClientKey })).status, 200);
    const module = (bytes: Buffer, Version: string) => call('POST', `/games/${GameId}/modules`, { Packaging: 'wasm', Version, WasmBase64: bytes.toString('base64') }, auth);
    assert.equal((await module(wat2wasm(allowedWat), '1.0.0')).status, 201);
    assert.equal((await module(wat2wasm(forbiddenWat), '2.0.0')).body.Code, 'imports_not_allowed');
    assert.equal((await call('POST', `/games/${GameId}/modules`, { Packaging: 'native', Version: '3.0.0' }, auth)).status, 201);
    // Two sign-ins per address and email, then refused.
    for (let i = 0; i < 3; i++) await call('POST', '/developers/login', { Email: email, Password: 'wrong password!!' });

    const m = await scrapeMetrics(endpoint.url);
    assert.equal(m.status, 200);
    const requests = (route: string, status: string, method = 'GET') => m.value('registry_http_requests_total', { method, route, status });
    assert.equal(requests('/games/:gameId', '200'), 1);
    assert.equal(requests('/games/:gameId', '404'), 1);
    assert.equal(requests('unmatched', '404'), 1);
    assert.equal(requests('/games', '201', 'POST'), 1);
    assert.equal(requests('/developers/login', '429', 'POST'), 1);
    assert.equal(m.value('registry_key_validations_total', { kind: 'api_key', result: 'valid' }), 1);
    assert.equal(m.value('registry_key_validations_total', { kind: 'api_key', result: 'invalid' }), 1);
    assert.equal(m.value('registry_key_validations_total', { kind: 'client_key', result: 'valid' }), 1);
    assert.equal(m.value('registry_module_uploads_total', { packaging: 'wasm', result: 'admitted' }), 1);
    assert.equal(m.value('registry_module_uploads_total', { packaging: 'wasm', result: 'rejected', reason: 'imports_not_allowed' }), 1);
    assert.equal(m.value('registry_module_uploads_total', { packaging: 'native', result: 'admitted' }), 1);
    assert.equal(m.value('registry_rate_limited_total', { limit: 'login:ip-email' }), 1);
    // The seeded super-admin and the developer; one game; two stored builds.
    assert.equal(m.value('registry_developers'), 2);
    assert.equal(m.value('registry_games'), 1);
    assert.equal(m.value('registry_module_builds'), 2);
    assert.equal(m.value('registry_db_pool_waiting'), 0);
    assert.ok(m.value('registry_process_resident_memory_bytes')! > 0);
    // Nothing secret in any label: no key, token or email.
    const text = await (await fetch(endpoint.url)).text();
    for (const secret of [ApiKey, ClientKey, dev.body.Token, email, GameId]) assert.ok(!text.includes(secret));
  });

  it('has no /metrics on its public listener', async () => {
    assertError(await call('GET', '/metrics'), 404, 'route_not_found');
  });

  it('opens the metrics listener from REGISTRY_METRICS_PORT when started', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'reg-metrics-'));
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', REGISTRY_ADMIN_PASSWORD: 'metrics password', DATABASE_URL: '', REDIS_URL: '', REGISTRY_METRICS_PORT: '0' };
    const running = await startRegistry(env, { port: 0, handleSignals: false });
    try {
      assert.match(running.metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const m = await scrapeMetrics(running.metricsUrl!);
      assert.equal(m.value('registry_db_pool_max_connections', { backend: 'pglite' }), 1);
      assert.equal(m.value('registry_developers'), 1);
    } finally {
      await running.close();
    }
    await assert.rejects(fetch(running.metricsUrl!));
  });
});
