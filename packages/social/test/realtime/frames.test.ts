// Client frames (heartbeat, presenceUpdate, chatSend), every error frame, the frame size limit (1009), the
// per-socket rate limit (rate_limited, then 1008) and the slow-consumer cut (4008).
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { userChannel } from '../../src/index.js';
import { useHarness } from '../support.js';
import { connect, listen } from './support.js';

describe('realtime: client frames', () => {
  const h = useHarness({ SOCIAL__LIMITS__CHATPERMINUTE: '5', SOCIAL__REALTIME__FRAMESPERSECOND: '20', SOCIAL__REALTIME__SENDBUFFERBYTES: '65536' }, { checkAccountIds: true });
  let url: { ws: string; http: string };
  before(async () => {
    url = await listen(h.app);
  });

  it('heartbeat answers heartbeatAck and refreshes the presence TTL', async () => {
    const u = await h.user('Ada');
    const c = await connect(url.ws, u.token);
    c.send({ type: 'heartbeat' });
    assert.deepEqual((await c.next('heartbeatAck')).data, { presence: 'live' });
    const key = `presence:${u.id}`;
    assert.ok((await h.state.state.ttl(key)) > 50_000);
    await c.close();
  });

  it('presenceUpdate sets state and rich presence, answers presenceUpdated, friends get friendPresenceChanged', async () => {
    const [a, b] = await h.friends('Bo', 'Cy');
    const cb = await connect(url.ws, b.token);
    const ca = await connect(url.ws, a.token);
    await cb.next('friendPresenceChanged', (d) => d.publicId === a.publicId && d.state === 'online');
    ca.send({ type: 'presenceUpdate', state: 'DnD', richPresence: { activity: 'Raiding', joinable: true } });
    const upd = await ca.next('presenceUpdated');
    assert.deepEqual(upd.data, { publicId: a.publicId, state: 'dnd', richPresence: { activity: 'Raiding', joinable: true } });
    const ev = await cb.next('friendPresenceChanged', (d) => d.state === 'dnd');
    // No game context on either side: rich presence is not shown across (isolated).
    assert.deepEqual(ev.data, { publicId: a.publicId, state: 'dnd', sameGame: false });
    ca.send({ type: 'presenceUpdate', richPresence: null });
    assert.equal((await ca.next('presenceUpdated')).data.richPresence, undefined);
    // HTTP agrees.
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'dnd');
    await ca.close();
    await cb.close();
  });

  it('chatSend dm: stored, delivered to the peer and to every socket of the sender', async () => {
    const [a, b] = await h.friends('Di', 'Ed');
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    const a1 = await connect(url.ws, a.token);
    const a2 = await connect(url.ws, a.token, { via: 'query' });
    const b1 = await connect(url.ws, b.token);
    a1.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: '  hello  ' });
    for (const c of [a1, a2, b1]) {
      const m = await c.next('chatMessage');
      assert.equal(m.data.body, 'hello');
      assert.equal(m.data.fromPublicId, a.publicId);
      assert.equal(m.data.channel, 'dm');
      assert.equal(m.data.channelId, dm);
    }
    const hist = await h.req(b, 'GET', `/v1/chat/dm/${dm}/messages`);
    assert.equal(hist.body.messages[0].body, 'hello');
    for (const c of [a1, a2, b1]) await c.close();
  });

  it('chatSend party: delivered on the party channel; domain errors come back as error frames', async () => {
    const [a, stranger] = await h.users('Flo', 'Gil');
    const party = (await h.req(a, 'POST', '/v1/parties', { body: {} })).body;
    const ca = await connect(url.ws, a.token);
    const cs = await connect(url.ws, stranger.token);
    ca.send({ type: 'heartbeat' });
    await ca.next('heartbeatAck');
    ca.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'gg' });
    assert.equal((await ca.next('chatMessage')).data.body, 'gg');
    cs.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'let me in' });
    assert.equal((await cs.next('error')).data.code, 'channel_not_found');
    ca.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: '   ' });
    assert.equal((await ca.next('error')).data.code, 'invalid_body');
    ca.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'x'.repeat(2001) });
    assert.equal((await ca.next('error')).data.code, 'body_too_long');
    ca.send({ type: 'chatSend', channel: 'dm', channelId: '00000000-0000-5000-8000-000000000000', body: 'hi' });
    assert.equal((await ca.next('error')).data.code, 'channel_not_found');
    // The chat limit (5 per minute here; one used above) answers rate_limited with a retry hint.
    for (let i = 0; i < 4; i++) ca.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: `m${i}` });
    for (let i = 0; i < 4; i++) await ca.next('chatMessage');
    ca.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'one too many' });
    const limited = await ca.next('error');
    assert.equal(limited.data.code, 'rate_limited');
    assert.ok(limited.data.retryAfterSeconds >= 1);
    await ca.close();
    await cs.close();
  });

  it('chatSend while the chat feature is off: feature_disabled', async () => {
    const a = await h.user('Gwen');
    const party = (await h.req(a, 'POST', '/v1/parties', { body: {} })).body;
    const c = await connect(url.ws, a.token);
    const config = h.app.ctx.config;
    config.chatEnabled = false;
    try {
      c.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'anyone?' });
      const e = await c.next('error');
      assert.equal(e.data.code, 'feature_disabled');
    } finally {
      config.chatEnabled = true;
    }
    await c.close();
  });

  it('chatSend dm to someone no longer a friend: not_friends', async () => {
    const [a, b] = await h.friends('Hu', 'Io');
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    await h.req(b, 'DELETE', `/v1/friends/${a.publicId}`);
    const c = await connect(url.ws, a.token);
    c.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: 'still there?' });
    assert.equal((await c.next('error')).data.code, 'not_friends');
    await c.close();
  });

  it('bad_frame for unparseable, non-object, typeless, binary and ill-formed frames; unknown_type for unknown types', async () => {
    const u = await h.user('Jo');
    const c = await connect(url.ws, u.token);
    const bad: unknown[] = [
      'not json',
      '[1,2]',
      '"heartbeat"',
      'null',
      {},
      { type: 7 },
      { type: 'heartbeat', extra: 1 },
      { type: 'presenceUpdate', state: 'sleeping' },
      { type: 'presenceUpdate', richPresence: { originGameId: 'x' } },
      { type: 'presenceUpdate', richPresence: { activity: 'a'.repeat(129) } },
      { type: 'chatSend', channel: 'party', body: 'no channel id' },
      { type: 'chatSend', channel: 'guild', channelId: 'x', body: 'b' },
      { type: 'chatSend', channel: 'dm', channelId: 'x', body: 5 },
    ];
    for (const f of bad) {
      c.send(typeof f === 'string' ? f : JSON.stringify(f));
      const e = await c.next('error');
      assert.equal(e.data.code, 'bad_frame', JSON.stringify(f));
      assert.equal(typeof e.data.message, 'string');
    }
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    assert.equal((await c.next('error')).data.code, 'bad_frame');
    c.send({ type: 'subscribe', channel: 'everything' });
    assert.equal((await c.next('error')).data.code, 'unknown_type');
    // Over-sized extra is a domain check (2 KiB) after the schema.
    c.send({ type: 'presenceUpdate', richPresence: { extra: { blob: 'x'.repeat(2100) } } });
    assert.equal((await c.next('error')).data.code, 'rich_presence_too_large');
    // The socket is still usable.
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    await c.close();
  });

  it('bad_frame for text PostgreSQL cannot store and for nesting past the kit limit; other parties chatting meanwhile are served', async () => {
    const [u, other] = await h.users('Nul', 'Clean');
    const mine = (await h.req(u, 'POST', '/v1/parties', { body: {} })).body;
    const theirs = (await h.req(other, 'POST', '/v1/parties', { body: {} })).body;
    const c = await connect(url.ws, u.token);
    const o = await connect(url.ws, other.token);
    for (const c0 of [c, o]) {
      c0.send({ type: 'heartbeat' });
      await c0.next('heartbeatAck');
    }
    o.send({ type: 'chatSend', channel: 'party', channelId: theirs.partyId, body: 'before' });
    c.send({ type: 'chatSend', channel: 'party', channelId: mine.partyId, body: 'x\u0000y' });
    o.send({ type: 'chatSend', channel: 'party', channelId: theirs.partyId, body: 'after' });
    const nul = await c.next('error');
    assert.equal(nul.data.code, 'bad_frame');
    assert.match(nul.data.message, /field body/);
    assert.deepEqual([(await o.next('chatMessage')).data.body, (await o.next('chatMessage')).data.body].sort(), ['after', 'before']);
    const raws = [
      JSON.stringify({ type: 'chatSend', channel: 'party', channelId: mine.partyId, body: 'half \ud83d' }),
      JSON.stringify({ type: 'presenceUpdate', richPresence: { extra: { ['k\u0000']: 1 } } }),
      // 6,000 levels (12 KB, under the frame size limit).
      `{"type":"presenceUpdate","richPresence":{"extra":{"a":${'['.repeat(6000)}${']'.repeat(6000)}}}}`,
    ];
    for (const raw of raws) {
      c.send(raw);
      assert.equal((await c.next('error')).data.code, 'bad_frame', raw.slice(0, 80));
    }
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    await c.close();
    await o.close();
  });

  it('a frame over the size limit (16 KiB) closes the socket with 1009', async () => {
    const u = await h.user('Kim');
    const c = await connect(url.ws, u.token);
    c.send({ type: 'chatSend', channel: 'dm', channelId: 'x', body: 'x'.repeat(17_000) });
    assert.equal((await c.closed).code, 1009);
  });

  it('more frames than the per-second budget: rate_limited error frames, then close 1008 when sustained', async () => {
    const u = await h.user('Lu');
    const c = await connect(url.ws, u.token);
    // 20 per second here: a burst of 30 leaves at least a few refused.
    for (let i = 0; i < 30; i++) c.send({ type: 'heartbeat' });
    const e = await c.next('error');
    assert.equal(e.data.code, 'rate_limited');
    // A sustained flood (a second's worth of refused frames in a row) is cut.
    for (let i = 0; i < 80 && c.ws.readyState === c.ws.OPEN; i++) c.send({ type: 'heartbeat' });
    assert.equal((await c.closed).code, 1008);
  });

  it('a client that stops reading is cut with 4008 once its send buffer passes the limit', async () => {
    const u = await h.user('Max');
    const c = await connect(url.ws, u.token);
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    const raw = (c.ws as unknown as { _socket: Socket })._socket;
    raw.pause();
    // Flood the user's channel (as the domain would with many events): 30 MiB, well past what the loopback TCP
    // buffers of both ends absorb, so the node's own send buffer passes the 64 KiB limit set here.
    const big = JSON.stringify({ type: 'friendProfileChanged', data: { publicId: 'p_x', blob: 'x'.repeat(256 * 1024) } });
    for (let i = 0; i < 120; i++) {
      await h.state.state.publish(userChannel(u.id), big);
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 5));
    }
    raw.resume();
    assert.equal((await c.closed).code, 4008);
  });
});
