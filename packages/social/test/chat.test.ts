// Chat: dm and party channels, sendChatMessage rules, history paging, retention purge, feature switch.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { purgeChat, sendChatMessage } from '../src/index.js';
import { userById } from '../src/services/users.js';
import { befriend, useHarness } from './support.js';
import { assertError } from '@platform/kit/testing';

describe('chat', () => {
  const h = useHarness({ SOCIAL__CHAT__RETENTIONDAYS: '30' }, { now: () => new Date(clock), checkAccountIds: true });
  let clock = Date.parse('2026-01-10T12:00:00Z');

  it('dm: friends send, both read newest first; chatMessage events; others 404', async () => {
    const [a, b, c] = await h.users('Chatty', 'Reader', 'Snoop');
    await befriend(h, a, b);
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    const recB = await h.events(b);
    const sent = [];
    for (const text of ['one', 'two', 'three']) {
      clock += 1000;
      const r = await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: text } });
      assert.equal(r.status, 201);
      sent.push(r.body);
    }
    assert.deepEqual(Object.keys(sent[0]).sort(), ['body', 'channel', 'channelId', 'fromPublicId', 'messageId', 'sentAt']);
    assert.equal(sent[0].fromPublicId, a.publicId);
    const evs = await recB.next('chatMessage', 3);
    assert.deepEqual(evs.map((e) => (e.data as any).body), ['one', 'two', 'three']);
    await recB.stop();
    const hist = await h.req(b, 'GET', `/v1/chat/dm/${dm}/messages`);
    assert.equal(hist.status, 200);
    assert.deepEqual(hist.body.messages.map((m: any) => m.body), ['three', 'two', 'one']);
    const limited = await h.req(a, 'GET', `/v1/chat/dm/${dm}/messages?limit=2`);
    assert.deepEqual(limited.body.messages.map((m: any) => m.body), ['three', 'two']);
    const page2 = await h.req(a, 'GET', `/v1/chat/dm/${dm}/messages?limit=2&before=${encodeURIComponent(limited.body.messages[1].sentAt)}`);
    assert.deepEqual(page2.body.messages.map((m: any) => m.body), ['one']);
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'foo=1']) {
      const x = await h.req(a, 'GET', `/v1/chat/dm/${dm}/messages?${q}`);
      assert.equal(x.status, 400, q);
    }
    // Instants JavaScript parses and PostgreSQL refuses, and non-instants: 400, never 500.
    for (const before of ['99999', '-000001-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '+010000-01-01T00:00:00Z', 'yesterday', '2026-13-01T00:00:00Z']) {
      const x = await h.req(a, 'GET', `/v1/chat/dm/${dm}/messages?before=${encodeURIComponent(before)}`);
      assert.equal(x.status, 400, before);
      assert.equal(x.body.code, 'validation_failed', before);
    }
    const edge = await h.req(a, 'GET', `/v1/chat/dm/${dm}/messages?before=${encodeURIComponent('0001-01-01T00:00:00Z')}`);
    assert.deepEqual([edge.status, edge.body.messages], [200, []]);
    for (const url of [`/v1/chat/dm/${dm}/messages`, `/v1/chat/dm/not-a-guid/messages`, `/v1/chat/party/${dm}/messages`]) {
      const x = await h.req(c, 'GET', url);
      assert.equal(x.status, 404, url);
      assert.equal(x.body.code, 'channel_not_found');
    }
    assert.equal((await h.req(c, 'GET', `/v1/chat/guild/${dm}/messages`)).status, 400);
    assert.equal((await h.req(c, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'hi' } })).body.code, 'channel_not_found');
    // Body rules.
    for (const [body, code] of [[{ body: '   ' }, 'invalid_body'], [{ body: 'x'.repeat(2001) }, 'body_too_long'], [{ body: 5 }, 'validation_failed'], [{}, 'validation_failed'], [{ body: 'x', to: 'y' }, 'validation_failed']] as const) {
      const x = await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body });
      assert.equal(x.status, 400, JSON.stringify(body));
      assert.equal(x.body.code, code);
    }
    // After unfriending the history stays readable, sending is refused.
    await h.req(a, 'DELETE', `/v1/friends/${b.publicId}`);
    assert.equal((await h.req(b, 'GET', `/v1/chat/dm/${dm}/messages`)).body.messages.length, 3);
    assertError(await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'still there?' } }), 403, 'not_friends');
  });

  it('mute: the muter keeps the history but gets no chatMessage event', async () => {
    const [a, b] = await h.friends('Loud', 'Quiet');
    const dm = (await h.req(b, 'GET', '/v1/friends')).body[0].dmChannelId;
    await h.req(b, 'POST', `/v1/mutes/${a.publicId}`);
    const recB = await h.events(b);
    const recA = await h.events(a);
    // The service function the realtime layer calls for chatSend frames.
    const sender = (await userById(h.db.db, a.id))!;
    await sendChatMessage(h.app.ctx, sender, { channel: 'dm', channelId: dm, body: 'muted words' });
    await recB.expectTypes([]);
    await recA.expectTypes(['chatMessage']);
    await recA.stop();
    await recB.stop();
    assert.equal((await h.req(b, 'GET', `/v1/chat/dm/${dm}/messages`)).body.messages[0].body, 'muted words');
  });

  it('party channel: members only; blocked authors hidden from the blocker’s history', async () => {
    const [lead, m, m2] = await h.users('PartyLead', 'PartyMate', 'PartyThird');
    const p = (await h.req(lead, 'POST', '/v1/parties', { body: { visibility: 'Public' } })).body;
    await h.req(m, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} });
    await h.req(m2, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} });
    const rec = await h.partyEvents(p.partyId);
    assert.equal((await h.req(m, 'POST', `/v1/chat/party/${p.partyId}/messages`, { body: { body: 'gg' } })).status, 201);
    assert.equal((await h.req(m2, 'POST', `/v1/chat/party/${p.partyId}/messages`, { body: { body: 'wp' } })).status, 201);
    const evs = await rec.next('chatMessage', 2);
    assert.equal((evs[0].data as any).fromPublicId, m.publicId);
    assert.equal(evs[0].actorPublicId, m.publicId);
    await rec.stop();
    assert.deepEqual((await h.req(lead, 'GET', `/v1/chat/party/${p.partyId}/messages`)).body.messages.map((x: any) => x.body), ['wp', 'gg']);
    await h.req(lead, 'POST', `/v1/blocks/${m2.publicId}`);
    assert.deepEqual((await h.req(lead, 'GET', `/v1/chat/party/${p.partyId}/messages`)).body.messages.map((x: any) => x.body), ['gg']);
    // The lead wrote nothing, so m2 still sees everything.
    assert.deepEqual((await h.req(m2, 'GET', `/v1/chat/party/${p.partyId}/messages`)).body.messages.map((x: any) => x.body), ['wp', 'gg']);
    await h.req(m, 'POST', `/v1/parties/${p.partyId}/leave`);
    assert.equal((await h.req(m, 'GET', `/v1/chat/party/${p.partyId}/messages`)).status, 404);
    assert.equal((await h.req(m, 'POST', `/v1/chat/party/${p.partyId}/messages`, { body: { body: 'bye' } })).status, 404);
  });

  it('retention: messages older than RetentionDays are purged', async () => {
    const [a] = await h.friends('Old', 'Timer');
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'ancient' } });
    clock += 20 * 86_400_000;
    await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'recent' } });
    const purged = await purgeChat(h.app.ctx, new Date(clock + 11 * 86_400_000));
    assert.ok(purged >= 1);
    assert.deepEqual((await h.req(a, 'GET', `/v1/chat/dm/${dm}/messages`)).body.messages.map((m: any) => m.body), ['recent']);
  });
});

