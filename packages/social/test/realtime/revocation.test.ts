// Revocation inside social (docs/social.md, "Revocation"): notices on the bus close the sockets they name and
// make every node refuse the tokens; the high-security node reads the record on every request, so it refuses a
// token even when it missed the message. Two nodes on the same stores (real Redis and PostgreSQL when set).
// Across the real auth service: packages/e2e/test/revocation-*.test.ts.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useHarness } from '../support.js';
import { connect, refused, startSecondNode, realtimeSuite } from './support.js';

const notice = (over: Record<string, unknown>) => ({
  id: randomUUID(),
  type: 'revocation',
  reason: 'logout',
  scope: 'session',
  sids: [],
  revoked_at: new Date().toISOString(),
  until: new Date(Date.now() + 660_000).toISOString(),
  ...over,
});

describe('realtime: revocation notices (high-security node A, default node B)', () => {
  const { h, nodeA, nodeB, ready } = realtimeSuite({ SOCIAL__AUTH__HIGHSECURITY: 'true' }, { second: {} });
  /** Runs `check` against a node started now: it knows only what the state store holds. */
  const onLateNode = async (check: (url: string) => Promise<void>) => {
    const late = await startSecondNode(h);
    try {
      await check(late.urls.http);
    } finally {
      await late.close();
    }
  };
  const me = async (url: string, token: string) => {
    const r = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, code: ((await r.json()) as { code?: string }).code };
  };

  it('a session notice on the bus closes that session’s sockets on both nodes (4002) and refuses its token; the other session stays', async () => {
    const sub = `acct-${randomUUID()}`;
    const [sid, otherSid] = [randomUUID(), randomUUID()];
    const token = await h.keys.sign(sub, { sid });
    const other = await h.keys.sign(sub, { sid: otherSid });
    const socks = [await ready(await connect(nodeA.ws, token)), await ready(await connect(nodeB.urls.ws, token))];
    const keep = await ready(await connect(nodeB.urls.ws, other));
    await h.state.state.publish('auth:revocation', JSON.stringify(notice({ account_id: sub, sids: [sid] })));
    for (const s of socks) assert.deepEqual(await s.closed, { code: 4002, reason: 'session_revoked' });
    for (const url of [nodeA.http, nodeB.urls.http]) {
      assert.deepEqual(await me(url, token), { status: 401, code: 'token_revoked' });
      assert.equal((await me(url, other)).status, 200);
    }
    await refused(connect(nodeB.urls.ws, token), 401, 'token_revoked');
    keep.send({ type: 'heartbeat' });
    await keep.next('heartbeatAck');
  });

  it('an account notice closes every socket of the account (4003 for a ban, 4001 for a deletion); tokens issued after it work', async () => {
    const banned = `acct-${randomUUID()}`;
    const deleted = `acct-${randomUUID()}`;
    const socks = [await ready(await connect(nodeA.ws, await h.keys.sign(banned))), await ready(await connect(nodeB.urls.ws, await h.keys.sign(banned)))];
    const gone = await ready(await connect(nodeB.urls.ws, await h.keys.sign(deleted)));
    await h.state.state.publish('auth:revocation', JSON.stringify(notice({ reason: 'account_banned', scope: 'account', account_id: banned })));
    await h.state.state.publish('auth:revocation', JSON.stringify(notice({ reason: 'account_deleted', scope: 'account', account_id: deleted })));
    for (const s of socks) assert.deepEqual(await s.closed, { code: 4003, reason: 'account_disabled' });
    assert.deepEqual(await gone.closed, { code: 4001, reason: 'account_deleted' });
    assert.deepEqual(await me(nodeB.urls.http, await h.keys.sign(banned)), { status: 401, code: 'token_revoked' });
    // Issued after the ban's second (the account was reactivated and signed in again).
    assert.equal((await me(nodeB.urls.http, await h.keys.sign(banned, { iatOffsetSec: -2 }))).status, 200);
  });

  it('an account cut is as fine as the tokens: a token issued after it within the same second works, one issued before it in that second is refused', async () => {
    for (const format of ['paseto', 'jwt'] as const) {
      const sub = `acct-${randomUUID()}`;
      // The revocation half-way through a second three seconds ago; two tokens 100 ms either side of it.
      const cut = (Math.floor(Date.now() / 1000) - 3) * 1000 + 500;
      const before = await h.keys.sign(sub, { format, iatMs: cut - 100 });
      const after = await h.keys.sign(sub, { format, iatMs: cut + 100 });
      const [oldSock, newSock] = [await ready(await connect(nodeB.urls.ws, before)), await ready(await connect(nodeA.ws, after))];
      await h.state.state.publish('auth:revocation', JSON.stringify(notice({ reason: 'password_reset', scope: 'account', account_id: sub, revoked_at: new Date(cut).toISOString() })));
      assert.deepEqual(await oldSock.closed, { code: 4002, reason: 'session_revoked' });
      for (const url of [nodeA.http, nodeB.urls.http]) {
        assert.deepEqual(await me(url, before), { status: 401, code: 'token_revoked' }, format);
        assert.equal((await me(url, after)).status, 200, `${format}: issued 100 ms after the cut`);
      }
      newSock.send({ type: 'heartbeat' });
      await newSock.next('heartbeatAck');
      // A node started now reads the cut from the state store with the same precision.
      await onLateNode(async (url) => {
        assert.deepEqual(await me(url, before), { status: 401, code: 'token_revoked' });
        assert.equal((await me(url, after)).status, 200);
      });
    }
  });

  it('roles_changed: the account’s earlier tokens are stale (401 unauthorized, socket 4004: refresh), not revoked; a node started later knows it too', async () => {
    const sub = `acct-${randomUUID()}`;
    const cut = Date.now() - 1000;
    const old = await h.keys.sign(sub, { iatMs: cut - 100, roles: ['player', 'moderator'] });
    const fresh = await h.keys.sign(sub, { iatMs: cut + 100 });
    const sock = await ready(await connect(nodeB.urls.ws, old));
    await h.state.state.publish('auth:revocation', JSON.stringify(notice({ reason: 'roles_changed', scope: 'account', account_id: sub, revoked_at: new Date(cut).toISOString() })));
    assert.deepEqual(await sock.closed, { code: 4004, reason: 'token_expired' });
    for (const url of [nodeA.http, nodeB.urls.http]) {
      assert.deepEqual(await me(url, old), { status: 401, code: 'unauthorized' });
      assert.equal((await me(url, fresh)).status, 200);
    }
    await onLateNode(async (url) => {
      assert.deepEqual(await me(url, old), { status: 401, code: 'unauthorized' });
      assert.equal((await me(url, fresh)).status, 200);
    });
  });

  it('the high-security node refuses a token recorded in the state store that no node heard of; the default node does not', async () => {
    const sub = `acct-${randomUUID()}`;
    const sid = randomUUID();
    const token = await h.keys.sign(sub, { sid });
    assert.equal((await me(nodeA.http, token)).status, 200);
    // What a node that missed the pub/sub message sees: only the record.
    await h.state.state.setAdd('social:revoked:sids', sid, 60_000);
    assert.deepEqual(await me(nodeA.http, token), { status: 401, code: 'token_revoked' });
    await refused(connect(nodeA.ws, token), 401, 'token_revoked');
    assert.equal((await me(nodeB.urls.http, token)).status, 200, 'the default node reads its memory only');
  });

  it('an unreadable notice on the bus is dropped; the nodes go on', async () => {
    const sub = `acct-${randomUUID()}`;
    const token = await h.keys.sign(sub);
    for (const raw of ['not json', '{}', JSON.stringify(notice({ account_id: sub, sids: ['nope'] })), JSON.stringify(notice({ account_id: sub, scope: 'all' }))]) {
      await h.state.state.publish('auth:revocation', raw);
    }
    const s = await ready(await connect(nodeB.urls.ws, token));
    for (const url of [nodeA.http, nodeB.urls.http]) assert.equal((await me(url, token)).status, 200);
    s.send({ type: 'heartbeat' });
    await s.next('heartbeatAck');
  });
});

