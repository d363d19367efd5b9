// The second factor (docs/auth.md, "Second factor (TOTP)"; issue 30 item 3): enrolment with a real authenticator
// computation (otpauth, as an app would), recovery codes once each, sign-in in two steps, no code accepted twice,
// the lockout after wrong codes, removal, other sessions ended and audit entries on each change; bad input throughout.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { auditCount, bearer, harness, register, type Harness, assertError } from './support/harness.js';

/** The code an authenticator app shows `offsetSteps` steps from now. */
const codeOf = (secret: string, offsetSteps = 0) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

describe('second factor (TOTP)', () => {
  let h: Harness;
  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const login = (u: { email: string; password: string }) => h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
  /** The first step of a sign-in: 401 mfa_required and its token. */
  const firstStep = async (u: { email: string; password: string }): Promise<string> => {
    const body = assertError(await login(u), 401, 'mfa_required');
    return (body.details ?? body).mfa_token as string;
  };

  before(async () => {
    h = await harness({ AUTH_RATE_GENERAL_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000' });
  });
  after(() => h.close());

  /** A registered account with a confirmed authenticator: its secret, recovery codes and a session. */
  async function enrolled() {
    const u = await register(h.app);
    const start = await call('POST', '/account/mfa/totp', u.access_token);
    assert.equal(start.statusCode, 201, start.body);
    const { secret, otpauth_uri } = start.json();
    assert.match(otpauth_uri, /^otpauth:\/\/totp\/.*secret=[A-Z2-7]+/);
    const confirmed = await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: codeOf(secret) });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    return { ...u, secret: secret as string, recovery: confirmed.json().recovery_codes as string[] };
  }

  it('enrolment: pending, confirmed with the current code, ten recovery codes once; the other sessions end; audited', async () => {
    const u = await register(h.app);
    const other = (await login(u)).json().access_token as string;
    assert.deepEqual((await call('GET', '/account/mfa', u.access_token)).json(), { totp: false, pending: false, recovery_codes_left: 0, passkeys: 0 });
    const { secret } = (await call('POST', '/account/mfa/totp', u.access_token)).json();
    assert.deepEqual((await call('GET', '/account/mfa', u.access_token)).json(), { totp: false, pending: true, recovery_codes_left: 0, passkeys: 0 });
    assertError(await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: codeOf(secret, 5) }), 401, 'invalid_mfa_code');
    const ok = await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: codeOf(secret) });
    assert.equal(ok.statusCode, 200, ok.body);
    const codes = ok.json().recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    assert.deepEqual((await call('GET', '/account/mfa', u.access_token)).json(), { totp: true, pending: false, recovery_codes_left: 10, passkeys: 0 });
    assertError(await call('POST', '/account/mfa/totp', u.access_token), 409, 'totp_enabled');
    assertError(await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: codeOf(secret) }), 409, 'totp_not_pending');
    // The other session's refresh is refused now; this one lives on.
    assert.equal((await call('GET', '/account', other)).statusCode, 401);
    assert.equal((await call('GET', '/account', u.access_token)).statusCode, 200);
    assert.equal(await auditCount(h, u.account_id, 'factor_added'), 1);
    // Stored encrypted and hashed: neither the secret nor a recovery code is in the tables.
    const raw = JSON.stringify((await h.tdb.db.query('SELECT * FROM totp_factors t JOIN recovery_codes r USING (account_id) WHERE t.account_id = $1', [u.account_id])).rows);
    assert.equal(raw.includes(secret), false);
    assert.equal(codes.some((c: string) => raw.includes(c)), false);
  });

  it('a session that signed in long ago does not start an authenticator (403 recent_sign_in_required); a fresh sign-in does', async () => {
    const u = await register(h.app);
    await h.tdb.db.query(`UPDATE sessions SET created_at = now() - interval '16 minutes' WHERE account_id = $1`, [u.account_id]);
    const refused = assertError(await call('POST', '/account/mfa/totp', u.access_token), 403, 'recent_sign_in_required');
    assert.equal(refused.max_age_seconds, 900);
    assert.deepEqual((await call('GET', '/account/mfa', u.access_token)).json().pending, false, 'nothing started');
    const fresh = (await login(u)).json().access_token as string;
    assert.equal((await call('POST', '/account/mfa/totp', fresh)).statusCode, 201);
  });

  it('sign-in in two steps: 401 mfa_required with an mfa_token, then a code; a code is never accepted twice', async () => {
    const u = await enrolled();
    const first = await login(u);
    const body = assertError(first, 401, 'mfa_required');
    const token = (body.details ?? body).mfa_token;
    assert.equal(typeof token, 'string');
    assert.equal('access_token' in first.json(), false);
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, code: '000000' }), 401, 'invalid_mfa_code');
    // The confirmation spent this step's code; the next step's (an app a few seconds ahead) is accepted.
    const next = codeOf(u.secret, 1);
    const done = await call('POST', '/login/mfa', undefined, { mfa_token: token, code: next });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(typeof done.json().access_token, 'string');
    assert.equal((await call('GET', '/account', done.json().access_token)).statusCode, 200);
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, code: next }), 401, 'invalid_mfa_code');
    // Bad input: neither or both, malformed code, a tampered or foreign token.
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token }), 400, 'validation_failed');
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, code: next, recovery_code: u.recovery[0] }), 400, 'validation_failed');
    assert.equal((await call('POST', '/login/mfa', undefined, { mfa_token: token, code: '12ab56' })).statusCode, 400);
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: `${token.slice(0, -4)}AAAA`, code: codeOf(u.secret, 1) }), 401, 'invalid_mfa_code');
    assert.equal((await call('POST', '/login/mfa', undefined, { mfa_token: token, code: next, extra: 1 })).statusCode, 400);
  });

  it('a recovery code signs in once; the second use fails', async () => {
    const u = await enrolled();
    const token = await firstStep(u);
    const used = await call('POST', '/login/mfa', undefined, { mfa_token: token, recovery_code: u.recovery[3]!.toUpperCase() });
    assert.equal(used.statusCode, 200, used.body);
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, recovery_code: u.recovery[3] }), 401, 'invalid_mfa_code');
    assert.equal((await call('GET', '/account/mfa', used.json().access_token)).json().recovery_codes_left, 9);
  });

  it('five wrong codes lock the factor (423 with Retry-After), even for the right code; removal needs a code and ends other sessions', async () => {
    const u = await enrolled();
    const token = await firstStep(u);
    for (let i = 0; i < 5; i++) assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, code: '000000' }), 401, 'invalid_mfa_code');
    const locked = await call('POST', '/login/mfa', undefined, { mfa_token: token, code: codeOf(u.secret, 1) });
    assertError(locked, 423, 'account_locked');
    assert.ok(Number(locked.headers['retry-after']) > 0);
    // Removal (the session from enrolment): a wrong code is refused; then unlocked in the database, a code removes it.
    await h.tdb.db.query('UPDATE totp_factors SET locked_until = NULL, failures = 0 WHERE account_id = $1', [u.account_id]);
    assertError(await call('POST', '/account/mfa/totp/remove', u.access_token, { code: '000000' }), 401, 'invalid_mfa_code');
    assert.equal((await call('POST', '/account/mfa/totp/remove', u.access_token, { recovery_code: u.recovery[0] })).statusCode, 204);
    assertError(await call('POST', '/account/mfa/totp/remove', u.access_token, { code: codeOf(u.secret, 1) }), 404, 'totp_not_enabled');
    assert.equal(await auditCount(h, u.account_id, 'factor_removed'), 1);
    // Signing in is one step again.
    assert.equal((await login(u)).statusCode, 200);
  });

  it('the routes refuse no token, bad bodies, and a code field that is not six digits', async () => {
    assert.equal((await call('POST', '/account/mfa/totp')).statusCode, 401);
    assert.equal((await call('GET', '/account/mfa', 'not.a.token')).statusCode, 401);
    const u = await register(h.app);
    for (const body of [{}, { code: '12345' }, { code: '1234567' }, { code: 123456 }, { code: '123456', x: 1 }]) {
      assert.equal((await call('POST', '/account/mfa/totp/confirm', u.access_token, body)).statusCode, 400, JSON.stringify(body));
    }
    assertError(await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: '123456' }), 409, 'totp_not_pending');
    assertError(await call('POST', '/account/mfa/totp/remove', u.access_token, { code: '123456' }), 404, 'totp_not_enabled');
  });
});

