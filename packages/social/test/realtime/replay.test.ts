// Resume with replay (docs/social-realtime.md, "Resume and replay"): two social nodes on the same database and
// state store (real Redis and PostgreSQL when REDIS_URL and DATABASE_URL are set, else the shared memory
// stores). A client drops, events are sent to it through the other node, it reconnects there with the last
// id it saw and gets every missed event once, in order, before new ones; a gap past retention gives resync.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { compareLogIds } from '@platform/kit';
import { befriend, startHarness, useHarness, type Harness, type TestUser } from '../support.js';
import { connect, listen, type Client, type Frame, realtimeSuite } from './support.js';

type IdFrame = Frame & { id?: string };

/** Event ids only grow; caughtUp and resync carry the position reached (the last event's id, or later). */
function assertIdsGrow(c: Client): void {
  const framed = (c.frames as IdFrame[]).filter((f) => f.id !== undefined);
  for (let i = 1; i < framed.length; i++) {
    const [x, y] = [framed[i - 1], framed[i]];
    const position = y.type === 'caughtUp' || y.type === 'resync';
    assert.ok(compareLogIds(x.id!, y.id!) < (position ? 1 : 0), `ids go back: ${x.type} ${x.id} then ${y.type} ${y.id}`);
  }
}

const backend = process.env.REDIS_URL ? 'Redis and PostgreSQL' : 'the embedded memory store';