describe('revocation notices to POST /v1/internal/auth-events', () => {
  const h = useHarness();
  let server: string;
  before(async () => {
    server = await h.keys.sign('service:auth', { roles: ['server'] });
  });

  const full = (over: Record<string, unknown> = {}) => notice({ account_id: randomUUID(), sids: [randomUUID()], ...over });
  const post = (body: unknown, token: string | null = server, raw?: string) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/internal/auth-events',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: raw ?? JSON.stringify(body),
    });

  it('a well-formed notice is processed (again on redelivery) and refuses the session’s token', async () => {
    const sub = `acct-${randomUUID()}`;
    const sid = randomUUID();
    const token = await h.keys.sign(sub, { sid });
    assert.equal((await h.req({ sub, token } as never, 'GET', '/v1/me')).status, 200);
    const n = full({ account_id: sub, sids: [sid] });
    for (let i = 0; i < 2; i++) assert.deepEqual((await post(n)).json(), { status: 'processed' });
    const r = await h.req({ sub, token } as never, 'GET', '/v1/me');
    assert.deepEqual([r.status, r.body.code], [401, 'token_revoked']);
  });

  it('bad notices are 4xx with a stable code', async () => {
    const cases: [unknown, number, string][] = [
      [full({ sids: undefined }), 400, 'validation_failed'],
      [full({ scope: undefined }), 400, 'validation_failed'],
      [full({ until: undefined }), 400, 'validation_failed'],
      [full({ reason: undefined }), 400, 'validation_failed'],
      [full({ revoked_at: undefined }), 400, 'validation_failed'],
      [full({ account_id: undefined }), 400, 'validation_failed'],
      [full({ scope: 'everything' }), 400, 'validation_failed'],
      [full({ sids: 'x' }), 400, 'validation_failed'],
      [full({ sids: [1] }), 400, 'validation_failed'],
      [full({ sids: ['not-a-uuid'] }), 400, 'validation_failed'],
      [full({ sids: Array.from({ length: 501 }, () => randomUUID()) }), 400, 'validation_failed'],
      [full({ revoked_at: 'yesterday' }), 400, 'validation_failed'],
      [full({ until: new Date(Date.now() - 3_600_000).toISOString() }), 400, 'validation_failed'],
      // A notice format version this node does not read: refused, so the outbox retries it after the upgrade.
      [full({ v: 2 }), 400, 'validation_failed'],
      [full({ v: 0 }), 400, 'validation_failed'],
      [full({ reason: 'lo\u0000gout' }), 400, 'invalid_character'],
      [full({ account_id: 'x'.repeat(201) }), 400, 'validation_failed'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post(body);
      assert.deepEqual([r.statusCode, r.json().code], [status, code], JSON.stringify(body).slice(0, 200));
    }
    // A member a later release adds is ignored (docs/decisions/0020-versioned-messages.md), and `v: 1` is this format.
    assert.equal((await post(full({ extra: 1 }))).statusCode, 200);
    assert.equal((await post(full({ v: 1 }))).statusCode, 200);
    const malformed = await post(undefined, server, '{"type":"revocation",');
    assert.deepEqual([malformed.statusCode, malformed.json().code], [400, 'malformed_json']);
    assert.equal((await post(full({ reason: 'x'.repeat(70_000) }))).statusCode, 413);
  });

  it('wrong credentials: none 401, a player token 403; an encoded path is the same route', async () => {
    assert.equal((await post(full(), null)).statusCode, 401);
    assert.equal((await post(full(), await h.keys.sign(`acct-${randomUUID()}`))).json().code, 'forbidden');
    const encoded = await h.app.inject({
      method: 'POST',
      url: '/v1/%69nternal/auth-events',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await h.keys.sign(`acct-${randomUUID()}`)}` },
      payload: JSON.stringify(full()),
    });
    assert.equal(encoded.json().code, 'forbidden');
  });
});
