// Self and users: /v1/me, profile, name, export, erasure, search, reports; authentication.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { befriend, useHarness } from './support.js';
import { assertError } from '@platform/kit/testing';

describe('self and users', () => {
  const h = useHarness({ SOCIAL__AUTH__APIKEY: 'server-key-0123456789abcdef' }, { checkAccountIds: true });

  it('creates a profile on first use with an opaque publicId and a Name#1234 handle', async () => {
    const u = await h.user('Alice');
    const r = await h.req(u, 'GET', '/v1/me');
    assert.equal(r.status, 200);
    assert.match(r.body.publicId, /^p_[A-Za-z0-9_-]{22}$/);
    assert.equal(r.body.handle, 'Alice');
    assert.match(r.body.discriminator, /^\d{4}$/);
    assert.equal(r.body.fullHandle, `Alice#${r.body.discriminator}`);
    assert.deepEqual(r.body.profile, { displayName: 'Alice', avatarUrl: null, status: null, visibility: 'public', invisible: false, searchable: true });
  });

  it('accepts both token formats and rejects bad tokens with 401 unauthorized', async () => {
    const jwtUser = await h.user('Jwt', { format: 'jwt' });
    assert.equal((await h.req(jwtUser, 'GET', '/v1/me')).status, 200);
    const bad = [
      'garbage',
      await h.keys.sign('acct-x', { expOffsetSec: -120 }),
      await h.keys.sign('acct-x', { iss: 'https://evil' }),
      await h.keys.sign('acct-x', { aud: 'other' }),
      await h.keys.sign('acct-x', { key: 'other' }),
      await h.keys.sign('acct-x', { format: 'jwt', key: 'other' }),
    ];
    for (const token of bad) {
      const r = await h.req(null, 'GET', '/v1/me', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(r.status, 401, token);
      assert.equal(r.body.code, 'unauthorized');
    }
    assertError(await h.req(null, 'GET', '/v1/friends'), 401, 'unauthorized');
  });

  it('leaves /health, /healthz, /ready and /readyz open', async () => {
    for (const p of ['/health', '/healthz', '/ready', '/readyz']) assert.equal((await h.req(null, 'GET', p)).status, 200, p);
  });

  it('API-key mode: X-Api-Key + X-User-Id, handle hint on first use; wrong key 401', async () => {
    const headers = { 'x-api-key': 'server-key-0123456789abcdef', 'x-user-id': 'acct-server-1', 'x-user-handle': 'Servo' };
    h.subs.push('acct-server-1');
    const r = await h.req(null, 'GET', '/v1/me', { headers });
    assert.equal(r.status, 200);
    assert.equal(r.body.handle, 'Servo');
    assertError(await h.req(null, 'GET', '/v1/me', { headers: { ...headers, 'x-api-key': 'server-key-0123456789abcdeX' } }), 401, 'unauthorized');
    const noUser = await h.req(null, 'GET', '/v1/me', { headers: { 'x-api-key': 'server-key-0123456789abcdef' } });
    assert.equal(noUser.status, 401);
  });

  it('PATCH /v1/me/profile edits fields and validates them', async () => {
    const u = await h.user('Bob');
    const ok = await h.req(u, 'PATCH', '/v1/me/profile', {
      body: { avatarUrl: 'https://cdn.example/a.png', status: 'raiding', visibility: 'friends', invisible: true },
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { displayName: 'Bob', avatarUrl: 'https://cdn.example/a.png', status: 'raiding', visibility: 'friends', invisible: true, searchable: true });
    const cases: [unknown, string][] = [
      [{ avatarUrl: 'http://insecure/a.png' }, 'invalid_avatar_url'],
      [{ avatarUrl: 'https://x/' + 'a'.repeat(600) }, 'validation_failed'],
      [{ status: 's'.repeat(141) }, 'validation_failed'],
      [{ visibility: 'everyone' }, 'validation_failed'],
      [{ invisible: 'yes' }, 'validation_failed'],
      [{ displayName: 'x' }, 'invalid_display_name'],
      [{ displayName: 'bad#name' }, 'invalid_display_name'],
      [{ nickname: 'x' }, 'validation_failed'],
    ];
    for (const [body, code] of cases) {
      const r = await h.req(u, 'PATCH', '/v1/me/profile', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, code, JSON.stringify(body));
    }
    assertError(await h.req(u, 'PATCH', '/v1/me/profile', { raw: '{"status":' }), 400, 'malformed_json');
    const huge = await h.req(u, 'PATCH', '/v1/me/profile', { raw: JSON.stringify({ status: 'x'.repeat(70_000) }) });
    assert.equal(huge.status, 413);
    const cleared = await h.req(u, 'PATCH', '/v1/me/profile', { body: { avatarUrl: null, status: null } });
    assert.equal(cleared.body.avatarUrl, null);
    assert.equal(cleared.body.status, null);
  });

  it('POST /v1/me/name allocates unique discriminators per name and tells friends', async () => {
    const [a, b] = await h.friends('Carol', 'Dave');
    const rec = await h.events(b);
    const r = await h.req(a, 'POST', '/v1/me/name', { body: { displayName: 'Twin' } });
    assert.equal(r.status, 200);
    assert.equal(r.body.handle, 'Twin');
    const [ev] = await rec.next('friendProfileChanged');
    assert.equal(ev.data && (ev.data as any).publicId, a.publicId);
    assert.equal((ev.data as any).fullHandle, r.body.fullHandle);
    await rec.expectTypes(['friendProfileChanged']);
    await rec.stop();
    // Many users with the same name (any case) never share a discriminator.
    const handles = new Set<string>([r.body.discriminator]);
    const others = await Promise.all(Array.from({ length: 8 }, () => h.user('twin')));
    for (const o of others) handles.add(o.fullHandle.split('#')[1]);
    assert.equal(handles.size, 9);
    const missing = await h.req(a, 'POST', '/v1/me/name', { body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.field, 'displayName');
    const wrongType = await h.req(a, 'POST', '/v1/me/name', { body: { displayName: 5 } });
    assert.equal(wrongType.status, 400);
  });

  it('search: exact handle or prefix, paged, caller and blocks excluded, private profiles hidden', async () => {
    const me = await h.user('Seeker');
    const targets = await Promise.all(['Zed', 'Zelda', 'Zeno', 'Zora'].map((n) => h.user(n)));
    const prefix = await h.req(me, 'GET', '/v1/users/search?handle=ze');
    assert.equal(prefix.status, 200);
    const names = prefix.body.map((u: any) => u.displayName);
    assert.deepEqual(names, ['Zed', 'Zelda', 'Zeno']);
    assert.deepEqual(Object.keys(prefix.body[0]).sort(), ['displayName', 'fullHandle', 'publicId']);
    const paged = await h.req(me, 'GET', '/v1/users/search?handle=ze&limit=1&offset=1');
    assert.deepEqual(paged.body.map((u: any) => u.displayName), ['Zelda']);
    const exact = await h.req(me, 'GET', `/v1/users/search?handle=${encodeURIComponent(targets[3].fullHandle.toUpperCase())}`);
    assert.equal(exact.body.length, 1);
    assert.equal(exact.body[0].publicId, targets[3].publicId);
    // Blocks hide both ways.
    await h.req(targets[0], 'POST', `/v1/blocks/${me.publicId}`);
    await h.req(me, 'POST', `/v1/blocks/${targets[1].publicId}`);
    const afterBlocks = await h.req(me, 'GET', '/v1/users/search?handle=ze');
    assert.deepEqual(afterBlocks.body.map((u: any) => u.displayName), ['Zeno']);
    const blockedExact = await h.req(me, 'GET', `/v1/users/search?handle=${encodeURIComponent(targets[0].fullHandle)}`);
    assert.deepEqual(blockedExact.body, []);
    // Private profiles never show; friends-only profiles only to friends.
    await h.req(targets[2], 'PATCH', '/v1/me/profile', { body: { visibility: 'private' } });
    assert.deepEqual((await h.req(me, 'GET', '/v1/users/search?handle=ze')).body, []);
    const self = await h.req(me, 'GET', `/v1/users/search?handle=${encodeURIComponent(me.fullHandle)}`);
    assert.deepEqual(self.body, []);
    for (const q of ['', 'limit=0&handle=a', 'handle=a&limit=51', 'handle=a&offset=-1', 'handle=a&extra=1']) {
      const r = await h.req(me, 'GET', `/v1/users/search?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'validation_failed');
    }
  });

  it('reports: 202 received, stored for moderation; target and reason validated', async () => {
    const [a, b] = await h.users('Reporter', 'Reported');
    const r = await h.req(a, 'POST', '/v1/reports', { body: { targetHandle: b.fullHandle, reason: 'cheating', context: 'wallhack in match 7' } });
    assert.equal(r.status, 202);
    assert.deepEqual(r.body, { status: 'received' });
    const stored = await h.db.db.query('SELECT reason, context FROM reports WHERE target = $1', [b.id]);
    assert.deepEqual(stored.rows, [{ reason: 'cheating', context: 'wallhack in match 7' }]);
    const byId = await h.req(a, 'POST', '/v1/reports', { body: { targetPublicId: b.publicId, reason: 'spam' } });
    assert.equal(byId.status, 202);
    const cases: [unknown, number, string][] = [
      [{ reason: 'spam' }, 400, 'target_required'],
      [{ targetHandle: b.fullHandle, targetPublicId: b.publicId, reason: 'spam' }, 400, 'target_required'],
      [{ targetPublicId: a.publicId, reason: 'spam' }, 400, 'cannot_report_self'],
      [{ targetPublicId: b.publicId, reason: 'meh' }, 400, 'validation_failed'],
      [{ targetPublicId: b.publicId }, 400, 'validation_failed'],
      [{ targetPublicId: b.publicId, reason: 'spam', context: 'c'.repeat(2001) }, 400, 'validation_failed'],
    ];
    for (const [body, status, code] of cases) {
      const x = await h.req(a, 'POST', '/v1/reports', { body });
      assert.equal(x.status, status, JSON.stringify(body));
      assert.equal(x.body.code, code, JSON.stringify(body));
    }
    // A report about nobody is answered as any other (nothing stored): a report never tells whether its target exists.
    const before = (await h.db.db.query('SELECT count(*)::int AS n FROM reports')).rows[0].n;
    const nobody = await h.req(a, 'POST', '/v1/reports', { body: { targetPublicId: 'p_nobody', reason: 'spam' } });
    assert.deepEqual([nobody.status, nobody.body], [202, { status: 'received' }]);
    assert.equal((await h.db.db.query('SELECT count(*)::int AS n FROM reports')).rows[0].n, before);
  });

  it('a user who blocked the caller answers every addressing operation exactly as a user who does not exist', async () => {
    const [caller, blocker] = await h.users('Blocked', 'Blocker');
    assert.equal((await h.req(blocker, 'POST', `/v1/blocks/${caller.publicId}`)).status, 204);
    const nobody = 'p_doesnotexist1';
    const ops: [string, (id: string) => [string, string, unknown?]][] = [
      ['friend request', (id) => ['POST', '/v1/friends/requests', { toPublicId: id }]],
      ['note get', (id) => ['GET', `/v1/notes/${id}`]],
      ['note put', (id) => ['PUT', `/v1/notes/${id}`, { text: 'hi' }]],
      ['note delete', (id) => ['DELETE', `/v1/notes/${id}`]],
      ['mute', (id) => ['POST', `/v1/mutes/${id}`]],
      ['unmute', (id) => ['DELETE', `/v1/mutes/${id}`]],
      ['block', (id) => ['POST', `/v1/blocks/${id}`]],
      ['unblock', (id) => ['DELETE', `/v1/blocks/${id}`]],
      ['report', (id) => ['POST', '/v1/reports', { targetPublicId: id, reason: 'spam' }]],
      ['presence', (id) => ['GET', `/v1/presence/${id}`]],
      ['game invite', (id) => ['POST', '/v1/invites/game', { toPublicId: id }]],
    ];
    const answer = async (op: [string, string, unknown?]) => {
      const r = await h.req(caller, op[0] as 'GET', op[1], op[2] === undefined ? {} : { body: op[2] });
      return [r.status, r.body?.code ?? r.body?.status];
    };
    for (const [name, op] of ops) {
      assert.deepEqual(await answer(op(blocker.publicId)), await answer(op(nobody)), name);
    }
  });

  it('export carries user, profile, friends, blocked and partyId', async () => {
    const [a, b, c] = await h.users('Exporter', 'Pal', 'Foe');
    await befriend(h, a, b);
    await h.req(a, 'POST', `/v1/blocks/${c.publicId}`);
    const party = await h.req(a, 'POST', '/v1/parties', { body: {} });
    const r = await h.req(a, 'GET', '/v1/me/export');
    assert.equal(r.status, 200);
    assert.equal(r.body.user.publicId, a.publicId);
    assert.equal(r.body.profile.displayName, 'Exporter');
    assert.deepEqual(r.body.friends.map((f: any) => f.publicId), [b.publicId]);
    assert.deepEqual(r.body.blocked.map((f: any) => f.publicId), [c.publicId]);
    assert.equal(r.body.partyId, party.body.partyId);
  });

  it('DELETE /v1/me erases everything, passes party leadership on and is idempotent', async () => {
    const [a, b, c] = await h.users('Leaving', 'Staying', 'Blocker');
    await befriend(h, a, b);
    await h.req(c, 'POST', `/v1/blocks/${a.publicId}`);
    await h.req(b, 'PUT', `/v1/notes/${a.publicId}`, { body: { text: 'about a' } });
    await h.req(a, 'PUT', `/v1/notes/${b.publicId}`, { body: { text: 'about b' } });
    const party = await h.party(a, [b], { visibility: 'FriendsOnly' });
    const rec = await h.events(b);
    const r = await h.req(a, 'DELETE', '/v1/me');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { state: 'deleted' });
    await rec.next('friendRemoved');
    rec.clear();
    await rec.stop();
    const again = await h.req(a, 'DELETE', '/v1/me');
    assert.deepEqual(again.body, { state: 'deleted' });
    for (const table of ['friendships', 'friend_requests', 'blocks', 'mutes', 'notes', 'party_members', 'invites', 'chat_messages']) {
      const cols = { friendships: ['user_id', 'friend_id'], friend_requests: ['from_user', 'to_user'], blocks: ['blocker', 'blocked'], mutes: ['muter', 'muted'], notes: ['author', 'subject'], party_members: ['user_id', 'user_id'], invites: ['from_user', 'to_user'], chat_messages: ['from_user', 'from_user'] }[table]!;
      const n = await h.db.db.query(`SELECT 1 FROM ${table} WHERE ${cols[0]} = $1 OR ${cols[1]} = $1`, [a.id]);
      assert.equal(n.rowCount, 0, table);
    }
    const p = await h.req(b, 'GET', `/v1/parties/${party.partyId}`);
    assert.equal(p.body.leaderPublicId, b.publicId);
    assert.deepEqual((await h.req(b, 'GET', '/v1/friends')).body, []);
    // Using the service again starts a fresh profile with a new publicId.
    const fresh = await h.req(a, 'GET', '/v1/me');
    assert.notEqual(fresh.body.publicId, a.publicId);
  });
});

describe('search limits', () => {
  const h = useHarness({ SOCIAL__LIMITS__SEARCHESPERMINUTE: '5' });

  it('refuses a one-letter prefix with 400 prefix_too_short; an exact handle always works', async () => {
    const [me, target] = await h.users('Finder', 'Quill');
    const short = await h.req(me, 'GET', '/v1/users/search?handle=q');
    assert.deepEqual([short.status, short.body.code, short.body.field], [400, 'prefix_too_short', 'handle']);
    const exact = await h.req(me, 'GET', `/v1/users/search?handle=${encodeURIComponent(target.fullHandle)}`);
    assert.deepEqual(exact.body.map((u: any) => u.publicId), [target.publicId]);
  });

  it('limits searches per user (429 rate_limited with Retry-After); other users are not affected', async () => {
    const a = await h.user('Scanner');
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.req(a, 'GET', `/v1/users/search?handle=ab${i}`)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    const limited = await h.req(a, 'GET', '/v1/users/search?handle=abc');
    assert.equal(limited.body.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    const b = await h.user('Other');
    assert.equal((await h.req(b, 'GET', '/v1/users/search?handle=abc')).status, 200);
  });
});
