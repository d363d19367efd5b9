// Social's metrics, scraped over HTTP from the metrics listener after real traffic (HTTP and a WebSocket),
// parsed as Prometheus text: requests by route pattern, open sockets, events delivered and dropped, a refused
// per-user limit, the replay counters (zero until the replay work counts); no /metrics on the public listener.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveMetrics, type MetricsEndpoint } from '@platform/kit';
import { scrapeMetrics, assertError } from '@platform/kit/testing';
import { randomUUID } from 'node:crypto';
import { FANOUT_CHANNEL, userChannel } from '../src/index.js';
import { startHarness, type Harness, type TestUser } from './support.js';
import { connect, listen, type Client } from './realtime/support.js';

describe('social metrics', () => {
  let h: Harness;
  let url: { ws: string; http: string };
  let endpoint: MetricsEndpoint;
  const call = async (u: TestUser | null, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (u) headers.authorization = `Bearer ${u.token}`;
    const r = await fetch(url.http + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: (text ? JSON.parse(text) : undefined) as any };
  };

  before(async () => {
    h = await startHarness({ SOCIAL__LIMITS__SEARCHESPERMINUTE: '1' });
    url = await listen(h.app);
    endpoint = (await serveMetrics(h.app, { metricsPort: 0, metricsHost: '127.0.0.1' }))!;
  });
  after(() => h.close());

  it('counts requests, open sockets, events delivered and dropped, refused limits', async () => {
    const [a, b] = await h.users('Ada', 'Bob');
    const socket: Client = await connect(url.ws, b.token);
    try {
      socket.send({ type: 'heartbeat' });
      await socket.next('heartbeatAck');
      assert.equal((await call(a, 'POST', '/v1/friends/requests', { toPublicId: b.publicId })).status, 201);
      await socket.next('friendRequestReceived');
      // A message on the user's channel that is not an event: dropped as unreadable.
      await h.state.state.publish(userChannel(b.id), 'not an event');
      // A fan-out message for a user with no socket on this node: heard, needed by no one here.
      await h.state.state.publish(FANOUT_CHANNEL, JSON.stringify({ type: 'friendProfileChanged', groups: [{ data: {}, userIds: [randomUUID()] }] }));
      await socket.sync(h, b.id);
      assert.equal((await call(a, 'GET', '/v1/users/search?handle=Bo')).status, 200);
      assert.equal((await call(a, 'GET', '/v1/users/search?handle=Bo')).status, 429);
      assert.equal((await call(a, 'GET', `/v1/no/such/${b.publicId}`)).status, 404);

      const m = await scrapeMetrics(endpoint.url);
      assert.equal(m.status, 200);
      assert.equal(m.value('social_ws_open_sockets'), 1);
      assert.ok(m.value('social_ws_subscribed_channels')! >= 1);
      assert.ok(m.value('social_events_delivered_total')! >= 1);
      assert.equal(m.value('social_events_dropped_total', { reason: 'unreadable' }), 1);
      // Heard from the store: b's channel (a socket here), the fan-out message (none).
      assert.ok(m.value('social_bus_messages_total', { channel: 'event', local: 'yes' })! >= 1);
      assert.equal(m.value('social_bus_messages_total', { channel: 'fanout', local: 'no' }), 1);
      assert.equal(m.value('social_rate_limited_total', { limit: 'search' }), 1);
      assert.equal(m.value('social_http_requests_total', { method: 'POST', route: '/v1/friends/requests', status: '201' }), 1);
      assert.equal(m.value('social_http_requests_total', { method: 'GET', route: '/v1/users/search', status: '429' }), 1);
      assert.equal(m.value('social_http_requests_total', { route: 'unmatched', status: '404' }), 1);
      // Defined now, counted by the replay work.
      assert.equal(m.value('social_replayed_events_total'), 0);
      assert.equal(m.value('social_resyncs_total'), 0);
      assert.equal(m.value('social_db_pool_waiting'), 0);
      const text = await (await fetch(endpoint.url)).text();
      for (const secret of [a.token, b.publicId, b.id, 'handle=Bo']) assert.ok(!text.includes(secret));
    } finally {
      await socket.close();
    }
    // The node forgets the socket once its side of the close is done.
    let open: number | undefined;
    for (let i = 0; i < 50 && open !== 0; i++) {
      open = (await scrapeMetrics(endpoint.url)).value('social_ws_open_sockets');
      if (open !== 0) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(open, 0);
  });

  it('has no /metrics on its public listener', async () => {
    assertError(await call(null, 'GET', '/metrics'), 404, 'route_not_found');
  });
});