describe('chat disabled', () => {
  const h = useHarness({ SOCIAL__CHAT__ENABLED: 'false' });

  it('history and sending answer 404 feature_disabled', async () => {
    const [a] = await h.friends('NoChat', 'NoChat2');
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    for (const [method, body] of [['GET', undefined], ['POST', { body: 'hi' }]] as const) {
      const r = await h.req(a, method, `/v1/chat/dm/${dm}/messages`, { body });
      assertError(r, 404, 'feature_disabled');
    }
  });
});

describe('rate limits', () => {
  const h = useHarness({ SOCIAL__LIMITS__CHATPERMINUTE: '3', SOCIAL__LIMITS__ACTIONSPERMINUTE: '2' });

  it('chat messages and outreach (requests, invites, reports) are limited per user: 429 rate_limited with Retry-After', async () => {
    const [a, b, c, d] = await h.users('Spammer', 'Target', 'Target2', 'Target3');
    await befriend(h, a, b); // a's first outreach action
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    for (let i = 0; i < 3; i++) assert.equal((await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: `m${i}` } })).status, 201);
    const chat = await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'one too many' } });
    assertError(chat, 429, 'rate_limited');
    assert.ok(Number(chat.headers['retry-after']) >= 1);
    assert.equal((await h.req(b, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'others unaffected' } })).status, 201);
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: c.publicId } })).status, 201);
    assertError(await h.req(a, 'POST', '/v1/reports', { body: { targetPublicId: d.publicId, reason: 'spam' } }), 429, 'rate_limited');
  });

  it('chat messages sent at the same moment are each counted (their limit hits go to the store together)', async () => {
    const [a, b] = await h.friends('Burst', 'Reader');
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: `burst ${i}` } })));
    assert.deepEqual(
      rs.map((r) => r.status).sort(),
      [201, 201, 201, 429, 429, 429, 429, 429],
    );
    const history = await h.req(b, 'GET', `/v1/chat/dm/${dm}/messages`);
    assert.equal(history.body.messages?.length ?? history.body.length, 3);
  });

  it('a message PostgreSQL cannot store (NUL) is refused alone with 400 invalid_character; messages of other parties sent with it all succeed', async () => {
    const [a, b, c] = await h.users('NulSender', 'OtherPartyB', 'OtherPartyC');
    const pa = (await h.req(a, 'POST', '/v1/parties', { body: {} })).body;
    const pb = (await h.req(b, 'POST', '/v1/parties', { body: { visibility: 'Public' } })).body;
    await h.req(c, 'POST', `/v1/parties/${pb.partyId}/join`, { body: {} });
    const [bad, ...good] = await Promise.all([
      h.req(a, 'POST', `/v1/chat/party/${pa.partyId}/messages`, { body: { body: 'x\u0000y' } }),
      h.req(b, 'POST', `/v1/chat/party/${pb.partyId}/messages`, { body: { body: 'one' } }),
      h.req(c, 'POST', `/v1/chat/party/${pb.partyId}/messages`, { body: { body: 'two' } }),
      h.req(a, 'POST', `/v1/chat/party/${pa.partyId}/messages`, { body: { body: 'fine' } }),
    ]);
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.deepEqual([bad.body.code, bad.body.field], ['invalid_character', 'body']);
    assert.deepEqual(good.map((r) => r.status), [201, 201, 201]);
    assert.deepEqual((await h.req(b, 'GET', `/v1/chat/party/${pb.partyId}/messages`)).body.messages.map((x: any) => x.body).sort(), ['one', 'two']);
    // The same rule on path parameters and query strings, and a party bag nested 6,000 levels deep: 400, not 500.
    assert.deepEqual(pick(await h.req(a, 'GET', '/v1/notes/%00')), ['invalid_character', 'publicId']);
    assert.deepEqual(pick(await h.req(a, 'GET', '/v1/users/search?handle=%00')), ['invalid_character', 'handle']);
    const raw = `{"bag":${'{"a":'.repeat(6000)}{}${'}'.repeat(6000)}}`;
    assert.deepEqual(pick(await h.req(a, 'POST', `/v1/parties/${pa.partyId}/join-metadata`, { raw })), ['too_deep', 'bag.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a']);
    assert.equal((await h.req(a, 'GET', '/v1/me')).status, 200);
  });
});

const pick = (r: { status: number; body: any }) => (r.status === 400 ? [r.body.code, r.body.field] : [r.status, r.body]);
