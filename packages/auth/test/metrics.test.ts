// Auth's metrics, scraped over HTTP from the metrics listener after real traffic over HTTP, parsed as Prometheus
// text: requests by route pattern, a rate-limited login, a lockout and a locked-out attempt, the outbox backlog
// and a failed delivery, the signing keys' state; no /metrics on the public listener.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { serveMetrics, type MetricsEndpoint } from '@platform/kit';
import { scrapeMetrics } from '@platform/kit/testing';
import { email, GOOD_PASSWORD, harness, type Harness, assertError } from './support/harness.js';

/** A port nothing listens on (an outbox target that refuses connections). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('auth metrics', () => {
  let h: Harness;
  let base: string;
  let endpoint: MetricsEndpoint;
  const call = async (method: string, url: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const r = await fetch(base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: (text ? JSON.parse(text) : undefined) as any };
  };

  before(async () => {
    h = await harness({
      AUTH_LOCKOUT_THRESHOLD: '2',
      AUTH_RATE_LOGIN_PER_IP_EMAIL: '5',
      AUTH_OUTBOX_TARGETS: `http://127.0.0.1:${await closedPort()}/v1/internal/auth-events`,
      AUTH_OUTBOX_POLL_MS: '60000',
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
    endpoint = (await serveMetrics(h.app, { metricsPort: 0, metricsHost: '127.0.0.1' }))!;
  });
  after(() => h.close());

  it('counts requests, refused limits, lockouts, outbox attempts and reads the backlog and the keys', async () => {
    const victim = email();
    const reg = await call('POST', '/register', { email: victim, password: GOOD_PASSWORD });
    assert.equal(reg.status, 201);
    // Two wrong passwords lock the source out; the next two attempts are refused as locked (423); the fifth
    // is over the per-address-and-email limit (429; the sign-up counted too).
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call('POST', '/login', { email: victim, password: 'not the password 1' })).status);
    assert.deepEqual(statuses, [401, 401, 423, 423, 429]);
    assert.equal((await call('GET', `/no/such/${reg.body.access_token}`)).status, 404);
    assert.equal((await call('GET', '/.well-known/jwks.json')).status, 200);
    // A deletion writes two notices (account.deleted, and the revocation of its sessions); their delivery to a
    // target that refuses connections fails and stays pending.
    const other = await call('POST', '/register', { email: email(), password: GOOD_PASSWORD });
    assert.equal((await call('DELETE', '/account', undefined, other.body.access_token)).status, 202);
    await h.app.auth.outbox.runOnce();

    const m = await scrapeMetrics(endpoint.url);
    assert.equal(m.status, 200);
    const requests = (method: string, route: string, status: string) => m.value('auth_http_requests_total', { method, route, status });
    assert.equal(requests('POST', '/login', '401'), 2);
    assert.equal(requests('POST', '/login', '423'), 2);
    assert.equal(requests('POST', '/login', '429'), 1);
    assert.equal(requests('GET', 'unmatched', '404'), 1);
    assert.equal(requests('GET', '/.well-known/jwks.json', '200'), 1);
    assert.equal(m.value('auth_rate_limited_total', { limit: 'login:ip_email' }), 1);
    assert.equal(m.value('auth_lockouts_total'), 1);
    assert.equal(m.value('auth_locked_out_attempts_total'), 2);
    assert.equal(m.value('auth_outbox_delivery_attempts_total', { result: 'failed' }), 2);
    assert.equal(m.value('auth_outbox_pending_notices'), 2);
    assert.equal(m.value('auth_outbox_pending_deliveries'), 2);
    assert.equal(m.value('auth_outbox_failing_deliveries'), 2);
    assert.ok(m.value('auth_outbox_oldest_pending_age_seconds')! >= 0);
    assert.equal(m.value('auth_signing_keys', { state: 'active' }), 1);
    assert.ok(m.value('auth_signing_keys_published')! >= 1);
    assert.ok(m.value('auth_signing_key_active_age_seconds')! >= 0);
    assert.equal(m.value('auth_signing_key_next_activation_seconds'), undefined);
    assert.equal(m.value('auth_db_pool_waiting'), 0);
    // No token, email or address in the text.
    const text = await (await fetch(endpoint.url)).text();
    for (const secret of [victim, reg.body.access_token, reg.body.refresh_token]) assert.ok(!text.includes(secret));
  });

  it('has no /metrics on its public listener', async () => {
    assertError(await call('GET', '/metrics'), 404, 'route_not_found');
  });
});