describe(`realtime: resume with replay, two nodes (${backend})`, () => {
  const { h, nodeA, nodeB, ready } = realtimeSuite({}, { second: {} });
  /** A socket of `u` set up (its caughtUp or resync frame and a heartbeat answer arrived). */
  const open = async (url: string, u: TestUser, opts: { lastEventId?: string; headers?: Record<string, string> } = {}) => {
    const q = opts.lastEventId === undefined ? '' : `?lastEventId=${encodeURIComponent(opts.lastEventId)}`;
    return ready(await connect(`${url}${q}`, u.token, { headers: opts.headers ?? {} }));
  };
  /** Where a socket stands: the id of its last frame that has one. */
  const lastId = (c: Client) => (c.frames as IdFrame[]).filter((f) => f.id !== undefined).at(-1)!.id!;
  const post = (u: TestUser, path: string, body: unknown = {}) =>
    fetch(`${nodeB.urls.http}${path}`, { method: 'POST', headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('a fresh socket gets caughtUp with the position to resume from, before any event; every event frame has an id', async () => {
    const a = await h.user('Fresh');
    const c = await open(nodeA.ws, a);
    const first = c.frames[0] as IdFrame;
    assert.deepEqual({ type: first.type, data: first.data }, { type: 'caughtUp', data: { resumed: false } });
    assert.match(first.id!, /^\d+-\d+$/);
    await h.req(a, 'POST', '/v1/presence', { body: { state: 'away' } });
    const b = await h.user('Friendly');
    await h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } });
    const ev = (await c.next('friendRequestReceived')) as IdFrame;
    assert.ok(compareLogIds(ev.id!, first.id!) > 0);
  });

  it('user, fan-out and party events sent through the other node while away come once, in order, before new ones', async () => {
    const [a, b, c, d, e] = await h.users('Away', 'Bolt', 'Cleo', 'Dax', 'Eve');
    await befriend(h, a, b);
    await befriend(h, a, c);
    await befriend(h, c, e);
    const party = await h.party(c, [a], { visibility: 'FriendsOnly' });
    const onA = await open(nodeA.ws, a);
    const since = lastId(onA);
    await onA.close();

    // While a is away, everything goes through node B.
    assert.equal((await post(d, '/v1/friends/requests', { toPublicId: a.publicId })).status, 201); // user channel
    assert.equal((await post(b, '/v1/presence', { state: 'busy' })).status, 200); // fan-out (presence)
    assert.equal((await post(c, `/v1/chat/party/${party.partyId}/messages`, { body: 'missed 1' })).status, 201); // party chat
    assert.equal((await post(e, `/v1/parties/${party.partyId}/join`)).status, 200); // party member event
    assert.equal((await post(c, `/v1/chat/party/${party.partyId}/messages`, { body: 'missed 2' })).status, 201);
    assert.equal((await post(b, '/v1/me/name', { displayName: 'Bolton' })).status, 200); // fan-out (profile)

    const back = await open(nodeB.urls.ws, a, { lastEventId: since });
    const caught = await back.next('caughtUp');
    assert.deepEqual(caught.data, { resumed: true });
    const replayed = back.frames.slice(0, back.frames.indexOf(caught)).map((f) => (f.type === 'chatMessage' ? `chat:${f.data.body}` : f.type));
    // The friend request also lands in the inbox: its `notification` event is replayed right after it.
    assert.deepEqual(replayed, ['friendRequestReceived', 'notification', 'friendPresenceChanged', 'chat:missed 1', 'partyMemberJoined', 'chat:missed 2', 'friendProfileChanged']);
    const presence = back.frames.find((f) => f.type === 'friendPresenceChanged')!;
    assert.deepEqual(presence.data, { publicId: b.publicId, state: 'busy', sameGame: false }, 'built for the socket, not the stored source');

    // New events come after the replay, once.
    assert.equal((await h.req(c, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'live' } })).status, 201);
    await back.next('chatMessage', (x) => x.body === 'live');
    assertIdsGrow(back);
    const bodies = back.frames.filter((f) => f.type === 'chatMessage').map((f) => f.data.body);
    assert.deepEqual(bodies, ['missed 1', 'missed 2', 'live']);
  });

  it('events published while the socket reconnects come exactly once, ids growing (no gap, no duplicate)', async () => {
    const [a, c] = await h.friends('Racer', 'Chatty');
    const party = await h.party(c, [a], { visibility: 'FriendsOnly' });
    const first = await open(nodeA.ws, a);
    const since = lastId(first);
    await first.close();
    const bodies = Array.from({ length: 40 }, (_, i) => `m${i}`);
    // Half before the reconnect, half while it runs (through both nodes' HTTP, one at a time so their order is known).
    const sendAll = async (list: string[]) => {
      for (const [i, body] of list.entries()) {
        const r = i % 2 ? await post(c, `/v1/chat/party/${party.partyId}/messages`, { body }) : await h.req(c, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body } });
        assert.equal(r.status, 201);
      }
    };
    await sendAll(bodies.slice(0, 20));
    const [back] = await Promise.all([open(nodeB.urls.ws, a, { lastEventId: since }), sendAll(bodies.slice(20))]);
    await back.next('chatMessage', (x) => x.body === 'm39');
    await back.sync(h, a.id);
    assert.deepEqual(back.frames.filter((f) => f.type === 'chatMessage').map((f) => f.data.body), bodies);
    assert.equal(back.frames.filter((f) => f.type === 'caughtUp').length, 1);
    assertIdsGrow(back);
  });

  it('replayed presence is built for each resuming socket’s game context', async () => {
    const [a, b] = await h.friends('Gamer', 'Buddy');
    const g = h.registry.addGame('isolated');
    const inG = { 'x-platform-game-key': g.key, 'x-platform-game-secret': g.secret };
    const s1 = await open(nodeA.ws, a, { headers: inG });
    const since = lastId(s1);
    await s1.close();
    const r = await h.req(b, 'POST', '/v1/presence', { body: { state: 'busy', richPresence: { activity: 'Racing', joinable: true } }, game: g });
    assert.equal(r.status, 200);
    const fromG = await open(nodeB.urls.ws, a, { lastEventId: since, headers: inG });
    const fromNone = await open(nodeB.urls.ws, a, { lastEventId: since });
    const seen = async (c: Client) => (await c.next('friendPresenceChanged', (x) => x.publicId === b.publicId && x.state === 'busy')).data;
    assert.deepEqual(await seen(fromG), { publicId: b.publicId, state: 'busy', richPresence: { activity: 'Racing', joinable: true, originGameId: g.gameId }, sameGame: true });
    assert.deepEqual(await seen(fromNone), { publicId: b.publicId, state: 'busy', sameGame: false });
  });

  it('party chat from a user the resuming member muted is not replayed; a member who left gets nothing after leaving', async () => {
    const [a, c, q] = await h.users('Muter', 'Loud', 'Quiet');
    await befriend(h, a, c);
    await befriend(h, c, q);
    const party = (await h.req(c, 'POST', '/v1/parties', { body: { visibility: 'FriendsOnly' } })).body;
    for (const u of [a, q]) assert.equal((await h.req(u, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} })).status, 200);
    assert.equal((await h.req(a, 'POST', `/v1/mutes/${q.publicId}`)).status, 204);
    const s = await open(nodeA.ws, a);
    const since = lastId(s);
    await s.close();
    for (const [u, body] of [[q, 'muted'], [c, 'kept'], [c, 'bye']] as const) {
      assert.equal((await post(u, `/v1/chat/party/${party.partyId}/messages`, { body })).status, 201);
    }
    assert.equal((await post(a, `/v1/parties/${party.partyId}/leave`)).status, 200);
    assert.equal((await post(c, `/v1/chat/party/${party.partyId}/messages`, { body: 'after you left' })).status, 201);
    const back = await open(nodeB.urls.ws, a, { lastEventId: since });
    await back.next('caughtUp');
    assert.deepEqual(back.frames.filter((f) => f.type === 'chatMessage').map((f) => f.data.body), ['kept', 'bye']);
    assert.equal(back.frames.filter((f) => f.type === 'partyMemberLeft' && f.data.publicId === a.publicId).length, 1);
  });

  it('after a block, replay hides what HTTP hides: the blocker’s dm, presence, kick notice and invite; the user’s own changes still come', async () => {
    const [x, v, y] = await h.users('Blocked', 'Blocker', 'Bystander');
    await befriend(h, x, v);
    await befriend(h, x, y);
    const party = await h.party(v, [x], { visibility: 'FriendsOnly' });
    const dm = (await h.req(x, 'GET', '/v1/friends')).body.find((f: { publicId: string }) => f.publicId === v.publicId).dmChannelId;
    const s = await open(nodeA.ws, x);
    const since = lastId(s);
    await s.close();
    // While x is away, v writes, changes presence, invites to a game, kicks x; y writes too. Then v blocks x.
    assert.equal((await post(v, `/v1/chat/dm/${dm}/messages`, { body: 'from v' })).status, 201);
    assert.equal((await post(v, '/v1/presence', { state: 'busy' })).status, 200);
    assert.equal((await post(v, '/v1/invites/game', { toPublicId: x.publicId, sessionHandle: 's-1' })).status, 201);
    assert.equal((await post(v, `/v1/parties/${party.partyId}/kick`, { publicId: x.publicId })).status, 200);
    const ydm = (await h.req(x, 'GET', '/v1/friends')).body.find((f: { publicId: string }) => f.publicId === y.publicId).dmChannelId;
    assert.equal((await post(y, `/v1/chat/dm/${ydm}/messages`, { body: 'from y' })).status, 201);
    assert.equal((await post(v, `/v1/blocks/${x.publicId}`)).status, 204);
    // What HTTP shows x now: no dm from v, no notification by v, v's presence hidden.
    const history = (await h.req(x, 'GET', `/v1/chat/dm/${dm}/messages`)).body.messages;
    assert.deepEqual(history.map((m: { body: string }) => m.body), []);
    const inbox = (await h.req(x, 'GET', '/v1/notifications')).body.notifications;
    assert.ok(!inbox.some((n: { actor?: { publicId: string } }) => n.actor?.publicId === v.publicId));
    assert.equal((await h.req(x, 'GET', `/v1/presence/${v.publicId}`)).status, 404);

    const back = await open(nodeB.urls.ws, x, { lastEventId: since });
    await back.next('caughtUp');
    const about = (f: Frame) => f.data?.fromPublicId ?? f.data?.actor?.publicId ?? f.data?.publicId;
    const seen = back.frames.slice(0, back.frames.findIndex((f) => f.type === 'caughtUp')).map((f) => `${f.type}:${f.data?.kind ?? f.data?.reason ?? ''}:${about(f) === v.publicId ? 'v' : about(f) === y.publicId ? 'y' : 'x'}`);
    // The kick (x's own membership) and the friendship's end, as live; y's message and its notification-free dm.
    assert.deepEqual(seen, ['partyMemberLeft:kicked:x', 'chatMessage::y', 'friendRemoved::v']);
  });

  it('the same for a block the resuming user made meanwhile (another device) and for an erased sender', async () => {
    const [x, v, w] = await h.users('Resumer', 'Pest', 'Leaver');
    await befriend(h, x, v);
    await befriend(h, x, w);
    const dmOf = async (u: TestUser) => (await h.req(x, 'GET', '/v1/friends')).body.find((f: { publicId: string }) => f.publicId === u.publicId).dmChannelId;
    const [dmV, dmW] = [await dmOf(v), await dmOf(w)];
    const s = await open(nodeA.ws, x);
    const since = lastId(s);
    await s.close();
    assert.equal((await post(v, `/v1/chat/dm/${dmV}/messages`, { body: 'pest' })).status, 201);
    assert.equal((await post(w, `/v1/chat/dm/${dmW}/messages`, { body: 'leaver' })).status, 201);
    assert.equal((await post(w, '/v1/me/name', { displayName: 'Gone Soon' })).status, 200);
    assert.equal((await post(x, `/v1/blocks/${v.publicId}`)).status, 204);
    assert.equal((await h.req(w, 'DELETE', '/v1/me')).status, 200);
    const back = await open(nodeB.urls.ws, x, { lastEventId: since });
    await back.next('caughtUp');
    const replayed = back.frames.slice(0, back.frames.findIndex((f) => f.type === 'caughtUp'));
    assert.deepEqual(replayed.filter((f) => f.type === 'chatMessage'), []);
    assert.deepEqual(replayed.filter((f) => f.type === 'friendProfileChanged'), []);
    assert.deepEqual(replayed.filter((f) => f.type === 'friendRemoved').map((f) => f.data.publicId).sort(), [v.publicId, w.publicId].sort());
  });

  it('an ex-friend’s presence is not replayed (presence is for friends), their dm still is (history keeps it)', async () => {
    const [x, v] = await h.friends('Unfriended', 'Exfriend');
    const dm = (await h.req(x, 'GET', '/v1/friends')).body[0].dmChannelId;
    const s = await open(nodeA.ws, x);
    const since = lastId(s);
    await s.close();
    assert.equal((await post(v, '/v1/presence', { state: 'away' })).status, 200);
    assert.equal((await post(v, `/v1/chat/dm/${dm}/messages`, { body: 'last words' })).status, 201);
    assert.equal((await h.req(v, 'DELETE', `/v1/friends/${x.publicId}`)).status, 204);
    const back = await open(nodeB.urls.ws, x, { lastEventId: since });
    await back.next('caughtUp');
    const replayed = back.frames.slice(0, back.frames.findIndex((f) => f.type === 'caughtUp')).map((f) => f.type);
    assert.deepEqual(replayed, ['chatMessage', 'friendRemoved']);
  });

  it('a socket gets its events in id order across channels, also while one waits for a read', { skip: !process.env.DATABASE_URL && 'needs PostgreSQL (a table lock holds the read)' }, async () => {
    const [a, c] = await h.friends('Ordered', 'Cold');
    const party = await h.party(c, [a], { visibility: 'FriendsOnly' });
    const s = await open(nodeA.ws, a);
    // The node reads a chat author's mutes before delivering their first message: a lock on the table holds it.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const tx = h.db.db.transaction(async (q) => {
      await q.query('LOCK TABLE mutes IN ACCESS EXCLUSIVE MODE');
      locked();
      await released;
    });
    await isLocked;
    assert.equal((await h.req(c, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'held' } })).status, 201);
    // A later event on a's user channel, delivered at once were it not for the order.
    await h.app.ctx.events.toUser(a.id, 'gameInviteReceived', { inviteId: 'later' });
    await sleep(300);
    release();
    await tx;
    await s.next('gameInviteReceived');
    await s.next('chatMessage');
    assert.deepEqual(s.frames.filter((f) => f.type === 'chatMessage' || f.type === 'gameInviteReceived').map((f) => f.type), ['chatMessage', 'gameInviteReceived']);
    assertIdsGrow(s);
  });

  it('a bad resume id gets one resync (invalid), then live events; the socket works', async () => {
    const a = await h.user('Odd');
    for (const bad of ['garbage', '', '1-2-3', '99999999999999-0', '%00', '\u0000', '1-0\u0000']) {
      const c = await open(nodeA.ws, a, { lastEventId: bad });
      const r = (await c.next('resync')) as IdFrame;
      assert.deepEqual(r.data, { reason: 'invalid' }, bad);
      assert.equal(c.frames.filter((f) => f.type === 'resync' || f.type === 'caughtUp').length, 1);
      await c.close();
    }
  });
});

