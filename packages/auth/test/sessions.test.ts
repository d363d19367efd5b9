// Guests, refresh-token rotation and reuse detection, logout and the deny set, several nodes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { auditCount, useHarness, guest, register, fingerprint, bearer, assertError } from './support/harness.js';
import { DENY_SID, DENY_JTI } from '../src/services/tokens.js';
import { tokenKid } from '@platform/kit';

describe('guests', () => {
  const h = useHarness({ AUTH_RATE_GUEST_PER_DEVICE: '5', AUTH_RATE_GUEST_PER_IP: '1000' });

  it('creates a guest with a one-time secret of 256 bits', async () => {
    const r = await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fingerprint(), platform: 'android' } });
    assert.equal(r.statusCode, 200);
    const g = r.json();
    assert.deepEqual(Object.keys(g).sort(), ['access_token', 'account_id', 'expires_in', 'guest_secret', 'refresh_token', 'token_type']);
    assert.equal(Buffer.from(g.guest_secret, 'base64url').length, 32);
    assert.equal(Buffer.from(g.refresh_token, 'base64url').length, 32);
    const acc = (await h.app.inject({ method: 'GET', url: '/account', headers: bearer(g.access_token) })).json();
    assert.equal(acc.is_guest, true);
    assert.deepEqual(acc.roles, ['player']);
    assert.equal(acc.identities[0].provider, 'guest');
    assert.equal(acc.devices[0].platform, 'android');
    const stored = await h.tdb.db.query(
      `SELECT c.secret_hash, d.fingerprint_hash FROM credentials c JOIN identities i ON i.id = c.identity_id JOIN devices d ON d.account_id = i.account_id WHERE i.account_id = $1`,
      [g.account_id],
    );
    assert.match(stored.rows[0].secret_hash, /^\$argon2id\$v=19\$m=256,t=1,p=1\$/);
    assert.match(stored.rows[0].fingerprint_hash, /^[0-9a-f]{64}$/);
  });

  it('restores a returning guest with account id and secret; a wrong secret is 401', async () => {
    const g = await guest(h.app);
    const ok = await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: fingerprint() } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().account_id, g.account_id);
    assert.equal(ok.json().guest_secret, undefined);
    assertError(await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: 'x'.repeat(43), device_fingerprint: fingerprint() } }), 401, 'invalid_credentials');
    const unknown = await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: '00000000-0000-4000-8000-000000000000', guest_secret: g.guest_secret, device_fingerprint: fingerprint() } });
    assert.equal(unknown.statusCode, 401);
  });

  it('sign-ups of one device at the same moment are each counted by the per-device limit (5)', async () => {
    const device = fingerprint();
    const rs = await Promise.all(Array.from({ length: 8 }, () => h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: device } })));
    assert.deepEqual(
      rs.map((r) => r.statusCode).sort(),
      [200, 200, 200, 200, 200, 429, 429, 429],
    );
    for (const r of rs.filter((x) => x.statusCode === 429)) assert.equal(r.json().code, 'rate_limited');
  });

  it('guests signing up together share one statement; one device twice in the batch still gets two guests', async () => {
    const shared = fingerprint();
    const devices = [...Array.from({ length: 10 }, () => fingerprint()), shared, shared];
    const rs = await Promise.all(
      devices.map((d, i) => h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: d, ...(i % 2 ? { platform: 'ios' } : {}) } })),
    );
    for (const r of rs) assert.equal(r.statusCode, 200, r.body);
    const guests = rs.map((r) => r.json());
    assert.equal(new Set(guests.map((g) => g.account_id)).size, devices.length);
    for (const [i, g] of guests.entries()) {
      // Each answer is its caller's: the token's account, a working refresh token and guest secret.
      const acc = (await h.app.inject({ method: 'GET', url: '/account', headers: bearer(g.access_token) })).json();
      assert.equal(acc.id, g.account_id);
      assert.equal(acc.is_guest, true);
      if (devices[i] !== shared) assert.equal(acc.devices[0].platform, i % 2 ? 'ios' : 'web');
      const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: g.refresh_token } });
      assert.equal(refreshed.json().account_id, g.account_id);
      const restored = await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: devices[i] } });
      assert.equal(restored.statusCode, 200, restored.body);
    }
    // One audit row per created guest.
    const audit = await h.tdb.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE event = 'login' AND account_id = ANY($1::uuid[]) AND detail->>'created' = 'true'`, [
      guests.map((g) => g.account_id),
    ]);
    assert.equal(audit.rows[0].n, devices.length);
  });

  it('a retried /guest with the same Idempotency-Key returns the same guest (fresh secret, old one void)', async () => {
    const device = fingerprint();
    const key = `idem-${device}`;
    const send = () => h.app.inject({ method: 'POST', url: '/guest', headers: { 'idempotency-key': key }, payload: { device_fingerprint: device } });
    const [a, b] = await Promise.all([send(), send()]);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    assert.equal(a.json().account_id, b.json().account_id);
    const c = await send();
    assert.equal(c.json().account_id, a.json().account_id);
    const n = await h.tdb.db.query(`SELECT count(*)::int AS n FROM devices d JOIN accounts a ON a.id = d.account_id WHERE a.is_guest`);
    const guests = await h.tdb.db.query(`SELECT count(*)::int AS n FROM guest_idempotency WHERE account_id = $1`, [a.json().account_id]);
    assert.equal(guests.rows[0].n, 1);
    assert.ok(n.rows[0].n >= 1);
    // Only the latest secret restores.
    const restore = (s: string) => h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: a.json().account_id, guest_secret: s, device_fingerprint: device } });
    assert.equal((await restore(c.json().guest_secret)).statusCode, 200);
    assert.equal((await restore(a.json().guest_secret)).statusCode, 401);
    // The same key from another device is a conflict.
    assertError(await h.app.inject({ method: 'POST', url: '/guest', headers: { 'idempotency-key': key }, payload: { device_fingerprint: fingerprint() } }), 409, 'idempotency_key_reused');
  });

  it('without a key, each /guest is a new guest; the per-device limit answers 429', async () => {
    const device = fingerprint();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: device } });
      assert.equal(r.statusCode, 200);
      ids.add(r.json().account_id);
    }
    assert.equal(ids.size, 5);
    const r = await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: device } });
    assertError(r, 429, 'rate_limited');
    assert.ok(Number(r.headers['retry-after']) >= 1);
  });

  it('bad input: 4xx with a code', async () => {
    for (const [url, payload, headers] of [
      ['/guest', {}, {}],
      ['/guest', { device_fingerprint: 'short' }, {}],
      ['/guest', { device_fingerprint: 12345678 }, {}],
      ['/guest', { device_fingerprint: fingerprint(), platform: 'amiga' }, {}],
      ['/guest', { device_fingerprint: fingerprint(), extra: true }, {}],
      ['/guest', { device_fingerprint: fingerprint() }, { 'idempotency-key': 'bad key!' }],
      ['/guest/restore', { account_id: 'nope', guest_secret: 'x', device_fingerprint: fingerprint() }, {}],
      ['/guest/restore', { guest_secret: 'x', device_fingerprint: fingerprint() }, {}],
    ] as [string, object, Record<string, string>][]) {
      const r = await h.app.inject({ method: 'POST', url, payload, headers });
      assert.equal(r.statusCode, 400, `${url} ${JSON.stringify(payload)} ${r.body}`);
      assert.equal(r.json().code, 'validation_failed');
    }
  });
});

describe('refresh tokens', () => {
  const h = useHarness({ AUTH_RATE_REFRESH_PER_IP: '10000' });

  const refresh = (token: string, app = h.app) => app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: token } });

  it('rotates: the new token works, the chain is recorded, only hashes are stored', async () => {
    const g = await guest(h.app);
    const r = await refresh(g.refresh_token);
    assert.equal(r.statusCode, 200);
    const next = r.json();
    assert.notEqual(next.refresh_token, g.refresh_token);
    assert.equal(next.account_id, g.account_id);
    assert.equal(next.expires_in, 600);
    const rows = (await h.tdb.db.query(`SELECT id, prev_token_id, used, token_hash, expires_at FROM refresh_tokens ORDER BY issued_at`)).rows;
    const chain = rows.filter((x) => x.prev_token_id !== null);
    assert.ok(chain.length >= 1);
    assert.ok(!rows.some((x) => x.token_hash === g.refresh_token || x.token_hash === next.refresh_token));
    const days = (new Date(chain[chain.length - 1].expires_at).getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `sliding 30 days, got ${days}`);
    assert.equal((await refresh(next.refresh_token)).statusCode, 200);
  });

  it('20 concurrent refreshes of one token: exactly one winner', async () => {
    const g = await guest(h.app);
    const rs = await Promise.all(Array.from({ length: 20 }, () => refresh(g.refresh_token)));
    const ok = rs.filter((r) => r.statusCode === 200);
    assert.equal(ok.length, 1);
    for (const r of rs.filter((x) => x.statusCode !== 200)) {
      assert.equal(r.statusCode, 401);
      assert.ok(['token_reused', 'invalid_refresh_token'].includes(r.json().code), r.body);
    }
  });

  it('refreshes arriving together share one statement: each caller gets its own session, mixed with a replayed token', async () => {
    const guests = await Promise.all(Array.from({ length: 12 }, () => guest(h.app)));
    const replayed = guests[0];
    // Every token once, the first one three times more: one statement spends them together.
    const presented = [...guests.map((g) => g.refresh_token), replayed.refresh_token, replayed.refresh_token, replayed.refresh_token];
    const rs = await Promise.all(presented.map((t) => refresh(t)));
    for (let i = 1; i < guests.length; i++) {
      assert.equal(rs[i].statusCode, 200, rs[i].body);
      const pair = rs[i].json();
      // The answer belongs to the caller: its account, its session, a working successor.
      assert.equal(pair.account_id, guests[i].account_id);
      const acc = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(pair.access_token) });
      assert.equal(acc.json().id, guests[i].account_id);
      const again = await refresh(pair.refresh_token);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().account_id, guests[i].account_id);
    }
    const replays = [rs[0], ...rs.slice(guests.length)];
    assert.equal(replays.filter((r) => r.statusCode === 200).length, 1);
    for (const r of replays.filter((x) => x.statusCode !== 200)) assert.ok(['token_reused', 'invalid_refresh_token'].includes(r.json().code), r.body);
    // One audit row per rotation, with this node's id.
    const audit = await h.tdb.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT node_id)::int AS nodes FROM audit_log WHERE event = 'refresh' AND account_id = ANY($1::uuid[]) AND NOT detail ? 'outcome'`,
      [guests.slice(1).map((g) => g.account_id)],
    );
    assert.deepEqual(audit.rows[0], { n: (guests.length - 1) * 2, nodes: 1 });
  });

  it('reuse of a used token revokes the session and its chain, audited', async () => {
    const g = await guest(h.app);
    const next = (await refresh(g.refresh_token)).json();
    assertError(await refresh(g.refresh_token), 401, 'token_reused');
    // The successor died with the session, and the session's access tokens are denied.
    assertError(await refresh(next.refresh_token), 401, 'token_reused');
    const acc = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(next.access_token) });
    assert.equal(acc.statusCode, 401);
    const audit = await h.tdb.db.query(`SELECT detail FROM audit_log WHERE account_id = $1 AND event = 'refresh'`, [g.account_id]);
    assert.ok(audit.rows.some((r) => r.detail.outcome === 'token_reused'));
  });

  it('unknown, expired or revoked: 401 invalid_refresh_token', async () => {
    assert.equal((await refresh('A'.repeat(43))).json().code, 'invalid_refresh_token');
    const g = await guest(h.app);
    await h.tdb.db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [g.account_id]);
    const r = await refresh(g.refresh_token);
    assertError(r, 401, 'invalid_refresh_token');
    for (const payload of [{}, { refresh_token: '' }, { refresh_token: 5 }, { refresh_token: 'x', more: 1 }]) {
      assertError(await h.app.inject({ method: 'POST', url: '/refresh', payload }), 400, 'validation_failed');
    }
  });

  it('a refresh token issued by one node is accepted by another (same keys, same issuer)', async () => {
    const other = await h.node();
    const g = await guest(h.app);
    const r = await refresh(g.refresh_token, other);
    assert.equal(r.statusCode, 200);
    assert.equal(tokenKid(r.json().access_token).kid, tokenKid(g.access_token).kid);
    const acc = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(r.json().access_token) });
    assert.equal(acc.statusCode, 200);
  });
});

