// Rolling upgrades (docs/deployment.md, "Rolling upgrades"; docs/decisions/0020-versioned-messages.md): a social
// node of this release fed the messages a node of the previous release wrote, as recorded from that release's code
// (packages/e2e/test/fixtures/wire/previous.json, scripts/record-wire-fixtures.ts), published on the channels the
// node subscribes to through the real store (Redis with REDIS_URL): its sockets get the events, the revocation
// closes the socket, the sanction refuses chat; a stored presence record is read. The recorded ids are the test's users'; times are moved to now.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { FANOUT_CHANNEL, partyChannel, RELATIONS_CHANNEL, userChannel } from '../../src/services/events.js';
import { AUTH_REVOCATION_CHANNEL, REVOCATIONS_CHANNEL } from '../../src/services/revocations.js';
import { AUTH_SANCTION_CHANNEL } from '../../src/services/sanctions.js';
import { befriend, type TestUser } from '../support.js';
import { connect, realtimeSuite, type Client } from './support.js';

interface Recorded {
  by: string;
  channel?: string;
  raw: string;
}
const previous = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../e2e/test/fixtures/wire/previous.json'), 'utf8')) as {
  messages: Record<string, Recorded[]>;
};

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/** The recording with this test's ids in (`values`: placeholder name → value; others: fresh UUIDs) and its times moved so its earliest is now. */
function fill(raw: string, values: Record<string, string>): string {
  const fresh = new Map<string, string>();
  const times = [...raw.matchAll(ISO)].map((m) => Date.parse(m[0]));
  const shift = times.length ? Date.now() - Math.min(...times) : 0;
  return raw
    .replace(/\{\{([^}]+)\}\}/g, (_p, name: string) => values[name] ?? fresh.get(name) ?? (fresh.set(name, randomUUID()), fresh.get(name)!))
    .replace(ISO, (t) => new Date(Date.parse(t) + shift).toISOString());
}

describe(`rolling upgrade: a node reads the previous release's messages (${process.env.REDIS_URL ? 'Redis' : 'memory store'})`, () => {
  const { h, nodeA, ready } = realtimeSuite();
  const open = async (u: TestUser): Promise<Client> => ready(await connect(nodeA.ws, u.token));
  const publish = (channel: string, raw: string) => h.state.state.publish(channel, raw);
  const pick = (kind: string, pred: (r: Recorded) => boolean = () => true) => {
    const found = (previous.messages[kind] ?? []).filter(pred);
    assert.ok(found.length, `a recorded ${kind} message`);
    return found;
  };

  it('fan-out (presence and profile), user-channel and party-channel events reach the sockets', async () => {
    const [a, b, c] = await h.users('Ada', 'Bea', 'Cid');
    await befriend(h, a, b);
    const party = await h.party(a, [b], { visibility: 'FriendsOnly' });
    const values: Record<string, string> = { 'user:a': a.id, 'user:b': b.id, 'user:c': c.id, 'public:a': a.publicId, 'public:b': b.publicId, 'public:c': c.publicId, party: party.partyId };
    for (const u of ['a', 'b', 'c']) values[`handle:${u}`] = ({ a, b, c } as Record<string, TestUser>)[u].fullHandle;
    const onA = await open(a);
    const onB = await open(b);

    // The presence fan-out, as the previous release wrote it (one source for many users), with and without the replay log.
    for (const m of pick('social.fanout', (r) => r.raw.includes('"presence"'))) await publish(FANOUT_CHANNEL, fill(m.raw, values));
    const presence = await onB.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'away');
    assert.equal(presence.data.sameGame, false, 'made into the payload for the socket (per-socket presence)');
    await onB.next('friendPresenceChanged', (d) => d.publicId === a.publicId);
    for (const m of pick('social.fanout', (r) => r.raw.includes('"groups"'))) await publish(FANOUT_CHANNEL, fill(m.raw, values));
    assert.equal((await onB.next('friendProfileChanged', (d) => d.publicId === a.publicId)).data.displayName, 'Anyanka');

    // User-channel events recorded for user b (a friend request and its notification).
    const toB = pick('social.user', (r) => r.channel === 'social:user:{{user:b}}' && r.raw.includes('"friendRequestReceived"'));
    for (const m of toB) await publish(userChannel(b.id), fill(m.raw, values));
    assert.equal((await onB.next('friendRequestReceived', (d) => d.publicId === a.publicId)).data.direction, 'incoming');

    // Party-channel events: a member joined, a chat message (a hears both on the party channel).
    for (const m of pick('social.party')) await publish(partyChannel(party.partyId), fill(m.raw, values));
    await onA.next('partyMemberJoined', (d) => d.member.publicId === b.publicId);
    assert.equal((await onA.next('chatMessage', (d) => d.fromPublicId === a.publicId)).data.body, 'hello party');

    // A presence record the previous release stored: read by this node (c, a friend of a, shows as away).
    await befriend(h, a, c);
    const record = pick('social.presenceRecord')[0];
    await h.state.state.set(`presence:${c.id}`, fill(record.raw, values), 60_000);
    const friends = (await h.req(a, 'GET', '/v1/friends')).body as { publicId: string; presenceState: string }[];
    assert.equal(friends.find((f) => f.publicId === c.publicId)?.presenceState, 'away');

    // A relations notice of the previous release: read (the cache dropped), nothing breaks; chat still flows.
    for (const m of pick('social.relations')) await publish(RELATIONS_CHANNEL, fill(m.raw, values));
    onA.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'after relations' });
    await onB.next('chatMessage', (d) => d.body === 'after relations');
  });

  it("auth's revocation and sanction notices, and a social node's relayed revocation: the socket closes, chat is refused", async () => {
    const [banned, relayed, muted] = await h.users('Dora', 'Eli', 'Fay');
    const banSock = await open(banned);
    const relayedSock = await open(relayed);
    // An account-scope revocation (a ban) as auth of the previous release published it on its channel.
    const ban = pick('auth.revocation', (r) => r.raw.includes('"scope":"account"'))[0];
    await publish(AUTH_REVOCATION_CHANNEL, fill(ban.raw, { account: banned.sub }));
    assert.deepEqual(await banSock.closed, { code: 4003, reason: 'account_disabled' });
    assert.equal((await h.req(banned, 'GET', '/v1/me')).body.code, 'token_revoked');
    // The same, relayed by a social node of the previous release after a webhook.
    const relay = pick('social.revocations', (r) => r.raw.includes('"scope":"account"'))[0];
    await publish(REVOCATIONS_CHANNEL, fill(relay.raw, { account: relayed.sub }));
    assert.deepEqual(await relayedSock.closed, { code: 4003, reason: 'account_disabled' });

    // A chat sanction as auth of the previous release published it: the account's chat is refused.
    const party = await h.party(muted, [], { visibility: 'FriendsOnly' });
    const chat = pick('auth.sanction', (r) => r.raw.includes('"sanction_type":"chat"'))[0];
    await publish(AUTH_SANCTION_CHANNEL, fill(chat.raw, { account: muted.sub }));
    let refused: { status: number; body: { code?: string } } | undefined;
    for (let i = 0; i < 50 && refused?.status !== 403; i++) {
      refused = await h.req(muted, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'hi' } });
      if (refused.status !== 403) await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual([refused?.status, refused?.body.code], [403, 'chat_restricted']);
  });
});
