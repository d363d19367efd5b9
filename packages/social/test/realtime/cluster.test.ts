// Two social nodes on the same database and state store (real Redis and PostgreSQL when REDIS_URL and
// DATABASE_URL are set: separate connections, so events cross Redis pub/sub; otherwise two apps sharing the
// in-memory stores). Events made on node A reach sockets on node B; the last socket across nodes decides offline
// (no presence grace here; presence-grace.test.ts has it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { befriend } from '../support.js';
import { connect, type Client, realtimeSuite } from './support.js';

/** True when no frame a client got carries the publishing node's id. */
const carriesNoNodeId = (c: Client) => c.frames.every((f) => !('origin' in (f as object)) && !JSON.stringify(f).includes('"origin"'));

describe(`realtime: two nodes (${process.env.REDIS_URL ? 'Redis pub/sub' : 'shared memory store'})`, () => {
  const { h, nodeA, nodeB, ready } = realtimeSuite({ SOCIAL__PRESENCE__SWEEPMILLISECONDS: '200', SOCIAL__PRESENCE__GRACEMILLISECONDS: '0' }, { second: { SOCIAL__PRESENCE__SWEEPMILLISECONDS: '200', SOCIAL__PRESENCE__GRACEMILLISECONDS: '0' } });

  it('a friend request, a presence change, a party join and a chat message made on node A reach node B', async () => {
    const [a, b] = await h.users('Anya', 'Boris');
    const onA = await ready(await connect(nodeA.ws, a.token));
    const onB = await ready(await connect(nodeB.urls.ws, b.token));

    // Friend request over node A's HTTP → b's socket on node B.
    await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    assert.equal((await onB.next('friendRequestReceived')).data.publicId, a.publicId);
    // Accepted over node B's HTTP → a's socket on node A.
    const acc = await fetch(`${nodeB.urls.http}/v1/friends/requests/${a.publicId}/accept`, { method: 'POST', headers: { authorization: `Bearer ${b.token}` } });
    assert.equal(acc.status, 200);
    assert.equal((await onA.next('friendRequestAccepted')).data.publicId, b.publicId);

    // Presence frame on node A → node B.
    onA.send({ type: 'presenceUpdate', state: 'away' });
    await onA.next('presenceUpdated');
    assert.equal((await onB.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'away')).data.sameGame, false);

    // a creates a party (node A), invites b; b joins over node B's HTTP: a's socket on A hears it, b's socket on B
    // joins the party channel on node B.
    const party = (await h.req(a, 'POST', '/v1/parties', { body: {} })).body;
    const inv = (await h.req(a, 'POST', `/v1/parties/${party.partyId}/invites`, { body: { toPublicId: b.publicId } })).body;
    assert.equal((await onB.next('partyInviteReceived')).data.inviteId, inv.inviteId);
    const join = await fetch(`${nodeB.urls.http}/v1/parties/${party.partyId}/join`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inviteId: inv.inviteId }),
    });
    assert.equal(join.status, 200);
    assert.equal((await onA.next('partyMemberJoined')).data.member.publicId, b.publicId);
    assert.equal((await onB.next('partyMemberJoined')).data.member.publicId, b.publicId);
    await onB.sync(h, b.id);

    // Chat from node A's socket reaches b on node B (party channel), and the other way round.
    onA.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'hello from A' });
    assert.equal((await onB.next('chatMessage')).data.body, 'hello from A');
    assert.equal((await onA.next('chatMessage')).data.body, 'hello from A');
    onB.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'hello from B' });
    assert.equal((await onA.next('chatMessage', (d) => d.body === 'hello from B')).data.fromPublicId, b.publicId);
    // Exactly once each: a node hands its own events to its local sockets directly and skips their echo from
    // the store; the other node gets them through the store.
    await onB.next('chatMessage', (d) => d.body === 'hello from B');
    await new Promise((r) => setTimeout(r, 300));
    for (const c of [onA, onB]) {
      for (const body of ['hello from A', 'hello from B']) {
        assert.equal(c.frames.filter((f) => f.type === 'chatMessage' && (f.data as { body: string }).body === body).length, 1, `${body} once`);
      }
    }
    assert.ok(carriesNoNodeId(onA) && carriesNoNodeId(onB), 'no node id reaches a client');
    assert.deepEqual([onA.binaryFrames, onB.binaryFrames], [0, 0], 'events are text frames');
    // Presence went to node B as one many-recipient message on the fan-out channel: delivered once there too.
    assert.equal(onB.frames.filter((f) => f.type === 'friendPresenceChanged' && (f.data as { publicId: string; state: string }).publicId === a.publicId && (f.data as { state: string }).state === 'away').length, 1);
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    onA.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: 'dm across nodes' });
    assert.equal((await onB.next('chatMessage', (d) => d.channel === 'dm')).data.body, 'dm across nodes');
  });

  it('a user with sockets on both nodes goes offline only when the last one closes', async () => {
    const [a, b] = await h.friends('Cora', 'Dmitri');
    const watcher = await ready(await connect(nodeA.ws, b.token));
    const a1 = await ready(await connect(nodeA.ws, a.token));
    const a2 = await ready(await connect(nodeB.urls.ws, a.token));
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
    await a1.close();
    await new Promise((r) => setTimeout(r, 300));
    await watcher.sync(h, b.id);
    assert.equal(watcher.seen('friendPresenceChanged', (d) => d.publicId === a.publicId).length, 0, 'offline while node B still held a socket');
    await a2.close();
    await watcher.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'offline');
    await new Promise((r) => setTimeout(r, 300));
    await watcher.sync(h, b.id);
    assert.equal(watcher.seen('friendPresenceChanged', (d) => d.publicId === a.publicId).length, 0, 'offline announced twice');
  });

  it('one subscription per channel per node, whatever the number of local sockets', async () => {
    const a = await h.user('Ezio');
    const sockets = await Promise.all([1, 2, 3].map(() => connect(nodeA.ws, a.token)));
    for (const s of sockets) await ready(s);
    const mine = h.app.realtime.subscribedChannels().filter((c) => c === `social:user:${a.id}`);
    assert.equal(mine.length, 1);
    for (const s of sockets) await s.close();
    for (let i = 0; i < 100 && h.app.realtime.subscribedChannels().includes(`social:user:${a.id}`); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(!h.app.realtime.subscribedChannels().includes(`social:user:${a.id}`), 'the last socket out did not unsubscribe');
  });

  it('a mute or block made on node A applies at once to party chat on node B, also after chat was delivered, and lifts with unmute/unblock', async () => {
    const [a, b, c] = await h.users('Aino', 'Bea', 'Cid');
    await befriend(h, a, b);
    await befriend(h, a, c);
    const party = await h.party(a, [b, c], { visibility: 'FriendsOnly' });
    const onA = await ready(await connect(nodeA.ws, a.token));
    const onB = await ready(await connect(nodeB.urls.ws, b.token));
    const onC = await ready(await connect(nodeB.urls.ws, c.token));
    const chat = async (from: Client, body: string) => {
      from.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body });
      await from.next('chatMessage', (d) => d.body === body);
    };
    /** `from` sends `body`, and it has reached `witness`. */
    const relayed = async (from: Client, body: string, witness: Client) => {
      await chat(from, body);
      await witness.next('chatMessage', (d) => d.body === body);
    };
    // b and c share node B and the channel: once c has a message, b's copy (if any) was sent before it.
    const got = (who: Client, body: string) => who.seen('chatMessage', (d) => d.body === body).length;

    // Both nodes have now read who is excluded for a's and b's messages (nobody).
    await relayed(onA, 'a1', onC);
    assert.equal(got(onB, 'a1'), 1);
    await relayed(onB, 'b1', onA);

    // b mutes a over node A's HTTP: node B must stop delivering a's messages to b.
    assert.equal((await h.req(b, 'POST', `/v1/mutes/${a.publicId}`)).status, 204);
    await relayed(onA, 'a2', onC);
    assert.equal(got(onB, 'a2'), 0, 'the muter got the muted author');
    assert.equal((await h.req(b, 'DELETE', `/v1/mutes/${a.publicId}`)).status, 204);
    await relayed(onA, 'a3', onC);
    assert.equal(got(onB, 'a3'), 1, 'unmute did not lift the filter');

    // a blocks b: neither receives the other's messages, on either node.
    assert.equal((await h.req(a, 'POST', `/v1/blocks/${b.publicId}`)).status, 204);
    await relayed(onA, 'a4', onC);
    assert.equal(got(onB, 'a4'), 0, 'the blocked user got the blocker');
    await chat(onB, 'b2');
    await relayed(onC, 'c1', onA);
    assert.equal(got(onA, 'b2'), 0, 'the blocker got the blocked user');
    assert.equal((await h.req(a, 'DELETE', `/v1/blocks/${b.publicId}`)).status, 204);
    await relayed(onB, 'b3', onA);
    await relayed(onA, 'a5', onB);
  });
});
