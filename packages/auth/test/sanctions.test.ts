// Sanctions, account search and lookup, roles (docs/auth.md, "Sanctions"): every endpoint through HTTP, the
// role matrix, bad bodies, bans ending sessions and sign-in, lift and expiry, audit entries and notices. The
// grant-role CLI: grant-role.test.ts.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { ConfigError } from '@platform/kit';
import { readAuthConfig } from '../src/config.js';
import { serviceToken } from '../src/services/outbox.js';
import { SANCTION_CHANNEL } from '../src/services/sanctions.js';
import { auditCount, bearer, guest, harness, register, type Harness, withRoles as withRolesOf, assertError } from './support/harness.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('sanctions', () => {
  let h: Harness;
  let admin: string;
  let moderator: string;
  let server: string;
  let player: string;
  const notices: Record<string, unknown>[] = [];

  /** A registered account given these roles, and an access token carrying them. */
  const withRoles = (roles: string[]) => withRolesOf(h, roles);

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, token?: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });

  const sanction = (id: string, body: Record<string, unknown>, token = admin) => call('POST', `/admin/accounts/${id}/sanctions`, token, body);
  const lift = (id: string, token = admin, body?: unknown) => call('POST', `/admin/sanctions/${id}/lift`, token, body);
  const login = (u: { email: string; password: string }) => h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });

  before(async () => {
    h = await harness({
      AUTH_RATE_GENERAL_PER_IP: '100000',
      AUTH_RATE_LOGIN_PER_IP: '100000',
      AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000',
      AUTH_SANCTION_FEATURES: 'ranked,trading',
      // The test sweeps itself (sweepSanctions): the background sweeper must not run between its steps.
      AUTH_SANCTION_SWEEP_SECONDS: '3600',
    });
    await h.tstate.state.subscribe(SANCTION_CHANNEL, (m) => notices.push(JSON.parse(m)));
    admin = (await withRoles(['player', 'admin'])).token;
    moderator = (await withRoles(['player', 'moderator'])).token;
    server = await serviceToken(h.config, h.app.auth.keys, 'registry');
    player = (await register(h.app)).access_token;
  });
  after(() => h.close());

  it('a chat sanction: 201 with the sanction, listed, shown to the player, audited and announced (bus and outbox)', async () => {
    const u = await register(h.app);
    const r = await sanction(u.account_id, { type: 'chat', reason: 'Spamming the lobby', duration_seconds: 3600 }, moderator);
    assert.equal(r.statusCode, 201, r.body);
    const s = r.json();
    assert.equal(s.type, 'chat');
    assert.equal(s.reason, 'Spamming the lobby');
    assert.equal(s.account_id, u.account_id);
    assert.equal(s.active, true);
    assert.equal(s.lifted_at, null);
    assert.ok(Math.abs(Date.parse(s.expires_at) - Date.now() - 3600_000) < 60_000);
    const mine = await call('GET', '/account/sanctions', u.access_token);
    assert.equal(mine.statusCode, 200);
    assert.deepEqual(mine.json(), { sanctions: [{ id: s.id, type: 'chat', reason: 'Spamming the lobby', created_at: s.created_at, expires_at: s.expires_at }] });
    const list = await call('GET', `/admin/accounts/${u.account_id}/sanctions`, moderator);
    assert.deepEqual(list.json().sanctions.map((x: { id: string }) => x.id), [s.id]);
    // A chat sanction ends no session.
    assert.equal((await call('GET', '/account', u.access_token)).statusCode, 200);
    const outbox = await h.tdb.db.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM outbox WHERE topic = 'sanction' AND payload->>'sanction_id' = $1`, [s.id]);
    assert.equal(outbox.rows.length, 1);
    assert.equal(outbox.rows[0].payload.event, 'applied');
    assert.equal(outbox.rows[0].payload.sanction_type, 'chat');
    assert.equal(outbox.rows[0].payload.account_id, u.account_id);
    assert.ok(notices.some((n) => n.sanction_id === s.id && n.event === 'applied' && n.id === outbox.rows[0].payload.id));
    const audit = await h.tdb.db.query(`SELECT event, detail FROM audit_log WHERE account_id = $1 AND event = 'sanction'`, [u.account_id]);
    assert.equal(audit.rows.length, 1);
    assert.equal(audit.rows[0].detail.sanction_id, s.id);
  });

  it('lifting: 200 with lifted_at, lifted_by and the reason; inactive everywhere, announced; a second lift is 409 sanction_not_active', async () => {
    const u = await register(h.app);
    const s = (await sanction(u.account_id, { type: 'chat', reason: 'Insults' })).json();
    const adminId = (await call('GET', `/admin/accounts/${u.account_id}`, admin)).json().sanctions[0].created_by;
    const r = await lift(s.id, moderator, { reason: 'Appeal accepted' });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().active, false);
    assert.equal(r.json().lift_reason, 'Appeal accepted');
    assert.ok(r.json().lifted_at);
    assert.notEqual(r.json().lifted_by, adminId);
    assert.deepEqual((await call('GET', '/account/sanctions', u.access_token)).json(), { sanctions: [] });
    assert.ok(notices.some((n) => n.sanction_id === s.id && n.event === 'lifted'));
    const again = await lift(s.id);
    assert.deepEqual([again.statusCode, again.json().code], [409, 'sanction_not_active']);
    // Without a body, and lifting by a server-role token.
    const s2 = (await sanction(u.account_id, { type: 'ranked', reason: 'Boosting' })).json();
    const r2 = await lift(s2.id, server);
    assert.equal(r2.statusCode, 200, r2.body);
    assert.equal(r2.json().lifted_by, 'service:registry');
    assert.equal(r2.json().lift_reason, null);
    assert.equal(await auditCount(h, u.account_id, 'sanction_lift'), 2);
  });

  it('a ban ends every session at once (deny set, refresh refused) and sign-in answers 403 account_banned with the reason and end', async () => {
    const u = await register(h.app);
    const second = (await login(u)).json();
    const end = new Date(Date.now() + 86_400_000).toISOString();
    const r = await sanction(u.account_id, { type: 'ban', reason: 'Cheating in ranked', expires_at: end }, moderator);
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(Date.parse(r.json().expires_at), Date.parse(end));
    for (const t of [u.access_token, second.access_token]) assert.equal((await call('GET', '/account', t)).statusCode, 401);
    for (const rt of [u.refresh_token, second.refresh_token]) {
      assert.equal((await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: rt } })).statusCode, 401);
    }
    const revoked = await h.tdb.db.query(`SELECT count(*)::int AS n FROM sessions WHERE account_id = $1 AND revoked_at IS NULL`, [u.account_id]);
    assert.equal(revoked.rows[0].n, 0);
    const notice = await h.tdb.db.query(`SELECT payload FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1`, [u.account_id]);
    assert.equal(notice.rows[0].payload.reason, 'account_banned');
    const refused = await login(u);
    assertError(refused, 403, 'account_banned');
    assert.equal(refused.json().reason, 'Cheating in ranked');
    assert.equal(Date.parse(refused.json().expires_at), Date.parse(end));
    const view = (await call('GET', `/admin/accounts/${u.account_id}`, moderator)).json();
    assert.equal(view.account.status, 'banned');
    // A guest is refused the same way at restore.
    const g = await guest(h.app);
    await sanction(g.account_id, { type: 'ban', reason: 'Bot' });
    const restore = await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: 'restore-banned-1' } });
    assert.deepEqual([restore.statusCode, restore.json().code, restore.json().reason, restore.json().expires_at], [403, 'account_banned', 'Bot', null]);
  });

  it('lifting the last active ban makes the account active again; another active ban keeps it banned', async () => {
    const u = await register(h.app);
    const a = (await sanction(u.account_id, { type: 'ban', reason: 'First', duration_seconds: 600 })).json();
    const b = (await sanction(u.account_id, { type: 'ban', reason: 'Second' })).json();
    assert.equal((await lift(a.id)).statusCode, 200);
    const still = await login(u);
    assert.deepEqual([still.statusCode, still.json().reason, still.json().expires_at], [403, 'Second', null]);
    assert.equal((await lift(b.id)).statusCode, 200);
    assert.equal((await login(u)).statusCode, 200);
    assert.equal((await call('GET', `/admin/accounts/${u.account_id}`, admin)).json().account.status, 'active');
  });

  it('expiry: an expired sanction is inactive at once; the sweeper ends it, reactivates a ban’s account, audits and announces it', async () => {
    const u = await register(h.app);
    const ban = (await sanction(u.account_id, { type: 'ban', reason: 'Short ban', duration_seconds: 60 })).json();
    const chat = (await sanction(u.account_id, { type: 'chat', reason: 'Short mute', duration_seconds: 60 })).json();
    await h.tdb.db.query(`UPDATE sanctions SET expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`, [[ban.id, chat.id]]);
    const before = (await call('GET', `/admin/accounts/${u.account_id}/sanctions`, admin)).json().sanctions;
    assert.deepEqual(before.map((s: { active: boolean }) => s.active), [false, false]);
    // Not swept yet: still banned, and sign-in names the ban.
    assert.equal((await login(u)).json().code, 'account_banned');
    assert.ok((await h.app.sweepSanctions()) >= 2);
    const ok = await login(u);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual((await call('GET', '/account/sanctions', ok.json().access_token)).json(), { sanctions: [] });
    for (const id of [ban.id, chat.id]) assert.ok(notices.some((n) => n.sanction_id === id && n.event === 'expired'), id);
    assert.equal(await auditCount(h, u.account_id, 'sanction_expiry'), 2);
    // A lift of an expired sanction is 409, and a second sweep ends nothing again.
    assert.equal((await lift(chat.id)).json().code, 'sanction_not_active');
    const again = await h.tdb.db.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'sanction' AND payload->>'sanction_id' = $1`, [chat.id]);
    await h.app.sweepSanctions();
    const after2 = await h.tdb.db.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'sanction' AND payload->>'sanction_id' = $1`, [chat.id]);
    assert.equal(after2.rows[0].n, again.rows[0].n);
  });

  it('the status endpoint bans through a permanent ban sanction and reactivation lifts it', async () => {
    const u = await register(h.app);
    assert.equal((await call('POST', `/admin/accounts/${u.account_id}/status`, admin, { status: 'banned' })).statusCode, 200);
    const [s] = (await call('GET', `/admin/accounts/${u.account_id}/sanctions`, admin)).json().sanctions;
    assert.deepEqual([s.type, s.active, s.expires_at], ['ban', true, null]);
    assert.equal((await login(u)).json().code, 'account_banned');
    assert.equal((await call('POST', `/admin/accounts/${u.account_id}/status`, admin, { status: 'active' })).statusCode, 200);
    const [lifted] = (await call('GET', `/admin/accounts/${u.account_id}/sanctions`, admin)).json().sanctions;
    assert.deepEqual([lifted.id, lifted.active], [s.id, false]);
    assert.equal((await login(u)).statusCode, 200);
    // Locking stays account_disabled.
    assert.equal((await call('POST', `/admin/accounts/${u.account_id}/status`, admin, { status: 'locked' })).statusCode, 200);
    assert.equal((await login(u)).json().code, 'account_disabled');
  });

  it('only an admin (or a server token) sanctions a moderator or admin: a moderator gets 403 forbidden', async () => {
    const mod = await withRoles(['player', 'moderator']);
    const r = await sanction(mod.account_id, { type: 'chat', reason: 'x' }, moderator);
    assert.deepEqual([r.statusCode, r.json().code], [403, 'forbidden']);
    assert.equal((await sanction(mod.account_id, { type: 'chat', reason: 'x' }, admin)).statusCode, 201);
    assert.equal((await sanction(mod.account_id, { type: 'chat', reason: 'x' }, server)).statusCode, 201);
  });

  it('bad bodies: malformed, unknown fields, wrong types, NUL, oversized, deep, both ends, a past end, an unknown type', async () => {
    const u = await register(h.app);
    const url = `/admin/accounts/${u.account_id}/sanctions`;
    const raw = (payload: string) => h.app.inject({ method: 'POST', url, headers: { ...bearer(admin), 'content-type': 'application/json' }, payload });
    const code = async (p: Promise<{ statusCode: number; json(): { code: string } }>) => {
      const r = await p;
      return [r.statusCode, r.json().code];
    };
    assert.deepEqual(await code(raw('{"type": "chat",')), [400, 'malformed_json']);
    assert.deepEqual(await code(raw('{"type":"chat","reason":"a\\u0000b"}')), [400, 'invalid_character']);
    assert.deepEqual(await code(raw(`{"type":"chat","reason":"x","a":${'['.repeat(200)}${']'.repeat(200)}}`)), [400, 'too_deep']);
    assert.deepEqual(await code(raw(JSON.stringify({ type: 'chat', reason: 'x'.repeat(2_000_000) }))), [413, 'payload_too_large']);
    for (const body of [
      {},
      { type: 'chat' },
      { reason: 'x' },
      { type: 'chat', reason: 'x', extra: 1 },
      { type: 'chat', reason: '' },
      { type: 'chat', reason: 'x'.repeat(1001) },
      { type: 7, reason: 'x' },
      { type: 'chat', reason: ['x'] },
      { type: 'chat', reason: 'x', duration_seconds: '60' },
      { type: 'chat', reason: 'x', duration_seconds: 0 },
      { type: 'chat', reason: 'x', duration_seconds: 1.5 },
      { type: 'chat', reason: 'x', expires_at: 'tomorrow' },
      { type: 'chat', reason: 'x', expires_at: new Date(Date.now() + 60_000).toISOString(), duration_seconds: 60 },
      { type: 'chat', reason: 'x', expires_at: new Date(Date.now() - 60_000).toISOString() },
    ]) {
      assert.deepEqual(await code(sanction(u.account_id, body)), [400, 'validation_failed'], JSON.stringify(body).slice(0, 80));
    }
    assert.deepEqual(await code(sanction(u.account_id, { type: 'voice', reason: 'x' })), [400, 'unknown_sanction_type']);
    // Lift bodies.
    const s = (await sanction(u.account_id, { type: 'chat', reason: 'x' })).json();
    assert.deepEqual(await code(lift(s.id, admin, { reason: 1 })), [400, 'validation_failed']);
    assert.deepEqual(await code(lift(s.id, admin, { why: 'x' })), [400, 'validation_failed']);
    assert.deepEqual(await code(lift(s.id, admin, [])), [400, 'validation_failed']);
    // Nothing was written by the refused requests.
    assert.equal((await call('GET', `/admin/accounts/${u.account_id}/sanctions`, admin)).json().sanctions.length, 1);
  });

  it('unknown, malformed and encoded ids are 404 that leaks nothing', async () => {
    // A dot segment never reaches a route.
    assert.equal((await call('GET', '/admin/accounts/%2e%2e/sanctions', admin)).statusCode, 404);
    for (const id of [UNKNOWN, UNKNOWN.toUpperCase(), 'not-a-uuid', '%20', encodeURIComponent("1' OR '1'='1")]) {
      for (const [method, url, body] of [
        ['GET', `/admin/accounts/${id}`],
        ['GET', `/admin/accounts/${id}/sanctions`],
        ['POST', `/admin/accounts/${id}/sanctions`, { type: 'chat', reason: 'x' }],
        ['PUT', `/admin/accounts/${id}/roles`, { roles: ['player'] }],
      ] as const) {
        const r = await call(method, url, admin, body);
        assert.deepEqual([r.statusCode, r.json().code], [404, 'account_not_found'], `${method} ${url}`);
        assert.deepEqual(Object.keys(r.json()).sort(), ['code', 'message', 'request_id']);
      }
      const l = await lift(id);
      assert.deepEqual([l.statusCode, l.json().code], [404, 'sanction_not_found'], id);
    }
    // An encoded spelling of a real id reaches it.
    const u = await register(h.app);
    const enc = u.account_id.replace(/^(.)/, (c) => `%${c.charCodeAt(0).toString(16)}`);
    assert.equal((await call('GET', `/admin/accounts/${enc}`, admin)).json().account.id, u.account_id);
  });

  it('the role matrix: no token, a bad token, player, moderator, admin, server token', async () => {
    const target = await register(h.app);
    const callers: Record<string, string | undefined> = { none: undefined, bad: 'not.a.token', player, moderator, admin, server };
    const staffOnly = { none: 401, bad: 401, player: 403, moderator: 200, admin: 200, server: 200 };
    const matrix: [string, () => Promise<[string, string, unknown?]>, Record<string, number>][] = [
      ['search', async () => ['GET', `/admin/accounts?q=${target.account_id}`], staffOnly],
      ['lookup', async () => ['GET', `/admin/accounts/${target.account_id}`], staffOnly],
      ['list', async () => ['GET', `/admin/accounts/${target.account_id}/sanctions`], staffOnly],
      ['sanction', async () => ['POST', `/admin/accounts/${target.account_id}/sanctions`, { type: 'chat', reason: 'matrix' }], { ...staffOnly, moderator: 201, admin: 201, server: 201 }],
      [
        'lift',
        async () => {
          const s = (await sanction(target.account_id, { type: 'chat', reason: 'to lift' })).json();
          return ['POST', `/admin/sanctions/${s.id}/lift`];
        },
        staffOnly,
      ],
      ['roles', async () => ['PUT', `/admin/accounts/${target.account_id}/roles`, { roles: ['player'] }], { none: 401, bad: 401, player: 403, moderator: 403, admin: 200, server: 403 }],
      ['status', async () => ['POST', `/admin/accounts/${target.account_id}/status`, { status: 'active' }], { none: 401, bad: 401, player: 403, moderator: 403, admin: 200, server: 403 }],
      ['own', async () => ['GET', '/account/sanctions'], { none: 401, bad: 401, player: 200, moderator: 200, admin: 200, server: 200 }],
    ];
    const got: Record<string, Record<string, number>> = {};
    const want: Record<string, Record<string, number>> = {};
    for (const [name, make, expected] of matrix) {
      want[name] = expected;
      got[name] = {};
      for (const [who, token] of Object.entries(callers)) {
        const [method, url, body] = await make();
        const r = await call(method as 'GET', url, token, body);
        got[name][who] = r.statusCode;
        if (r.statusCode === 403) assert.equal(r.json().code, ['roles', 'status'].includes(name) ? 'forbidden' : 'moderator_required', `${name} ${who}`);
        if (r.statusCode === 401) assert.ok(['unauthenticated', 'invalid_token'].includes(r.json().code), `${name} ${who}`);
      }
    }
    assert.deepEqual(got, want);
  });

  it('search by exact id, exact email (any case) and display-name prefix; limit; q is required', async () => {
    const u = await register(h.app);
    const name = `Zed${randomBytes(3).toString('hex')}`;
    assert.equal((await h.app.inject({ method: 'PATCH', url: '/account', headers: bearer(u.access_token), payload: { display_name: name } })).statusCode, 200);
    const v = await register(h.app);
    await h.app.inject({ method: 'PATCH', url: '/account', headers: bearer(v.access_token), payload: { display_name: `${name}_two` } });
    const search = async (q: string, extra = '') => (await call('GET', `/admin/accounts?q=${encodeURIComponent(q)}${extra}`, moderator)).json();
    const byId = await search(u.account_id.toUpperCase());
    assert.deepEqual(byId.accounts.map((a: { id: string }) => a.id), [u.account_id]);
    assert.deepEqual(Object.keys(byId.accounts[0]).sort(), ['created_at', 'display_name', 'email', 'id', 'is_guest', 'roles', 'status']);
    assert.equal(byId.accounts[0].email, u.email);
    assert.deepEqual((await search(u.email.toUpperCase())).accounts.map((a: { id: string }) => a.id), [u.account_id]);
    assert.deepEqual((await search(name.toLowerCase())).accounts.map((a: { id: string }) => a.id).sort(), [u.account_id, v.account_id].sort());
    assert.equal((await search(name, '&limit=1')).accounts.length, 1);
    assert.deepEqual(await search('%'), { accounts: [] });
    assert.deepEqual(await search('nobody-by-this-name-at-all'), { accounts: [] });
    for (const url of ['/admin/accounts', '/admin/accounts?q=', '/admin/accounts?q=x&limit=0', '/admin/accounts?q=x&limit=101', '/admin/accounts?q=x&other=1', '/admin/accounts?q=%20']) {
      const r = await call('GET', url, moderator);
      assert.deepEqual([r.statusCode, r.json().code], [400, 'validation_failed'], url);
    }
  });

  it('lookup: the account, its identities, latest sessions and audit entries, and sanctions', async () => {
    const u = await register(h.app);
    await login(u);
    const s = (await sanction(u.account_id, { type: 'trading', reason: 'Scam trades' }, moderator)).json();
    const r = await call('GET', `/admin/accounts/${u.account_id}`, moderator);
    assert.equal(r.statusCode, 200, r.body);
    const v = r.json();
    assert.equal(v.account.id, u.account_id);
    assert.equal(v.account.email, u.email);
    assert.equal(v.account.deleted_at, null);
    assert.deepEqual(v.identities.map((i: { provider: string; email: string }) => [i.provider, i.email]), [['email', u.email]]);
    assert.equal(v.sessions.length, 2);
    assert.ok(v.sessions.every((x: { auth_method: string; revoked_at: null }) => x.revoked_at === null));
    assert.ok(v.audit.some((e: { event: string }) => e.event === 'login'));
    assert.equal(v.audit[0].event, 'sanction');
    assert.deepEqual(v.sanctions.map((x: { id: string }) => x.id), [s.id]);
    // No secret hash anywhere.
    assert.ok(!/argon2|secret_hash|token_hash/.test(r.body));
  });

  it('roles: an admin grants moderator (the next token carries it), audited; bad roles are 400', async () => {
    const u = await register(h.app);
    const r = await call('PUT', `/admin/accounts/${u.account_id}/roles`, admin, { roles: ['player', 'moderator', 'moderator'] });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().roles, ['player', 'moderator']);
    assert.equal((await call('GET', '/admin/accounts?q=x', u.access_token)).statusCode, 403);
    const fresh = (await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: u.refresh_token } })).json().access_token;
    assert.equal((await call('GET', '/admin/accounts?q=x', fresh)).statusCode, 200);
    const audit = await h.tdb.db.query(`SELECT detail FROM audit_log WHERE account_id = $1 AND event = 'role_change'`, [u.account_id]);
    assert.deepEqual(audit.rows[0].detail.to, ['player', 'moderator']);
    for (const body of [{ roles: ['server'] }, { roles: ['root'] }, { roles: 'admin' }, {}, { roles: [], x: 1 }, { roles: ['player', 'moderator', 'admin', 'player'] }]) {
      const bad = await call('PUT', `/admin/accounts/${u.account_id}/roles`, admin, body);
      assert.deepEqual([bad.statusCode, bad.json().code], [400, 'validation_failed'], JSON.stringify(body));
    }
  });

  it('AUTH_SANCTION_FEATURES must name features (not ban or chat); a bad one stops the start', () => {
    for (const bad of ['ban', 'chat', 'Ranked', 'has space', 'x'.repeat(33), '1st']) {
      assert.throws(() => readAuthConfig({ AUTH_SANCTION_FEATURES: bad }), ConfigError, bad);
    }
    assert.deepEqual(readAuthConfig({ AUTH_SANCTION_FEATURES: 'ranked, trading_post' }).sanctionFeatures, ['ranked', 'trading_post']);
  });

  it('a server-role token reading /account/sanctions gets an empty list (no account); a sanction on a random id is 404', async () => {
    assert.deepEqual((await call('GET', '/account/sanctions', server)).json(), { sanctions: [] });
    const r = await sanction(randomUUID(), { type: 'ban', reason: 'x' });
    assert.deepEqual([r.statusCode, r.json().code], [404, 'account_not_found']);
  });
});
