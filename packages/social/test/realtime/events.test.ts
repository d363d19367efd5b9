// Every event of the catalogue on its trigger, delivered to real sockets: friends, profile, invites, party
// membership (the sockets follow joins, leaves, kicks and disbands), chat, block and mute filtering,
// cross-game filtering of presence, several sockets per user, and erasure closing the sockets.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { partyChannel } from '../../src/index.js';
import { befriend, type TestUser } from '../support.js';
import { connect, type Client, realtimeSuite } from './support.js';

const RELATIONS_CACHE_MS = 1000;

describe('realtime: events', () => {
  const { h, nodeA: url, clients, ready } = realtimeSuite(
    {
      SOCIAL__LIMITS__ACTIONSPERMINUTE: '1000',
      SOCIAL__LIMITS__CHATPERMINUTE: '1000',
      SOCIAL__REALTIME__RELATIONSCACHEMILLISECONDS: String(RELATIONS_CACHE_MS),
    },
    {
      beforeClose: () => {
        // Payloads name users by publicId only: no internal id or account id in any frame.
        const all = clients.map((c) => JSON.stringify(c.frames)).join('\n');
        for (const u of users) {
          assert.ok(!all.includes(u.id), 'an internal id reached a client');
          assert.ok(!all.includes(u.sub), 'an account id reached a client');
        }
      },
    },
  );
  const users: TestUser[] = [];
  const open = async (u: TestUser, headers?: Record<string, string>) => {
    return ready(await connect(url.ws, u.token, { headers }));
  };
  const user = async (name: string) => {
    const u = await h.user(name);
    users.push(u);
    return u;
  };
  /** New users (kept in `users`), one after the other. */
  const newUsers = async (...names: string[]) => {
    const made: TestUser[] = [];
    for (const name of names) made.push(await user(name));
    return made;
  };
  /** Two new users (kept in `users`), made friends. */
  const friends = async (nameA: string, nameB: string) => {
    const a = await user(nameA);
    const b = await user(nameB);
    await befriend(h, a, b);
    return [a, b] as const;
  };
  /** A FriendsOnly party of `lead` that `members` (befriended first) joined, and one open socket each, lead first. */
  const partyWithSockets = async (lead: TestUser, members: TestUser[], body: Record<string, unknown> = {}) => {
    for (const u of members) await befriend(h, lead, u);
    const party = (await h.req(lead, 'POST', '/v1/parties', { body: { visibility: 'FriendsOnly', ...body } })).body;
    for (const u of members) assert.equal((await h.req(u, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} })).status, 200);
    const sockets: Client[] = [];
    for (const u of [lead, ...members]) sockets.push(await open(u));
    return { party: party as { partyId: string }, sockets };
  };

  it('friend requests: received (every socket of the target), accepted, removed (both sides)', async () => {
    const [a, b] = await newUsers('Abe', 'Bess');
    const ca = await open(a);
    const cb1 = await open(b);
    const cb2 = await open(b);
    await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    for (const c of [cb1, cb2]) {
      const ev = await c.next('friendRequestReceived');
      assert.equal(ev.data.publicId, a.publicId);
      assert.equal(ev.data.direction, 'incoming');
      assert.equal(ev.data.state, 'pending');
      assert.equal(ev.data.fullHandle, a.fullHandle);
    }
    await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`);
    const acc = await ca.next('friendRequestAccepted');
    assert.equal(acc.data.publicId, b.publicId);
    assert.equal(acc.data.state, 'accepted');
    await h.req(a, 'DELETE', `/v1/friends/${b.publicId}`);
    assert.deepEqual((await cb1.next('friendRemoved')).data, { publicId: a.publicId });
    assert.deepEqual((await cb2.next('friendRemoved')).data, { publicId: a.publicId });
    assert.deepEqual((await ca.next('friendRemoved')).data, { publicId: b.publicId });
  });

  it('friendPresenceChanged on connect, friendProfileChanged on POST /v1/me/name', async () => {
    const [a, b] = await friends('Cal', 'Dot');
    const cb = await open(b);
    await open(a);
    const on = await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId);
    assert.deepEqual(on.data, { publicId: a.publicId, state: 'online', sameGame: false });
    await h.req(a, 'POST', '/v1/me/name', { body: { displayName: 'Calvin' } });
    const p = await cb.next('friendProfileChanged');
    assert.equal(p.data.publicId, a.publicId);
    assert.equal(p.data.displayName, 'Calvin');
    assert.match(p.data.fullHandle, /^Calvin#\d{4}$/);
  });

  it('presence and profile changes reach every friend once, except the friends who muted the author', async () => {
    const a = await user('Fay');
    const friends = await Promise.all(['Gil', 'Hal', 'Ivy', 'Jon'].map((n) => user(n)));
    for (const f of friends) await befriend(h, a, f);
    const [muter, ...others] = friends;
    assert.equal((await h.req(muter, 'POST', `/v1/mutes/${a.publicId}`)).status, 204);
    const sockets = await Promise.all(friends.map((f) => open(f)));
    const ca = await open(a);
    ca.send({ type: 'presenceUpdate', state: 'away' });
    await ca.next('presenceUpdated');
    await h.req(a, 'POST', '/v1/me/name', { body: { displayName: 'Faye' } });
    for (const [i, f] of others.entries()) {
      const s = sockets[i + 1];
      await s.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'away');
      await s.next('friendProfileChanged', (d) => d.publicId === a.publicId);
      assert.ok(f.publicId);
    }
    // The muter's socket: a marker on its own channel after everything published before it.
    await sockets[0].sync(h, muter.id);
    assert.equal(sockets[0].seen('friendPresenceChanged', (d) => d.publicId === a.publicId).length, 0, 'the muter got presence');
    assert.equal(sockets[0].seen('friendProfileChanged', (d) => d.publicId === a.publicId).length, 0, 'the muter got the profile change');
    for (const s of sockets.slice(1)) {
      assert.equal(s.frames.filter((f) => f.type === 'friendPresenceChanged' && (f.data as { state: string }).state === 'away').length, 1, 'once');
    }
  });

  it('cross-game visibility filters friendPresenceChanged per recipient (summary)', async () => {
    const [a, b] = await friends('Eli', 'Fen');
    const g = h.registry.addGame('full');
    const hGame = h.registry.addGame('summary');
    const cb = await open(b, { 'x-platform-game-key': g.key, 'x-platform-game-secret': g.secret });
    cb.send({ type: 'presenceUpdate', state: 'online', richPresence: { activity: 'Menu' } });
    await cb.next('presenceUpdated');
    const ca = await open(a, { 'x-platform-game-key': hGame.key, 'x-platform-game-secret': hGame.secret });
    ca.send({ type: 'presenceUpdate', richPresence: { activity: 'Racing', joinable: true, sessionHandle: 'secret-session' } });
    const ev = await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.richPresence !== undefined);
    assert.deepEqual(ev.data, { publicId: a.publicId, state: 'online', richPresence: { activity: 'Racing', joinable: false }, sameGame: false });
  });

  it('one presence change, friends in different games: each friend gets the view of their own game', async () => {
    const [a, same1, same2, other, none] = await newUsers('Ola', 'Pia', 'Quin', 'Rex', 'Sia');
    for (const f of [same1, same2, other, none]) await befriend(h, a, f);
    const g = h.registry.addGame('full');
    const summary = h.registry.addGame('summary');
    const inGame = (game: { key: string; secret: string }) => ({ 'x-platform-game-key': game.key, 'x-platform-game-secret': game.secret });
    const sockets = new Map<TestUser, Client>();
    for (const [u, game] of [
      [same1, g],
      [same2, g],
      [other, summary],
    ] as const) {
      const c = await open(u, inGame(game));
      c.send({ type: 'presenceUpdate', richPresence: { activity: 'Lobby' } });
      await c.next('presenceUpdated');
      sockets.set(u, c);
    }
    sockets.set(none, await open(none));
    const ca = await open(a, inGame(g));
    ca.send({ type: 'presenceUpdate', state: 'busy', richPresence: { activity: 'Racing', joinable: true, sessionHandle: 'h-1' } });
    await ca.next('presenceUpdated');
    const seen = async (u: TestUser) => (await sockets.get(u)!.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'busy')).data;
    const full = { activity: 'Racing', joinable: true, sessionHandle: 'h-1', originGameId: g.gameId };
    assert.deepEqual(await seen(same1), { publicId: a.publicId, state: 'busy', richPresence: full, sameGame: true });
    assert.deepEqual(await seen(same2), { publicId: a.publicId, state: 'busy', richPresence: full, sameGame: true });
    assert.deepEqual(await seen(other), { publicId: a.publicId, state: 'busy', richPresence: { activity: 'Racing', joinable: false }, sameGame: false });
    assert.deepEqual(await seen(none), { publicId: a.publicId, state: 'busy', sameGame: false });
  });

  it('friendPresenceChanged is built for each receiving socket’s game context, as GET /v1/friends from that game shows it', async () => {
    const [a, b] = await friends('Tia', 'Uma');
    const g = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const inGame = (game: { key: string; secret: string }) => ({ 'x-platform-game-key': game.key, 'x-platform-game-secret': game.secret });
    // Both players connect from G and set nothing else: their presence was set by the connect alone.
    const cbG = await open(b, inGame(g));
    const cbOther = await open(b, inGame(other));
    const cbNone = await open(b);
    const ca = await open(a, inGame(g));
    ca.send({ type: 'presenceUpdate', state: 'busy', richPresence: { activity: 'Racing', joinable: true } });
    await ca.next('presenceUpdated');
    const full = { activity: 'Racing', joinable: true, originGameId: g.gameId };
    const fromG = (await cbG.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'busy')).data;
    assert.deepEqual(fromG, { publicId: a.publicId, state: 'busy', richPresence: full, sameGame: true });
    // Exactly what B reads over HTTP from G.
    const listed = (await h.req(b, 'GET', '/v1/friends', { game: g })).body.find((f: { publicId: string }) => f.publicId === a.publicId);
    assert.deepEqual({ richPresence: listed.richPresence, sameGame: listed.sameGame }, { richPresence: full, sameGame: true });
    // The same user's sockets in another (isolated) game and in no game see no rich presence.
    for (const c of [cbOther, cbNone]) {
      assert.deepEqual((await c.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'busy')).data, { publicId: a.publicId, state: 'busy', sameGame: false });
    }
  });

  it('party and game invites', async () => {
    const [a, b] = await friends('Gia', 'Hux');
    const cb = await open(b);
    const party = (await h.req(a, 'POST', '/v1/parties', { body: { visibility: 'Private' } })).body;
    const inv = (await h.req(a, 'POST', `/v1/parties/${party.partyId}/invites`, { body: { toPublicId: b.publicId } })).body;
    const pi = await cb.next('partyInviteReceived');
    assert.deepEqual(pi.data, inv);
    const game = (await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId, sessionHandle: 'match-1', join: { lobbyId: 'L1' } } })).body;
    const gi = await cb.next('gameInviteReceived');
    assert.deepEqual(gi.data, game);
    assert.equal(gi.data.fromPublicId, a.publicId);
  });

  it('party membership: sockets follow join, leader change, kick, leave and disband', async () => {
    const [a, b, c] = await newUsers('Ida', 'Jon', 'Kai');
    await befriend(h, a, b);
    await befriend(h, a, c);
    // a creates the party while connected: its socket joins the party channel.
    const ca = await open(a);
    const party = (await h.req(a, 'POST', '/v1/parties', { body: { visibility: 'FriendsOnly' } })).body;
    await ca.sync(h, a.id);
    const cb = await open(b);
    const cc = await open(c);
    assert.equal((await h.req(b, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} })).status, 200);
    for (const cl of [ca, cb]) {
      const j = await cl.next('partyMemberJoined');
      assert.equal(j.data.partyId, party.partyId);
      assert.equal(j.data.member.publicId, b.publicId);
    }
    await cb.sync(h, b.id);
    assert.equal(cb.seen('partyMemberJoined').length, 0, 'the joiner gets exactly one copy');
    await h.req(c, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} });
    for (const cl of [ca, cb, cc]) assert.equal((await cl.next('partyMemberJoined', (d) => d.member.publicId === c.publicId)).data.partyId, party.partyId);
    await cc.sync(h, c.id);

    // Leader transfer reaches every member.
    await h.req(a, 'POST', `/v1/parties/${party.partyId}/leader`, { body: { publicId: b.publicId } });
    for (const cl of [ca, cb, cc]) {
      assert.deepEqual((await cl.next('partyLeaderChanged')).data, { partyId: party.partyId, leaderPublicId: b.publicId, previousLeaderPublicId: a.publicId });
    }

    // Kick: everyone hears it; the kicked member gets exactly one copy and leaves the channel.
    await h.req(b, 'POST', `/v1/parties/${party.partyId}/kick`, { body: { publicId: c.publicId } });
    for (const cl of [ca, cb, cc]) {
      const l = await cl.next('partyMemberLeft');
      assert.deepEqual(l.data, { partyId: party.partyId, publicId: c.publicId, reason: 'kicked', disbanded: false });
    }
    await cc.sync(h, c.id);
    assert.equal(cc.seen('partyMemberLeft').length, 0);

    // Party chat now reaches a and b but not the kicked c.
    cb.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'bye Kai' });
    await ca.next('chatMessage');
    await cb.next('chatMessage');
    await cc.sync(h, c.id);
    assert.equal(cc.seen('chatMessage').length, 0, 'a kicked member still received party chat');

    // Leave (the leader: leadership passes to a), then the last one leaves: disbanded.
    await h.req(b, 'POST', `/v1/parties/${party.partyId}/leave`);
    for (const cl of [ca, cb]) assert.equal((await cl.next('partyMemberLeft')).data.reason, 'left');
    assert.equal((await ca.next('partyLeaderChanged')).data.leaderPublicId, a.publicId);
    await h.req(a, 'POST', `/v1/parties/${party.partyId}/leave`);
    const last = await ca.next('partyMemberLeft');
    assert.deepEqual(last.data, { partyId: party.partyId, publicId: a.publicId, reason: 'left', disbanded: true });
    await ca.sync(h, a.id);
    await cb.sync(h, b.id);
    assert.ok(!h.app.realtime.subscribedChannels().includes(partyChannel(party.partyId)), 'the node still listens to a disbanded party');
  });

  it('a socket opened while already in a party is on the party channel', async () => {
    const a = await user('Lea');
    const party = (await h.req(a, 'POST', '/v1/parties', { body: {} })).body;
    const ca = await open(a);
    await h.req(a, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'over http' } });
    const m = await ca.next('chatMessage');
    assert.equal(m.data.body, 'over http');
    assert.equal(m.data.channel, 'party');
  });

  it('blocks and mutes filter chat: blocked and muted authors are not delivered', async () => {
    const [a, b, c] = await newUsers('Mo', 'Ned', 'Ola');
    const { party, sockets } = await partyWithSockets(a, [b, c]);
    const [ca, cb, cc] = sockets;
    // b blocks c (after both joined), a mutes c.
    assert.equal((await h.req(b, 'POST', `/v1/blocks/${c.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', `/v1/mutes/${c.publicId}`)).status, 204);
    cc.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'from Ola' });
    assert.equal((await cc.next('chatMessage')).data.body, 'from Ola');
    // b (blocked) also must not get c's message, nor c get b's.
    cb.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'from Ned' });
    // Same channel, same node: when a's copy of b's message is here, c's earlier one would have been too.
    assert.equal((await ca.next('chatMessage')).data.body, 'from Ned');
    assert.equal((await cb.next('chatMessage')).data.body, 'from Ned');
    assert.equal(ca.seen('chatMessage', (d) => d.fromPublicId === c.publicId).length, 0, 'muter got the muted author');
    assert.equal(cb.seen('chatMessage', (d) => d.fromPublicId === c.publicId).length, 0, 'blocker got the blocked author');
    ca.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'from Mo' });
    assert.equal((await cc.next('chatMessage')).data.body, 'from Mo');
    assert.equal(cc.seen('chatMessage', (d) => d.fromPublicId === b.publicId).length, 0, 'blocked user got the blocker');

    // dm: a muted peer's messages are stored but not delivered to the muter.
    const dm = (await h.req(c, 'GET', '/v1/friends')).body.find((f: { publicId: string }) => f.publicId === a.publicId).dmChannelId;
    cc.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: 'psst' });
    assert.equal((await cc.next('chatMessage')).data.body, 'psst');
    await ca.sync(h, a.id);
    assert.equal(ca.seen('chatMessage', (d) => d.body === 'psst').length, 0);
    // Presence of the muted user is not delivered either.
    cc.send({ type: 'presenceUpdate', state: 'away' });
    await cc.next('presenceUpdated');
    await ca.sync(h, a.id);
    assert.equal(ca.seen('friendPresenceChanged', (d) => d.publicId === c.publicId && d.state === 'away').length, 0);
  });

  it('several authors writing at once are each filtered by their own mutes (their reads may share one statement)', async () => {
    const [lead, b, c, d, e] = await Promise.all(['Abe', 'Bea', 'Cy', 'Dee', 'Eve'].map((n) => user(n)));
    const { party, sockets } = await partyWithSockets(lead, [b, c, d, e], { maxSize: 8 });
    const [cl, cb, cc, cd, ce] = sockets;
    // The mutes drop every node's cache: the three authors below are all read again, together.
    assert.equal((await h.req(lead, 'POST', `/v1/mutes/${c.publicId}`)).status, 204);
    assert.equal((await h.req(lead, 'POST', `/v1/mutes/${e.publicId}`)).status, 204);
    assert.equal((await h.req(b, 'POST', `/v1/mutes/${d.publicId}`)).status, 204);
    for (const [conn, who] of [
      [cc, 'c'],
      [cd, 'd'],
      [ce, 'e'],
    ] as const) {
      conn.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: `at once from ${who}` });
    }
    for (const conn of [cc, cd, ce]) await conn.next('chatMessage', (m) => m.body.startsWith('at once from'));
    // A fence on the party channel itself: its messages reach each socket in order, so once the fence is in,
    // every message above has been delivered or dropped. (A user-channel marker could overtake them.)
    cl.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'fence' });
    await cl.next('chatMessage', (m) => m.body === 'fence');
    await cb.next('chatMessage', (m) => m.body === 'fence');
    const bodies = (conn: Client) => conn.seen('chatMessage', (m) => m.body.startsWith('at once from')).map((f) => (f.data as { body: string }).body).sort();
    assert.deepEqual(bodies(cl), ['at once from d']);
    assert.deepEqual(bodies(cb), ['at once from c', 'at once from e']);
  });

  it('a mute whose invalidation was lost takes effect within the relations cache time while the author keeps writing', async () => {
    const [a, b, c] = await newUsers('Uma', 'Vic', 'Wes');
    const { party, sockets } = await partyWithSockets(a, [b, c]);
    const [ca, cb, cc] = sockets;
    cc.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'warm' });
    assert.equal((await ca.next('chatMessage')).data.body, 'warm');
    // Written behind the service's back: no relations event is published, as when Redis was unreachable.
    await h.db.db.query('INSERT INTO mutes (muter, muted) VALUES ($1, $2)', [a.id, c.id]);
    const mutedAt = Date.now();
    const sentAt = new Map<string, number>();
    for (let i = 0; Date.now() - mutedAt < RELATIONS_CACHE_MS * 2; i++) {
      const body = `tick ${i}`;
      sentAt.set(body, Date.now());
      cc.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body });
      await cb.next('chatMessage', (d) => d.body === body);
      await new Promise((r) => setTimeout(r, 80));
    }
    await ca.sync(h, a.id);
    const late = ca.seen('chatMessage', (d) => d.body.startsWith('tick ')).filter((f) => sentAt.get((f.data as { body: string }).body)! >= mutedAt + RELATIONS_CACHE_MS);
    assert.deepEqual(late, [], 'the muter still got the author after the cache time');
    // The sender's own copies keep arriving: only the muter's view changed.
    assert.ok(cc.seen('chatMessage', (d) => d.body.startsWith('tick ')).length >= sentAt.size - 1);
  });

  it('erasing the account closes its sockets with 4001', async () => {
    const a = await user('Pam');
    const ca = await open(a);
    assert.equal((await h.req(a, 'DELETE', '/v1/me')).status, 200);
    assert.equal((await ca.closed).code, 4001);
  });
});
