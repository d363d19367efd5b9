// The account: profile, platform sign-in and linking, unlink guard, export, deletion and purge, logs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { AppError } from '@platform/kit';
import { captureLogs } from '@platform/kit/testing';
import { auditCount, useHarness, guest, register, bearer, email, GOOD_PASSWORD, assertError } from './support/harness.js';
import type { PlatformVerifiers } from '../src/services/platform.js';
import { isAccountDeleted } from '../src/services/accounts.js';

// A small test-only verifier: tickets are EdDSA JWTs signed by a test "provider" key; the signature is checked for real.
const providerKey = generateKeyPairSync('ed25519');
const testVerifiers: PlatformVerifiers = {
  configured: () => ['idp_a'],
  async verify(provider, ticket, opts) {
    try {
      const { payload } = await jwtVerify(ticket, providerKey.publicKey, { issuer: 'https://idp.test', audience: 'game' });
      if (payload.nonce !== undefined && payload.nonce !== opts?.nonce) throw new Error('nonce mismatch');
      return { provider: 'idp_a', providerUserId: String(payload.sub), displayName: payload.name as string | undefined };
    } catch {
      throw new AppError(401, 'invalid_ticket', 'ticket rejected');
    }
  },
};
const ticket = (sub: string, extra: Record<string, unknown> = {}) =>
  new SignJWT({ name: `Player ${sub}`, ...extra })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject(sub)
    .setIssuer('https://idp.test')
    .setAudience('game')
    .setExpirationTime('5m')
    .sign(providerKey.privateKey);