describe('logout', () => {
  const h = useHarness();

  it('with Bearer: 204, session revoked, sid and jti on the deny set, retry is harmless', async () => {
    const u = await register(h.app);
    const claims = await h.app.auth.authenticate({ headers: bearer(u.access_token) } as never);
    const r = await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(u.access_token) });
    assert.equal(r.statusCode, 204);
    assert.equal(await h.tstate.state.setHas(DENY_SID, claims.sid), true);
    assert.equal(await h.tstate.state.setHas(DENY_JTI, claims.jti), true);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(u.access_token) })).statusCode, 401);
    assert.equal((await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: u.refresh_token } })).statusCode, 401);
    assert.equal((await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(u.access_token) })).statusCode, 204);
    assert.equal(await auditCount(h, u.account_id, 'logout'), 1);
  });

  it('with the refresh token in the body', async () => {
    const g = await guest(h.app);
    const r = await h.app.inject({ method: 'POST', url: '/logout', payload: { refresh_token: g.refresh_token } });
    assert.equal(r.statusCode, 204);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(g.access_token) })).statusCode, 401);
  });

  it('errors: nothing, a bad token, bad bodies', async () => {
    assertError(await h.app.inject({ method: 'POST', url: '/logout' }), 401, 'unauthenticated');
    const badRt = await h.app.inject({ method: 'POST', url: '/logout', payload: { refresh_token: 'nope' } });
    assert.equal(badRt.json().code, 'invalid_refresh_token');
    assertError(await h.app.inject({ method: 'POST', url: '/logout', headers: bearer('v4.public.garbage') }), 401, 'invalid_token');
    for (const payload of [{ other: 1 }, { refresh_token: 3 }, [1]]) {
      const r = await h.app.inject({ method: 'POST', url: '/logout', payload: payload as object });
      assert.equal(r.statusCode, 400, r.body);
    }
  });
});