describe('second factor required for staff (AUTH_SECOND_FACTOR_ROLES)', () => {
  let h: Harness;
  before(async () => {
    h = await harness({ AUTH_RATE_GENERAL_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000', AUTH_SECOND_FACTOR_ROLES: 'moderator,admin' });
  });
  after(() => h.close());
  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });

  it('a moderator without an authenticator signs in as a player (staff routes 403), enrols, and is staff from the two-step sign-in on', async () => {
    const u = await register(h.app);
    await h.tdb.db.query(`UPDATE accounts SET roles = ARRAY['player', 'moderator'] WHERE id = $1`, [u.account_id]);
    const login = () => h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
    const first = await login();
    assert.equal(first.statusCode, 200, first.body);
    const playerToken = first.json().access_token as string;
    assertError(await call('GET', '/admin/appeals', playerToken), 403, 'moderator_required');
    // A refresh does not bring the role back either.
    const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: first.json().refresh_token } });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assertError(await call('GET', '/admin/appeals', refreshed.json().access_token), 403, 'moderator_required');
    const { secret } = (await call('POST', '/account/mfa/totp', playerToken)).json();
    assert.equal((await call('POST', '/account/mfa/totp/confirm', playerToken, { code: codeOf(secret) })).statusCode, 200);
    const body = assertError(await login(), 401, 'mfa_required');
    const mfaToken = (body.details ?? body).mfa_token as string;
    const done = await call('POST', '/login/mfa', undefined, { mfa_token: mfaToken, code: codeOf(secret, 1) });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await call('GET', '/admin/appeals', done.json().access_token)).statusCode, 200);
  });

  it('refuses a role other than moderator and admin in the setting', async () => {
    await assert.rejects(harness({ AUTH_SECOND_FACTOR_ROLES: 'player' }), /AUTH_SECOND_FACTOR_ROLES/);
  });
});
