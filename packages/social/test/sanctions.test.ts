// Chat sanctions and moderation actions (docs/social.md, "Sanctions"): auth's `sanction` notices on the bus and
// through the outbox route restrict chat on every node (HTTP 403 chat_restricted, socket error frame), lifted
// or expired (by social's own clock) chat works again; a node started later loads the record. Two nodes on the
// same stores (real Redis and PostgreSQL when set). The action's way through the real auth service (success,
// auth refusing a non-moderator): packages/e2e/test/sanctions.test.ts; here what social decides alone.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness, type TestUser } from './support.js';
import { connect, listen, startSecondNode, type Client } from './realtime/support.js';

const notice = (over: Record<string, unknown>) => ({
  type: 'sanction',
  event: 'applied',
  sanction_id: randomUUID(),
  sanction_type: 'chat',
  expires_at: null,
  at: new Date().toISOString(),
  ...over,
});

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('chat sanctions and moderation actions', () => {
  let h: Harness;
  let nodeA: { ws: string; http: string };
  let nodeB: Awaited<ReturnType<typeof startSecondNode>>;
  let mod: TestUser;
  let serverToken: string;
  const clients: Client[] = [];

  before(async () => {
    // Auth is "unreachable": a closed port (moderation actions answer 503 auth_unavailable).
    h = await startHarness({ SOCIAL_AUTH_URL: `http://127.0.0.1:${await closedPort()}`, SOCIAL_LIMITS_CHAT_PER_MINUTE: '1000', SOCIAL_LIMITS_ACTIONS_PER_MINUTE: '1000' });
    nodeA = await listen(h.app);
    nodeB = await startSecondNode(h);
    mod = await h.user('Mod', { roles: ['player', 'moderator'] });
    serverToken = await h.keys.sign('service:auth', { roles: ['server'] });
  });
  after(async () => {
    for (const c of clients) c.ws.terminate();
    await nodeB.close();
    h.assertNoAccountIds();
    await h.close();
  });

  /** A player with a party of their own (party chat needs nothing else) and a set-up socket on each node. */
  async function chatter(name: string) {
    const u = await h.user(name);
    const party = (await h.req(u, 'POST', '/v1/parties', { body: { visibility: 'Public' } })).body;
    const socks: Client[] = [];
    for (const ws of [nodeA.ws, nodeB.urls.ws]) {
      const c = await connect(ws, u.token);
      clients.push(c);
      c.send({ type: 'heartbeat' });
      await c.next('heartbeatAck');
      socks.push(c);
    }
    return { u, partyId: party.partyId as string, socks };
  }

  const httpSend = async (url: string, u: TestUser, partyId: string) => {
    const r = await fetch(`${url}/v1/chat/party/${partyId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'hello' }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  /**
   * Chat over HTTP on both nodes and over each socket: refused with chat_restricted (or, `allowed`, delivered).
   * A notice reaches a node through Redis pub/sub a moment after it was published: each node is asked again
   * (at most 2 s) until it answers as expected; its socket is asked after that.
   */
  async function expectChat(p: Awaited<ReturnType<typeof chatter>>, allowed: boolean) {
    for (const url of [nodeA.http, nodeB.urls.http]) {
      let r = await httpSend(url, p.u, p.partyId);
      for (let i = 0; i < 50 && (r.status === 201) !== allowed; i++) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        r = await httpSend(url, p.u, p.partyId);
      }
      if (allowed) assert.equal(r.status, 201, JSON.stringify(r.body));
      else {
        assert.deepEqual([r.status, r.body.code], [403, 'chat_restricted'], url);
        assert.ok('expiresAt' in r.body);
      }
    }
    for (const c of p.socks) {
      const marker = `m-${randomUUID()}`;
      c.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: marker });
      if (allowed) await c.next('chatMessage', (d) => d.body === marker);
      else assert.equal((await c.next('error', (d) => d.code === 'chat_restricted')).data.code, 'chat_restricted');
    }
  }

  it('a chat sanction on the bus refuses chat on both nodes (HTTP and socket); its lift allows it again', async () => {
    const p = await chatter('Loud');
    await expectChat(p, true);
    const n = notice({ account_id: p.u.sub });
    await h.state.state.publish('auth:sanction', JSON.stringify(n));
    await expectChat(p, false);
    // Reading and other frames still work.
    assert.equal((await h.req(p.u, 'GET', `/v1/chat/party/${p.partyId}/messages`)).status, 200);
    await h.state.state.publish('auth:sanction', JSON.stringify({ ...n, event: 'lifted' }));
    await expectChat(p, true);
    // A late redelivery of the applied notice does not bring it back.
    await h.state.state.publish('auth:sanction', JSON.stringify(n));
    await expectChat(p, true);
  });

  it('through the outbox route on one node: both nodes refuse; `expired` ends it; other types are acknowledged and ignored', async () => {
    const p = await chatter('Rude');
    const post = (body: unknown) => fetch(`${nodeA.http}/v1/internal/auth-events`, { method: 'POST', headers: { authorization: `Bearer ${serverToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const other = await post({ id: randomUUID(), ...notice({ account_id: p.u.sub, sanction_type: 'ranked' }) });
    assert.deepEqual([other.status, ((await other.json()) as { status: string }).status], [200, 'ignored']);
    await expectChat(p, true);
    const n = { id: randomUUID(), ...notice({ account_id: p.u.sub, expires_at: new Date(Date.now() + 3_600_000).toISOString() }) };
    const r = await post(n);
    assert.deepEqual([r.status, ((await r.json()) as { status: string }).status], [200, 'processed']);
    await expectChat(p, false);
    // A node started now loads it from the state store.
    const late = await startSecondNode(h);
    try {
      const refused = await httpSend(late.urls.http, p.u, p.partyId);
      assert.deepEqual([refused.status, refused.body.code], [403, 'chat_restricted']);
      assert.equal((await post({ ...n, id: randomUUID(), event: 'expired' })).status, 200);
      await expectChat(p, true);
      assert.equal((await httpSend(late.urls.http, p.u, p.partyId)).status, 201);
    } finally {
      await late.close();
    }
    // Bad notices: a missing field, a bad event, no server token.
    for (const bad of [
      { id: randomUUID(), type: 'sanction', event: 'applied', sanction_id: randomUUID(), sanction_type: 'chat', expires_at: null },
      { id: randomUUID(), ...notice({ account_id: p.u.sub, event: 'paused' }) },
      { id: randomUUID(), ...notice({ account_id: p.u.sub, expires_at: 'soon' }) },
      { id: randomUUID(), ...notice({ account_id: p.u.sub, sanction_id: 'x' }) },
    ]) {
      const b = await post(bad);
      assert.deepEqual([b.status, ((await b.json()) as { code: string }).code], [400, 'validation_failed'], JSON.stringify(bad));
    }
    const player = await fetch(`${nodeA.http}/v1/internal/auth-events`, { method: 'POST', headers: { authorization: `Bearer ${p.u.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: randomUUID(), ...notice({ account_id: p.u.sub }) }) });
    assert.equal(player.status, 403);
    await expectChat(p, true);
  });

  it('a chat sanction past its expires_at is inactive by social’s own clock, without the expired notice', async () => {
    const p = await chatter('Brief');
    const end = Date.now() + 1500;
    await h.state.state.publish('auth:sanction', JSON.stringify(notice({ account_id: p.u.sub, expires_at: new Date(end).toISOString() })));
    const r = await httpSend(nodeB.urls.http, p.u, p.partyId);
    assert.deepEqual([r.status, r.body.code, r.body.expiresAt], [403, 'chat_restricted', new Date(end).toISOString()]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 50));
    await expectChat(p, true);
  });

  it('a chat sanction announced again with an earlier end (shortened on appeal) ends then, whatever order the notices came in', async () => {
    const p = await chatter('Shortened');
    const sanctionId = randomUUID();
    const end = Date.now() + 1500;
    const shortened = notice({ account_id: p.u.sub, sanction_id: sanctionId, expires_at: new Date(end).toISOString() });
    const original = notice({ account_id: p.u.sub, sanction_id: sanctionId, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    // The shortened notice first, then a late redelivery of the original: the earlier end stands.
    await h.state.state.publish('auth:sanction', JSON.stringify(shortened));
    await h.state.state.publish('auth:sanction', JSON.stringify(original));
    await expectChat(p, false);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 50));
    await expectChat(p, true);
  });

  it('an appeal decision from auth is a moderation notice in the player’s inbox (live on the socket), once, naming no one', async () => {
    const p = await chatter('Appellant');
    const post = (body: unknown) => fetch(`${nodeA.http}/v1/internal/auth-events`, { method: 'POST', headers: { authorization: `Bearer ${serverToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const appealId = randomUUID();
    const n = { id: randomUUID(), type: 'appeal', appeal_id: appealId, sanction_id: randomUUID(), account_id: p.u.sub, sanction_type: 'chat', outcome: 'shortened', expires_at: '2031-01-02T03:04:05.000Z', response: 'One hour is enough.', at: new Date().toISOString() };
    const r = await post(n);
    assert.deepEqual([r.status, ((await r.json()) as { status: string }).status], [200, 'processed']);
    const live = await p.socks[0]!.next('notification', (d) => d.kind === 'moderationNotice');
    assert.equal(live.data.data.title, 'Your appeal was answered');
    assert.equal(live.data.data.reference, `appeal:${appealId}`);
    assert.match(live.data.data.message, /chat restriction was shortened and now lasts until 2031-01-02 03:04 UTC\.\n\nOne hour is enough\.$/);
    // The outbox delivers at least once: a redelivery stores nothing new.
    assert.equal((await post(n)).status, 200);
    const inbox = (await h.req(p.u, 'GET', '/v1/notifications')).body.notifications.filter((x: any) => x.kind === 'moderationNotice');
    assert.equal(inbox.length, 1);
    assert.equal(inbox[0].actor, undefined);
    // Upheld and lifted read as such; an account social never saw is acknowledged and ignored; a bad outcome is refused.
    const upheld = await post({ ...n, id: randomUUID(), outcome: 'upheld', expires_at: null, response: null });
    assert.equal(upheld.status, 200);
    const u2 = await p.socks[0]!.next('notification', (d) => d.kind === 'moderationNotice' && /stays in place \(permanent\)/.test(d.data.message));
    assert.ok(u2);
    const nobody = await post({ ...n, id: randomUUID(), account_id: randomUUID() });
    assert.deepEqual([nobody.status, ((await nobody.json()) as { status: string }).status], [200, 'ignored']);
    assert.equal((await post({ ...n, id: randomUUID(), outcome: 'forgiven' })).status, 400);
    assert.equal((await post({ ...n, id: randomUUID(), appeal_id: undefined })).status, 400);
  });

  describe('moderation action (auth unreachable here)', () => {
    const report = async (by: TestUser, target: TestUser) => {
      assert.equal((await h.req(by, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'harassment' } })).status, 202);
      const r = await h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(target.publicId)}&limit=1`);
      return r.body.reports[0].reportId as string;
    };
    const act = (u: TestUser | null, id: string, body: unknown) => h.req(u, 'POST', `/v1/moderation/reports/${id}/actions`, { body });
    const good = { sanction: { type: 'chat', reason: 'Insults', durationSeconds: 3600 }, note: 'see snapshot' };

    it('auth unreachable: 503 auth_unavailable, the report unchanged', async () => {
      const [a, b] = [await h.user('Reporter'), await h.user('Target')];
      const id = await report(a, b);
      const r = await act(mod, id, good);
      assert.deepEqual([r.status, r.body.code], [503, 'auth_unavailable']);
      assert.equal((await h.req(mod, 'GET', `/v1/moderation/reports/${id}`)).body.state, 'received');
    });

    it('a player: 403 moderator_required; unknown and malformed report ids: 404; a final report: 409 before auth is asked', async () => {
      const [a, b] = [await h.user('Reporter'), await h.user('Target')];
      const id = await report(a, b);
      const r = await act(a, id, good);
      assert.deepEqual([r.status, r.body.code], [403, 'moderator_required']);
      assert.equal((await act(null, id, good)).status, 401);
      for (const bad of [randomUUID(), 'not-a-uuid', '%20', encodeURIComponent('../state')]) {
        const x = await act(mod, bad, good);
        assert.deepEqual([x.status, x.body.code], [404, 'report_not_found'], bad);
      }
      assert.equal((await h.req(mod, 'POST', `/v1/moderation/reports/${id}/state`, { body: { state: 'dismissed' } })).status, 200);
      const final = await act(mod, id, good);
      assert.deepEqual([final.status, final.body.code], [409, 'invalid_transition']);
    });

    it('an erased target: 404 user_not_found', async () => {
      const [a, b] = [await h.user('Reporter'), await h.user('Gone')];
      const id = await report(a, b);
      assert.equal((await h.req(b, 'DELETE', '/v1/me')).status, 200);
      const r = await act(mod, id, good);
      assert.deepEqual([r.status, r.body.code], [404, 'user_not_found']);
    });

    it('bad bodies: 400 before anything happens', async () => {
      const [a, b] = [await h.user('Reporter'), await h.user('Target')];
      const id = await report(a, b);
      for (const body of [
        {},
        { sanction: {} },
        { sanction: { type: 'chat' } },
        { sanction: { type: 'chat', reason: '' } },
        { sanction: { type: 'chat', reason: 'x'.repeat(1001) } },
        { sanction: { type: 'chat', reason: 'x', durationSeconds: '60' } },
        { sanction: { type: 'chat', reason: 'x', durationSeconds: 0 } },
        { sanction: { type: 'chat', reason: 'x', extra: 1 } },
        { sanction: { type: 'chat', reason: 'x' }, other: 1 },
        { sanction: 'ban' },
        { sanction: { type: 'chat', reason: 'x' }, note: '' },
      ]) {
        const r = await act(mod, id, body);
        assert.deepEqual([r.status, r.body.code], [400, 'validation_failed'], JSON.stringify(body));
      }
      const raw = async (payload: string) => (await h.app.inject({ method: 'POST', url: `/v1/moderation/reports/${id}/actions`, headers: { authorization: `Bearer ${mod.token}`, 'content-type': 'application/json' }, payload })).json();
      assert.equal((await raw('{"sanction":')).code, 'malformed_json');
      assert.equal((await raw('{"sanction":{"type":"chat","reason":"a\\u0000b"}}')).code, 'invalid_character');
      assert.equal((await raw(`{"sanction":${'['.repeat(300)}${']'.repeat(300)}}`)).code, 'too_deep');
      assert.equal((await h.req(mod, 'GET', `/v1/moderation/reports/${id}`)).body.state, 'received');
    });
  });
});
