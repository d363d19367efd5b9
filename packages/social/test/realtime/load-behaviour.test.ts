// Behaviour under stress (docs/social-realtime.md, "Slow consumers" and "Reconnect storms"): upgrades past
// Social:Realtime:MaxPendingUpgrades are shed with 503 server_busy and Retry-After (in band for a browser), and a
// party member who stops reading is cut at the send-buffer limit (4008) while the others receive everything;
// both counted in the metrics (social_ws_upgrades_shed_total, social_ws_closes_total{code}).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { serveMetrics, type MetricsEndpoint } from '@platform/kit';
import { scrapeMetrics } from '@platform/kit/testing';
import { partyChannel } from '../../src/index.js';
import { useHarness } from '../support.js';
import { BROWSER, connect, listen, refused, type Client, type Rejected } from './support.js';

describe('realtime: load behaviour', () => {
  const h = useHarness({
    SOCIAL_REALTIME_MAX_PENDING_UPGRADES: '1',
    SOCIAL__REALTIME__SENDBUFFERBYTES: '262144',
    SOCIAL__LIMITS__CHATPERMINUTE: '1000',
    // Every upgrade with a client key asks the registry (a real HTTP server here, answering slowly while the storm
    // arrives), so upgrades arriving meanwhile meet the bound.
    SOCIAL_REGISTRY_CACHE_SECONDS: '0',
  });
  let url: { ws: string; http: string };
  let endpoint: MetricsEndpoint;
  const metric = async (name: string, labels?: Record<string, string>) => (await scrapeMetrics(endpoint.url)).value(name, labels) ?? 0;
  before(async () => {
    url = await listen(h.app);
    endpoint = (await serveMetrics(h.app, { metricsPort: 0, metricsHost: '127.0.0.1' }))!;
  });
  after(() => endpoint?.close());

  it('upgrades past the pending bound are refused 503 server_busy with Retry-After, and succeed when retried', async () => {
    const users = await h.users(...Array.from({ length: 30 }, (_, i) => `Storm${i}`));
    const game = h.registry.addGame('isolated');
    // The registry answers slowly: the first upgrade's authentication is still running when the others arrive.
    h.registry.setDelay(300);
    const withKey = (browser: boolean) => ({ headers: { 'x-platform-client-key': game.clientKey, ...(browser ? BROWSER : {}) } });
    const shedBefore = await metric('social_ws_upgrades_shed_total');
    // All at once: one is authenticated at a time here (the bound is 1), the rest arrive meanwhile. Every other
    // one is a browser's handshake (Origin): told in band, 4503 and the error frame.
    const attempts = users.map((u, i) =>
      connect(url.ws, u.token, withKey(i % 2 === 1)).then(
        async (c) => ((await settle(c)) === 'open' ? { open: c } : { shed: c }),
        (err: Rejected) => ({ refused: err }),
      ),
    );
    const outcomes = await Promise.all(attempts);
    h.registry.setDelay(0);
    const open: Client[] = [];
    const retry: number[] = [];
    for (const [i, o] of outcomes.entries()) {
      if ('open' in o && o.open) open.push(o.open);
      else retry.push(i);
    }
    assert.ok(retry.length >= 15, `thirty upgrades at once past a bound of one, while the first waits 300 ms on the registry: most are shed (${retry.length})`);
    // Each refusal is server_busy, told the client's way (HTTP 503, or in band 4503), with a Retry-After of 1 s.
    for (const i of retry) {
      const o = outcomes[i] as { shed?: Client; refused?: Rejected };
      const told = await refused(o.shed ? Promise.resolve(o.shed) : Promise.reject(o.refused), 503, 'server_busy');
      assert.equal(told.retryAfterSeconds, 1);
    }
    assert.equal((await metric('social_ws_upgrades_shed_total')) - shedBefore, retry.length);
    // Retried one after another (as the SDK's jittered Retry-After spreads them), every one is accepted.
    for (const i of retry) {
      const c = await connect(url.ws, users[i]!.token, withKey(false));
      c.send({ type: 'heartbeat' });
      await c.next('heartbeatAck');
      open.push(c);
    }
    assert.equal(open.length, users.length);
    const normalBefore = await metric('social_ws_closes_total', { code: '1000' });
    for (const c of open) {
      c.ws.close(1000);
      await c.closed;
    }
    await waitFor(async () => (await metric('social_ws_closes_total', { code: '1000' })) - normalBefore === open.length, 'closes counted by code');
  });

  it('a party member who stops reading is cut with 4008 at the buffer limit; the others receive every message', async () => {
    const [lead, m1, m2, stalled] = await h.users('Lead', 'Reader1', 'Reader2', 'Stalled');
    const party = await h.party(lead, [m1, m2, stalled], { visibility: 'Public' });
    const sockets = new Map<string, Client>();
    for (const u of [lead, m1, m2, stalled]) {
      const c = await connect(url.ws, u.token);
      c.send({ type: 'heartbeat' });
      await c.next('heartbeatAck');
      sockets.set(u.id, c);
    }
    const readers = [lead, m1, m2].map((u) => sockets.get(u.id)!);
    const slow = sockets.get(stalled.id)!;
    const cutBefore = await metric('social_ws_closes_total', { code: '4008' });
    const droppedBefore = await metric('social_events_dropped_total', { reason: 'slow_consumer' });
    const raw = (slow.ws as unknown as { _socket: Socket })._socket;
    raw.pause();
    // Chat from the lead, between party events of 16 KiB (31 MiB in all: past what the loopback buffers of both ends
    // absorb, so the node's own buffer for the stalled socket passes the 256 KiB set here, while a socket that reads
    // never holds more than a frame or two).
    const big = JSON.stringify({ type: 'partyUpdated', data: { partyId: party.partyId, blob: 'x'.repeat(16 * 1024) } });
    const events = 2000;
    const chats = 20;
    for (let i = 0; i < events; i++) {
      await h.state.state.publish(partyChannel(party.partyId), big);
      if (i % 100 === 0) readers[0]!.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: `msg ${i / 100}` });
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 5));
    }
    // Every reader receives every chat message, in order, and every party event.
    for (const c of readers) {
      for (let n = 0; n < chats; n++) await c.next('chatMessage', (d) => d.body === `msg ${n}`);
      await waitFor(async () => c.frames.filter((f) => f.type === 'partyUpdated').length >= events, 'every party event');
      assert.deepEqual(c.seen('chatMessage').map((f) => f.data.body), [], 'no other chat');
      assert.deepEqual(c.seen('error'), [], 'no error frame');
    }
    raw.resume();
    assert.equal((await slow.closed).code, 4008);
    await waitFor(async () => (await metric('social_ws_closes_total', { code: '4008' })) - cutBefore === 1, 'the cut counted under 4008');
    assert.ok((await metric('social_events_dropped_total', { reason: 'slow_consumer' })) > droppedBefore);
    // The readers' sockets are untouched.
    for (const c of readers) {
      c.send({ type: 'heartbeat' });
      await c.next('heartbeatAck');
      await c.close();
    }
  });
});

/** Whether an accepted handshake is a socket that works (answers a heartbeat) or a refusal told in band (closes). */
async function settle(c: Client): Promise<'open' | 'closed'> {
  if (c.ws.readyState === c.ws.OPEN) c.send({ type: 'heartbeat' });
  return Promise.race([c.next('heartbeatAck').then(() => 'open' as const), c.closed.then(() => 'closed' as const)]);
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
