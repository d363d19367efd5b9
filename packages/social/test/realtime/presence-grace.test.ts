// The presence grace (Social:Presence:GraceMilliseconds) across two nodes (real Redis and PostgreSQL when
// REDIS_URL and DATABASE_URL are set; two apps sharing the in-memory stores otherwise): a user whose last socket
// closes stays online for the grace; a reconnect within it, on either node, sends friends nothing; without one,
// friends get exactly one offline once it ends, also when the node the socket closed on is gone by then.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { befriend, type TestUser } from '../support.js';
import { connect, startSecondNode, type Client, realtimeSuite } from './support.js';

const GRACE_MS = 1500;
const SWEEP_MS = 200;
/** Generous: the grace, a few sweep rounds and a slow shared machine. */
const OFFLINE_BOUND_MS = GRACE_MS + 6000;
const env = { SOCIAL__PRESENCE__GRACEMILLISECONDS: String(GRACE_MS), SOCIAL__PRESENCE__SWEEPMILLISECONDS: String(SWEEP_MS) };

describe(`realtime: presence grace on two nodes (${process.env.REDIS_URL ? 'Redis' : 'shared memory store'})`, () => {
  const { h, nodeA, nodeB, ready } = realtimeSuite(env, { second: env });
  const open = async (url: string, u: TestUser) => {
    return ready(await connect(url, u.token));
  };
  /** a and b friends, b watching on node A until a is announced online. */
  const pair = async (names: [string, string], aUrl: string) => {
    const a = await h.user(names[0]);
    const b = await h.user(names[1]);
    await befriend(h, a, b);
    const watcher = await open(nodeA.ws, b);
    const ca = await open(aUrl, a);
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
    return { a, b, watcher, ca };
  };
  const about = (c: Client, u: TestUser) => c.seen('friendPresenceChanged', (d) => d.publicId === u.publicId);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const presenceOf = async (viewer: TestUser, u: TestUser) => (await h.req(viewer, 'GET', `/v1/presence/${u.publicId}`)).body.state;

  it('a reconnect within the grace on the other node sends friends nothing; the last close then gives one offline after the grace', async () => {
    const { a, b, watcher, ca } = await pair(['Gina', 'Hal'], nodeA.ws);
    ca.send({ type: 'presenceUpdate', state: 'away', richPresence: { activity: 'Lobby' } });
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'away');
    await ca.close();
    // A network change: the client is back a moment later, through the balancer on the other node.
    const again = await open(nodeB.urls.ws, a);
    await sleep(GRACE_MS + 4 * SWEEP_MS);
    await watcher.sync(h, b.id);
    assert.deepEqual(about(watcher, a), [], 'friends saw the reconnect');
    // The presence is kept as it was (state and rich presence), not reset to online.
    const kept = (await h.req(a, 'GET', `/v1/presence/${a.publicId}`)).body;
    assert.equal(kept.state, 'away');
    assert.equal(kept.richPresence.activity, 'Lobby');

    const closedAt = Date.now();
    await again.close();
    // Still there during the grace, to friends' reads as well.
    assert.equal(await presenceOf(b, a), 'away');
    const offline = await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId);
    const after = Date.now() - closedAt;
    assert.equal(offline.data.state, 'offline');
    assert.ok(after >= GRACE_MS - 50, `offline ${after} ms after the close, within the ${GRACE_MS} ms grace`);
    assert.ok(after <= OFFLINE_BOUND_MS, `offline only ${after} ms after the close`);
    await sleep(4 * SWEEP_MS);
    await watcher.sync(h, b.id);
    assert.deepEqual(about(watcher, a), [], 'offline announced twice');
    assert.equal(await presenceOf(b, a), 'offline');
  });

  it('no reconnect: exactly one offline, once the grace has passed', async () => {
    const { a, b, watcher, ca } = await pair(['Ivo', 'Jun'], nodeB.urls.ws);
    const closedAt = Date.now();
    await ca.close();
    await sleep(GRACE_MS / 2);
    await watcher.sync(h, b.id);
    assert.deepEqual(about(watcher, a), [], 'offline before the grace ended');
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    const after = Date.now() - closedAt;
    assert.ok(after >= GRACE_MS - 50 && after <= OFFLINE_BOUND_MS, `offline after ${after} ms`);
    await sleep(4 * SWEEP_MS);
    await watcher.sync(h, b.id);
    assert.deepEqual(about(watcher, a), [], 'offline announced twice');
  });

  it('reconnect and close again within the grace: the first grace ending does not cut the second one short', async () => {
    const { a, b, watcher, ca } = await pair(['Kai', 'Lea'], nodeA.ws);
    await ca.close();
    const again = await open(nodeB.urls.ws, a);
    await sleep(GRACE_MS / 2);
    const secondClose = Date.now();
    await again.close();
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    const after = Date.now() - secondClose;
    assert.ok(after >= GRACE_MS - 50, `offline ${after} ms after the second close: the first socket's grace ended it`);
    await sleep(4 * SWEEP_MS);
    await watcher.sync(h, b.id);
    assert.deepEqual(about(watcher, a), [], 'offline announced twice');
  });

  it('the node the last socket closed on is gone before the grace ends: another node announces offline once', async () => {
    const third = await startSecondNode(h, env);
    let stopped = false;
    try {
      const { a, b, watcher, ca } = await pair(['Mia', 'Ned'], third.urls.ws);
      await ca.close();
      // The close was handled (the grace started) before the node stops: wait for its socket count to drop.
      for (let i = 0; i < 200 && third.app.realtime.connections() > 0; i++) await sleep(10);
      await sleep(100);
      stopped = true;
      await third.close();
      await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
      await sleep(4 * SWEEP_MS);
      await watcher.sync(h, b.id);
      assert.deepEqual(about(watcher, a), [], 'offline announced twice');
    } finally {
      if (!stopped) await third.close();
    }
  });
});

