// An admin's reset of an account's sign-in factors (docs/auth.md, "Resetting lost factors"; decision 0031): the
// authenticator app and every passkey go, every session ends, the audit log names the admin and the reason, and the
// owner is mailed (a real SMTP server); only the admin role may; other ids, deleted accounts and bad input refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { SoftAuthenticator } from '@platform/kit/testing';
import { assertError, bearer, register, useMailHarness, withRoles } from './support/harness.js';

const ORIGIN = 'https://play.example.test';
const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

describe('factor reset (admin)', () => {
  const { h, smtp } = useMailHarness({
    AUTH_RATE_GENERAL_PER_IP: '100000',
    AUTH_RATE_LOGIN_PER_IP: '100000',
    AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000',
    AUTH_WEBAUTHN_RP_ID: 'example.test',
    AUTH_WEBAUTHN_ORIGINS: ORIGIN,
    AUTH_MAIL_PRODUCT_NAME: 'Space Race',
    AUTH_INTERNAL_KEYS: `matchmaking:${'k'.repeat(40)}`,
  });
  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const reset = (id: string, token: string | undefined, payload: unknown = { reason: 'case 4711: lost phone, identity checked' }) => call('POST', `/admin/accounts/${id}/factors/reset`, token, payload);

  /** A player with an authenticator app and a passkey, and a second session. */
  async function withFactors() {
    const u = await register(h.app);
    const { secret } = (await call('POST', '/account/mfa/totp', u.access_token)).json();
    assert.equal((await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: codeOf(secret) })).statusCode, 200);
    const auth = new SoftAuthenticator(ORIGIN);
    const options = (await call('POST', '/account/passkeys/registration/options', u.access_token)).json().public_key;
    assert.equal((await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create(options) })).statusCode, 201);
    const first = assertError(await call('POST', '/login', undefined, { email: u.email, password: u.password }), 401, 'mfa_required');
    assert.deepEqual([...first.factors].sort(), ['passkey', 'totp']);
    return u;
  }

  it('removes the authenticator and the passkeys, ends every session, audits the admin and the reason, mails the owner', async () => {
    const u = await withFactors();
    const admin = await withRoles(h, ['admin']);
    const r = await reset(u.account_id, admin.token);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { totp_removed: true, passkeys_removed: 1, sessions_revoked: 1 });
    assert.equal((await call('GET', '/account', u.access_token)).statusCode, 401, 'the session ended');
    // The password alone signs in now (no second step), and the account has no factor left.
    const login = await call('POST', '/login', undefined, { email: u.email, password: u.password });
    assert.equal(login.statusCode, 200, login.body);
    assert.deepEqual((await call('GET', '/account/mfa', login.json().access_token)).json(), { totp: false, pending: false, recovery_codes_left: 0, passkeys: 0 });
    const entry = (await h.tdb.db.query(`SELECT actor, detail FROM audit_log WHERE account_id = $1 AND event = 'factor_removed' ORDER BY at DESC LIMIT 1`, [u.account_id])).rows[0];
    assert.equal(entry.detail.factor, 'all');
    assert.equal(entry.detail.by, admin.account_id);
    assert.equal(entry.detail.reason, 'case 4711: lost phone, identity checked');
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(u.email) && m.subject.includes('second factors were reset'));
    assert.equal(mail.subject, 'Space Race: your second factors were reset');
    // The owner is told what happened, never who did it or the support case's words.
    for (const secretText of [admin.email, admin.account_id, 'case 4711']) assert.equal(mail.text.includes(secretText), false, secretText);
  });

  it('an account without factors: nothing removed, its sessions still end', async () => {
    const u = await register(h.app);
    const admin = await withRoles(h, ['admin']);
    const r = await reset(u.account_id, admin.token);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { totp_removed: false, passkeys_removed: 0, sessions_revoked: 1 });
  });

  it('only the admin role: no token, a player, a moderator, another service\'s server token are refused and nothing changes', async () => {
    const u = await withFactors();
    const moderator = await withRoles(h, ['moderator']);
    const server = await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': 'k'.repeat(40) } });
    assert.equal(server.statusCode, 200, server.body);
    assertError(await reset(u.account_id, server.json().access_token), 403, 'forbidden');
    assertError(await h.app.inject({ method: 'POST', url: `/admin/accounts/${u.account_id}/factors/reset`, headers: { 'x-internal-key': 'k'.repeat(40) }, payload: { reason: 'x' } }), 401, 'unauthenticated');
    assertError(await reset(u.account_id, undefined), 401, 'unauthenticated');
    assertError(await reset(u.account_id, u.access_token), 403, 'forbidden');
    assertError(await reset(u.account_id, moderator.token), 403, 'forbidden');
    assertError(await call('POST', '/login', undefined, { email: u.email, password: u.password }), 401, 'mfa_required');
  });

  it('unknown, malformed and deleted accounts: 404; bad bodies: 400', async () => {
    const admin = await withRoles(h, ['admin']);
    assertError(await reset('00000000-0000-0000-0000-000000000000', admin.token), 404, 'account_not_found');
    assertError(await reset('not-a-uuid', admin.token), 404, 'account_not_found');
    assertError(await reset('not-a-uuid%00', admin.token), 400, 'invalid_character');
    const gone = await register(h.app);
    assert.equal((await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(gone.access_token) })).statusCode, 202);
    assertError(await reset(gone.account_id, admin.token), 404, 'account_not_found');
    const u = await register(h.app);
    for (const body of [{}, { reason: '' }, { reason: 5 }, { reason: 'x'.repeat(1001) }, { reason: 'ok', extra: 1 }]) {
      const r = await reset(u.account_id, admin.token, body);
      assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`);
    }
    assertError(await reset(u.account_id, admin.token, { reason: 'a\u0000b' }), 400, 'invalid_character');
    const malformed = await h.app.inject({ method: 'POST', url: `/admin/accounts/${u.account_id}/factors/reset`, headers: { ...bearer(admin.token), 'content-type': 'application/json' }, payload: '{"reason":' });
    assert.equal(malformed.statusCode, 400, malformed.body);
  });
});
