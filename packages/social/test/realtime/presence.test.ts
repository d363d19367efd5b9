// Presence over sockets with a short TTL (1 s), a fast sweeper and no presence grace (presence-grace.test.ts): online on the first socket, offline
// exactly once when the last socket closes or when the TTL lapses without heartbeats; heartbeats keep it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type TestUser } from '../support.js';
import { WebSocket } from 'ws';
import { connect, wrap, type Client, realtimeSuite } from './support.js';

describe('realtime: presence lifecycle', () => {
  const { h, nodeA: url, clients, ready } = realtimeSuite({ SOCIAL__PRESENCE__GRACEMILLISECONDS: '0', SOCIAL__PRESENCE__TTLSECONDS: '1', SOCIAL__PRESENCE__SWEEPMILLISECONDS: '100', SOCIAL__REALTIME__PINGSECONDS: '1' });
  const open = async (u: TestUser) => {
    return ready(await connect(url.ws, u.token));
  };
  const offline = (c: Client, u: TestUser) => c.seen('friendPresenceChanged', (d) => d.publicId === u.publicId && d.state === 'offline');
  const beats = (c: Client, ms: number) => {
    const t = setInterval(() => c.ws.readyState === c.ws.OPEN && c.send({ type: 'heartbeat' }), ms);
    return () => clearInterval(t);
  };

  /** Runs `fn` with a socket of `u` open and heartbeating (every 250 ms) throughout. */
  const watching = async (u: TestUser, fn: (c: Client) => Promise<void>) => {
    const c = await open(u);
    const stop = beats(c, 250);
    try {
      await fn(c);
    } finally {
      stop();
    }
  };

  it('several sockets: online once, offline exactly once when the last one closes', async () => {
    const [a, b] = await h.friends('Ari', 'Bel');
    await watching(b, async (cb) => {
      const a1 = await open(a);
      const stopA1 = beats(a1, 250);
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
      const a2 = await open(a);
      await a1.close();
      stopA1();
      // a is still connected through a2 (heartbeating) well past the TTL: no offline.
      const stopA2 = beats(a2, 250);
      await new Promise((r) => setTimeout(r, 1500));
      await cb.sync(h, b.id);
      assert.equal(offline(cb, a).length, 0, 'offline while a socket was still open');
      assert.equal(cb.seen('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online').length, 0, 'a second socket announced online again');
      stopA2();
      await a2.close();
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
      // Let the sweeper run a few rounds: still exactly one offline.
      await new Promise((r) => setTimeout(r, 400));
      await cb.sync(h, b.id);
      assert.equal(offline(cb, a).length, 0, 'offline announced twice');
      assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'offline');
    });
  });

  it('a socket without heartbeats lapses: friends see offline once; a heartbeat then reports lapsed; presenceUpdate revives', async () => {
    const [a, b] = await h.friends('Cato', 'Dina');
    const cb = await open(b);
    const ca = await open(a);
    await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
    // No heartbeat from a: after the 1 s TTL the sweeper announces offline.
    await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'offline');
    ca.send({ type: 'heartbeat' });
    assert.deepEqual((await ca.next('heartbeatAck')).data, { presence: 'lapsed' });
    ca.send({ type: 'presenceUpdate', state: 'online' });
    await ca.next('presenceUpdated');
    await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
    // Closing now (registered again) announces offline once more.
    await ca.close();
    await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    await new Promise((r) => setTimeout(r, 300));
    await cb.sync(h, b.id);
    assert.equal(offline(cb, a).length, 0);
  });

  it('presenceUpdate frames alone keep a socket alive (no heartbeat), and it lapses once they stop', async () => {
    const [a, b] = await h.friends('Gus', 'Hana');
    await watching(b, async (cb) => {
      const ca = await open(a);
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
      // Updates every 300 ms for 2.5 TTLs: some rewrite the registration, those within half a TTL of the last write do not.
      let flip = false;
      for (let i = 0; i < 8; i++) {
        ca.send({ type: 'presenceUpdate', state: (flip = !flip) ? 'away' : 'online' });
        await ca.next('presenceUpdated');
        await new Promise((r) => setTimeout(r, 300));
      }
      await cb.sync(h, b.id);
      assert.equal(offline(cb, a).length, 0, 'a socket sending presence updates lapsed');
      // No more frames: offline after the TTL, once.
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
      ca.send({ type: 'heartbeat' });
      assert.deepEqual((await ca.next('heartbeatAck')).data, { presence: 'lapsed' });
    });
  });

  it('an existing presence is kept on connect (no reset of away/dnd); connect with none sets online', async () => {
    const [a, b] = await h.friends('Ezra', 'Fiona');
    await watching(b, async (cb) => {
      await h.req(a, 'POST', '/v1/presence', { body: { state: 'dnd' } });
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'dnd');
      const ca = await open(a);
      await cb.sync(h, b.id);
      assert.equal(cb.seen('friendPresenceChanged', (d) => d.publicId === a.publicId).length, 0);
      assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'dnd');
      await ca.close();
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    });
  });

  it('a connection that stops answering pings is terminated; friends see it go offline', async () => {
    const [a, b] = await h.friends('Gabe', 'Hana');
    await watching(b, async (cb) => {
      // A client that never answers pings (autoPong off) but keeps heartbeating: the ping/pong check cuts it.
      const ws = new WebSocket(url.ws, { headers: { authorization: `Bearer ${a.token}` }, autoPong: false });
      const ca = wrap(ws);
      clients.push(ca);
      await new Promise((r) => ws.once('open', r));
      const stopA = beats(ca, 250);
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
      const closed = await ca.closed;
      stopA();
      assert.equal(closed.code, 1006, 'terminated without a close frame');
      await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    });
  });
});