describe('realtime: a presence grace of 0', () => {
  const { h, nodeA: url, clients } = realtimeSuite({ SOCIAL__PRESENCE__GRACEMILLISECONDS: '0', SOCIAL__PRESENCE__SWEEPMILLISECONDS: '600000' });

  it('announces offline as the last socket closes (the behaviour before the grace), without a sweep', async () => {
    const [a, b] = await h.friends('Oda', 'Pia');
    const watcher = await connect(url.ws, b.token);
    clients.push(watcher);
    const ca = await connect(url.ws, a.token);
    clients.push(ca);
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
    // No sweep runs within this test (every 10 minutes): the offline comes from the close itself.
    await ca.close();
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
  });
});

describe('realtime: a presence grace longer than the presence TTL', () => {
  const { h, nodeA: url, clients } = realtimeSuite({ SOCIAL__PRESENCE__GRACEMILLISECONDS: '600000', SOCIAL__PRESENCE__TTLSECONDS: '1', SOCIAL__PRESENCE__SWEEPMILLISECONDS: '100' });

  it('acts as the TTL: the presence entry cannot outlive it, so offline comes once the TTL has passed', async () => {
    const [a, b] = await h.friends('Quin', 'Rhea');
    const watcher = await connect(url.ws, b.token);
    const ca = await connect(url.ws, a.token);
    clients.push(watcher, ca);
    const beat = setInterval(() => ca.ws.readyState === ca.ws.OPEN && ca.send({ type: 'heartbeat' }), 250);
    try {
      await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
      await new Promise((r) => setTimeout(r, 1200));
    } finally {
      clearInterval(beat);
    }
    assert.equal(watcher.seen('friendPresenceChanged', (d) => d.publicId === a.publicId).length, 0, 'a heartbeating socket lapsed');
    await ca.close();
    // Not 10 minutes: the grace in effect is the 1 s TTL.
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
  });
});