describe(`realtime: resume past retention (${backend})`, () => {
  let h: Harness;
  let url: string;
  const clients: Client[] = [];
  before(async () => {
    h = await startHarness({ SOCIAL_REALTIME_REPLAY_ENTRIES: '3', SOCIAL_REALTIME_REPLAY_SECONDS: '2' });
    url = (await listen(h.app)).ws;
  });
  after(async () => {
    for (const c of clients) c.ws.terminate();
    await h.close();
  });
  const open = async (u: TestUser, lastEventId: string) => {
    const c = await connect(`${url}?lastEventId=${encodeURIComponent(lastEventId)}`, u.token);
    clients.push(c);
    return c;
  };
  const away = async (u: TestUser) => {
    const c = await connect(url, u.token);
    clients.push(c);
    const id = ((await c.next('caughtUp')) as IdFrame).id!;
    await c.close();
    return id;
  };
  const expectResync = async (c: Client, friend: TestUser, u: TestUser) => {
    const r = await c.next('resync');
    assert.deepEqual(r.data, { reason: 'expired' });
    // Exactly one resync and nothing replayed; then live events.
    await h.req(friend, 'POST', '/v1/presence', { body: { state: 'dnd' } });
    await c.next('friendPresenceChanged', (x) => x.state === 'dnd');
    await c.sync(h, u.id);
    assert.deepEqual(c.frames.map((f) => f.type).filter((t) => t !== 'marker'), ['resync', 'friendPresenceChanged']);
    assertIdsGrow(c);
  };

  it('more missed events than kept (count): one resync, nothing replayed', async () => {
    const [a, b] = await h.friends('Counted', 'Busy');
    const since = await away(a);
    for (const state of ['away', 'busy', 'online', 'away']) assert.equal((await h.req(b, 'POST', '/v1/presence', { body: { state } })).status, 200);
    await expectResync(await open(a, since), b, a);
  });

  it('as many as kept: replayed', async () => {
    const [a, b] = await h.friends('Few', 'Fewer');
    const since = await away(a);
    for (const state of ['away', 'busy', 'online']) assert.equal((await h.req(b, 'POST', '/v1/presence', { body: { state } })).status, 200);
    const c = await open(a, since);
    await c.next('caughtUp');
    assert.deepEqual(c.frames.map((f) => `${f.type}:${f.data.state ?? ''}`), ['friendPresenceChanged:away', 'friendPresenceChanged:busy', 'friendPresenceChanged:online', 'caughtUp:']);
  });

  it('missed events older than kept (age): one resync', async () => {
    const [a, b] = await h.friends('Aged', 'Elder');
    const since = await away(a);
    assert.equal((await h.req(b, 'POST', '/v1/presence', { body: { state: 'away' } })).status, 200);
    await sleep(2300);
    await expectResync(await open(a, since), b, a);
  });
});

describe(`realtime: resume on a log nothing was appended to before (${backend})`, () => {
  const h = useHarness({});
  it('a new deployment hands out a position of its own time; resuming from it after events came is caughtUp with them', async () => {
    const [url, a] = await Promise.all([listen(h.app), h.user('Early')]);
    const first = await connect(url.ws, a.token);
    const caught = (await first.next('caughtUp')) as IdFrame;
    assert.equal(caught.data.resumed, false);
    assert.notEqual(caught.id, '0-0');
    await first.close();
    // The first event ever logged, while the socket was away: the resume replays it (a head of 0-0 was older than any
    // retention, and every resume from it was a resync).
    const b = await h.user('Asker');
    assert.equal((await h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } })).status, 201);
    const again = await connect(`${url.ws}?lastEventId=${encodeURIComponent(caught.id!)}`, a.token);
    const replayed = await again.next('friendRequestReceived');
    assert.equal(replayed.data.publicId, b.publicId);
    const resumed = (await again.next('caughtUp')) as IdFrame;
    assert.equal(resumed.data.resumed, true);
    assert.deepEqual(again.seen('resync'), []);
    await again.close();
  });
});