describe('account', () => {
  const logs = captureLogs();
  const h = useHarness({ LOG_LEVEL: 'debug', AUTH_DELETION_GRACE_HOURS: '720' }, { platformVerifiers: testVerifiers, logStream: logs.stream });

  it('GET and PATCH /account', async () => {
    const u = await register(h.app);
    const r = await h.app.inject({ method: 'PATCH', url: '/account', headers: bearer(u.access_token), payload: { display_name: 'Neo', home_region: 'eu-west' } });
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().display_name, 'Neo');
    assert.equal(r.json().home_region, 'eu-west');
    // The region claim follows home_region on the next token.
    const l = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
    const claims = await h.app.auth.authenticate({ headers: bearer(l.json().access_token) } as never);
    assert.equal(claims.region, 'eu-west');
    for (const payload of [{ display_name: '' }, { home_region: 'EU WEST' }, { roles: ['admin'] }]) {
      const b = await h.app.inject({ method: 'PATCH', url: '/account', headers: bearer(u.access_token), payload });
      assert.equal(b.statusCode, 400);
    }
    assertError(await h.app.inject({ method: 'GET', url: '/account' }), 401, 'unauthenticated');
    const garbage = await h.app.inject({ method: 'GET', url: '/account', headers: { authorization: 'Bearer abc.def.ghi' } });
    assert.equal(garbage.json().code, 'invalid_token');
  });

  it('POST /platform creates once, then signs the same account in (safe to retry)', async () => {
    const t = await ticket('sub-1');
    const [a, b] = await Promise.all([
      h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'idp_a', ticket: t } }),
      h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'idp_a', ticket: t } }),
    ]);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    assert.equal(a.json().account_id, b.json().account_id);
    const claims = await h.app.auth.authenticate({ headers: bearer(a.json().access_token) } as never);
    assert.equal(claims.platform, 'idp_a');
    assertError(await h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'idp_a', ticket: t.slice(0, -4) + 'AAAA' } }), 401, 'invalid_ticket');
    assertError(await h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'store_a', ticket: t } }), 400, 'provider_not_configured');
    const invalid = await h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'Bad Provider', ticket: t } });
    assert.equal(invalid.json().code, 'validation_failed');
  });

  it('POST /platform with Bearer links to a guest (upgrade), and refuses an identity owned elsewhere', async () => {
    const g = await guest(h.app);
    const r = await h.app.inject({ method: 'POST', url: '/platform', headers: bearer(g.access_token), payload: { provider: 'idp_a', ticket: await ticket('sub-guest-link') } });
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().account_id, g.account_id);
    const acc = (await h.app.inject({ method: 'GET', url: '/account', headers: bearer(g.access_token) })).json();
    assert.equal(acc.is_guest, false);
    assert.deepEqual(acc.identities.map((i: { provider: string }) => i.provider).sort(), ['guest', 'idp_a']);
    const other = await guest(h.app);
    assertError(await h.app.inject({ method: 'POST', url: '/platform', headers: bearer(other.access_token), payload: { provider: 'idp_a', ticket: await ticket('sub-guest-link') } }), 409, 'identity_linked_elsewhere');
    assert.equal(await auditCount(h, g.account_id, 'link'), 1);
  });

  it('/account/link with email and password upgrades a guest; /account/unlink keeps the last credential', async () => {
    const g = await guest(h.app);
    const e = email();
    const weak = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { email: e, password: 'password12' } });
    assert.equal(weak.json().code, 'weak_password');
    const r = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { email: e, password: GOOD_PASSWORD } });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().identities.map((i: { provider: string }) => i.provider).sort(), ['email', 'guest']);
    const again = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { email: e, password: GOOD_PASSWORD } });
    assert.equal(again.json().code, 'email_taken');
    const login = await h.app.inject({ method: 'POST', url: '/login', payload: { email: e, password: GOOD_PASSWORD } });
    assert.equal(login.json().account_id, g.account_id);

    const linkPlatform = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { provider: 'idp_a', ticket: await ticket('sub-link-2') } });
    assert.equal(linkPlatform.statusCode, 200);
    assert.equal(linkPlatform.json().identities.length, 3);

    const u1 = await h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload: { provider: 'guest' } });
    assert.equal(u1.statusCode, 200);
    const emailId = u1.json().identities.find((i: { provider: string }) => i.provider === 'email').id;
    const u2 = await h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload: { identity_id: emailId } });
    assert.equal(u2.statusCode, 200);
    assertError(await h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload: { provider: 'idp_a' } }), 409, 'last_credential');
    assertError(await h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload: { provider: 'email' } }), 404, 'identity_not_found');
    for (const payload of [{}, { provider: 'a', identity_id: 'b' }, { identity_id: 'not-a-uuid' }]) {
      const b = await h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload });
      assert.equal(b.statusCode, 400, JSON.stringify(payload));
    }
    const badLink = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { email: e } });
    assert.equal(badLink.statusCode, 400);
  });

  it('a lone guest cannot unlink its guest identity; parallel unlinks never leave zero', async () => {
    const g = await guest(h.app);
    const r = await h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload: { provider: 'guest' } });
    assert.equal(r.json().code, 'last_credential');
    await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { provider: 'idp_a', ticket: await ticket('sub-race') } });
    const rs = await Promise.all(
      ['guest', 'idp_a'].map((provider) => h.app.inject({ method: 'POST', url: '/account/unlink', headers: bearer(g.access_token), payload: { provider } })),
    );
    assert.deepEqual(rs.map((x) => x.statusCode).sort(), [200, 409]);
    const n = await h.tdb.db.query(`SELECT count(*)::int AS n FROM identities WHERE account_id = $1`, [g.account_id]);
    assert.equal(n.rows[0].n, 1);
  });

  it('export holds everything about the account and never a hash', async () => {
    const u = await register(h.app);
    const moderator = '7d6c1f0e-2b8a-4f4e-9d6b-1c2a3b4c5d6e';
    await h.tdb.db.query(
      `INSERT INTO sanctions (account_id, type, reason, created_by, expires_at, lifted_at, lifted_by, lift_reason)
       VALUES ($1, 'chat', 'spam in lobby', $2, now() + interval '1 day', now(), $2, 'appeal upheld')`,
      [u.account_id, moderator],
    );
    const r = await h.app.inject({ method: 'POST', url: '/account/export', headers: bearer(u.access_token) });
    assert.equal(r.statusCode, 200);
    const x = r.json();
    assert.deepEqual(Object.keys(x).sort(), ['account', 'appeals', 'audit_log', 'credentials', 'devices', 'email_tokens', 'exported_at', 'identities', 'sanctions', 'sessions']);
    assert.equal(x.sanctions.length, 1);
    assert.equal(x.sanctions[0].type, 'chat');
    assert.equal(x.sanctions[0].reason, 'spam in lobby');
    assert.equal(x.sanctions[0].lift_reason, 'appeal upheld');
    assert.equal(x.sanctions[0].active, false);
    assert.ok(!r.body.includes(moderator), 'the staff who set or lifted a sanction are not named');
    assert.equal(x.account.id, u.account_id);
    assert.equal(x.sessions.length, 1);
    assert.ok(x.audit_log.length >= 1);
    assert.doesNotMatch(r.body, /argon2|secret_hash|token_hash/);
  });

  it('DELETE /account: 202, sessions revoked, outbox notice, retry harmless, purge after the grace window', async () => {
    const u = await register(h.app);
    const del = await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(u.access_token) });
    assert.equal(del.statusCode, 202);
    assert.equal(del.json().status, 'deleted');
    const again = await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(u.access_token) });
    assert.equal(again.statusCode, 202); // a retry (lost response) confirms again
    assert.equal(again.json().deleted_at, del.json().deleted_at);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(u.access_token) })).statusCode, 401);
    assert.equal((await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: u.refresh_token } })).statusCode, 401);
    assert.equal((await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } })).statusCode, 401);
    const outbox = await h.tdb.db.query(`SELECT topic, payload FROM outbox WHERE topic = 'account.deleted' AND payload->>'account_id' = $1`, [u.account_id]);
    assert.equal(outbox.rows.length, 1);
    // The revocation notice (docs/auth.md, "Revocation") went with it, naming the session of the token.
    const revocation = await h.tdb.db.query(`SELECT payload FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1 ORDER BY created_at LIMIT 1`, [u.account_id]);
    assert.deepEqual(
      (({ type, reason, scope, sids }) => ({ type, reason, scope, sids: sids.length }))(revocation.rows[0].payload),
      { type: 'revocation', reason: 'account_deleted', scope: 'account', sids: 1 },
    );
    assert.equal(outbox.rows[0].topic, 'account.deleted');
    assert.equal(outbox.rows[0].payload.type, 'account.deleted');
    assert.equal(outbox.rows[0].payload.deleted_at, del.json().deleted_at);

    // Not yet: inside the grace window nothing is purged.
    assert.equal(await h.app.purgeDeletedAccounts(new Date(Date.now() + 719 * 3_600_000)), 0);
    const purged = await h.app.purgeDeletedAccounts(new Date(Date.now() + 721 * 3_600_000));
    assert.ok(purged >= 1);
    for (const table of ['identities', 'devices', 'audit_log', 'sessions']) {
      const n = await h.tdb.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [u.account_id]);
      assert.equal(n.rows[0].n, 0, table);
    }
    const creds = await h.tdb.db.query(`SELECT count(*)::int AS n FROM credentials c LEFT JOIN identities i ON i.id = c.identity_id WHERE i.id IS NULL`);
    assert.equal(creds.rows[0].n, 0);
    const acc = await h.tdb.db.query(`SELECT status, display_name, purged_at FROM accounts WHERE id = $1`, [u.account_id]);
    assert.equal(acc.rows[0].status, 'deleted');
    assert.equal(acc.rows[0].display_name, '');
    assert.ok(acc.rows[0].purged_at);
    // The email is free again.
    const re = await h.app.inject({ method: 'POST', url: '/register', payload: { email: u.email, password: GOOD_PASSWORD } });
    assert.equal(re.statusCode, 201);
  });

  it('concurrent DELETEs are 202 and write one notice; a revoked token cannot delete an active account', async () => {
    const u = await register(h.app);
    const second = (await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } })).json();
    const rs = await Promise.all([
      h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(u.access_token) }),
      h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(u.access_token) }),
    ]);
    assert.deepEqual(rs.map((r) => r.statusCode), [202, 202]);
    assert.equal(rs[0].json().deleted_at, rs[1].json().deleted_at);
    // Every session's sid is denied afterwards.
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(second.access_token) })).statusCode, 401);
    const n = await h.tdb.db.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'account.deleted' AND payload->>'account_id' = $1`, [u.account_id]);
    assert.equal(n.rows[0].n, 1);
    const v = await register(h.app);
    await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(v.access_token) });
    const refused = await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(v.access_token) });
    assert.equal(refused.statusCode, 401);
    assert.equal(await isAccountDeleted(h.app.auth, v.account_id), false);
  });

  it('prunes guests idle longer than AUTH_GUEST_IDLE_DAYS, never upgraded accounts', async () => {
    const idle = await guest(h.app);
    const active = await guest(h.app);
    const upgraded = await guest(h.app);
    await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(upgraded.access_token), payload: { email: email(), password: GOOD_PASSWORD } });
    await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: active.refresh_token } });
    const old = `now() - interval '200 days'`;
    for (const id of [idle.account_id, active.account_id, upgraded.account_id]) {
      await h.tdb.db.query(`UPDATE accounts SET created_at = ${old} WHERE id = $1`, [id]);
      await h.tdb.db.query(`UPDATE identities SET last_login_at = ${old} WHERE account_id = $1`, [id]);
      await h.tdb.db.query(`UPDATE refresh_tokens SET issued_at = ${old} WHERE session_id IN (SELECT id FROM sessions WHERE account_id = $1)`, [id]);
    }
    // `active` refreshed "recently": move only its last refresh back to 10 days ago.
    await h.tdb.db.query(
      `UPDATE refresh_tokens SET issued_at = now() - interval '10 days' WHERE prev_token_id IS NOT NULL AND session_id IN (SELECT id FROM sessions WHERE account_id = $1)`,
      [active.account_id],
    );
    assert.ok((await h.app.pruneIdleGuests()) >= 1);
    const left = async (id: string) => (await h.tdb.db.query(`SELECT count(*)::int AS n FROM accounts WHERE id = $1`, [id])).rows[0].n;
    assert.equal(await left(idle.account_id), 0);
    assert.equal(await left(active.account_id), 1);
    assert.equal(await left(upgraded.account_id), 1);
    const audit = await h.tdb.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE account_id = $1`, [idle.account_id]);
    assert.equal(audit.rows[0].n, 0);
  });

  it('admins lock and ban accounts; sessions end, sign-in is refused with 403 account_banned (locked: account_disabled)', async () => {
    const admin = await register(h.app);
    await h.tdb.db.query(`UPDATE accounts SET roles = ARRAY['player', 'admin'] WHERE id = $1`, [admin.account_id]);
    const adminToken = (await h.app.inject({ method: 'POST', url: '/login', payload: { email: admin.email, password: admin.password } })).json().access_token;
    const u = await register(h.app);
    const set = (id: string, status: unknown, token = adminToken) =>
      h.app.inject({ method: 'POST', url: `/admin/accounts/${id}/status`, headers: bearer(token), payload: { status } });
    assert.equal((await set(u.account_id, 'banned', u.access_token)).statusCode, 403);
    assert.equal((await set(u.account_id, 'deleted')).statusCode, 400);
    assert.equal((await set('not-a-uuid', 'banned')).statusCode, 400);
    assert.equal((await set('00000000-0000-4000-8000-000000000000', 'banned')).json().code, 'account_not_found');
    const r = await set(u.account_id, 'banned');
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().sessions_revoked, 1);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(u.access_token) })).statusCode, 401);
    assert.equal((await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: u.refresh_token } })).statusCode, 401);
    const login = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
    assertError(login, 403, 'account_banned');
    assert.equal((await set(u.account_id, 'active')).statusCode, 200);
    assert.equal((await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } })).statusCode, 200);
  });

  it('never logs a password, refresh token, access token or guest secret', async () => {
    const g = await guest(h.app);
    const u = await register(h.app);
    await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: 'a wrong password 1' } });
    const r = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: u.refresh_token } });
    await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: 'restore-device-1' } });
    await h.app.inject({ method: 'GET', url: '/account', headers: bearer(r.json().access_token) });
    await h.app.inject({ method: 'POST', url: '/logout', payload: { refresh_token: r.json().refresh_token } });
    const text = logs.text();
    assert.ok(text.length > 0);
    for (const secret of [u.password, 'a wrong password 1', u.refresh_token, u.access_token, r.json().access_token, r.json().refresh_token, g.guest_secret, g.access_token, g.refresh_token]) {
      assert.ok(!text.includes(secret), `leaked ${secret.slice(0, 12)}…`);
    }
  });
});
