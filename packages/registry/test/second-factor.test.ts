// A developer's second factor (docs/registry.md, "Second factor (TOTP)"; decision 0026): enrolment with a real
// authenticator computation (otpauth, as an app would), the two-step sign-in, no code accepted twice, recovery codes
// once each, the lockout, removal, other tokens ended on each change, the super-admin requirement, rate limits and
// bad input throughout.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { captureLogs } from '@platform/kit/testing';
import { readRegistryConfig } from '../src/config.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, harness, registerDeveloper, uniqueEmail, useHarness, type Harness } from './helpers.js';

/** The code an authenticator app shows `offsetSteps` steps from now. */
const codeOf = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

const PASSWORD = 'correct horse battery';

function client(h: Harness) {
  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown, remoteAddress?: string) =>
    h.app.inject({ method, url, remoteAddress, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const login = (email: string, password = PASSWORD) => call('POST', '/developers/login', undefined, { Email: email, Password: password });
  /** The first step of a sign-in of a developer with the factor: 401 mfa_required and its MfaToken. */
  const firstStep = async (email: string, password = PASSWORD): Promise<string> => {
    const body = assertError(await login(email, password), 401, 'mfa_required');
    assert.equal(typeof body.MfaToken, 'string');
    return body.MfaToken as string;
  };
  const second = (payload: Record<string, unknown>, remoteAddress?: string) => call('POST', '/developers/login/mfa', undefined, payload, remoteAddress);
  /** A developer with a confirmed authenticator (confirmed with the previous step's code, so the current one is free). */
  const enrolled = async (email?: string, password = PASSWORD) => {
    email ??= (await registerDeveloper(h.app, uniqueEmail('mfa'), password)).email;
    const token0 = (await login(email, password)).json().Token as string;
    const start = await call('POST', '/developers/me/mfa/totp', token0);
    assert.equal(start.statusCode, 201, start.body);
    const secret = start.json().Secret as string;
    const ok = await call('POST', '/developers/me/mfa/totp/confirm', token0, { Code: codeOf(secret, -1) });
    assert.equal(ok.statusCode, 200, ok.body);
    return { email, secret, token: ok.json().Token as string, recovery: ok.json().RecoveryCodes as string[], oldToken: token0 };
  };
  return { call, login, firstStep, second, enrolled };
}

describe('developer second factor (TOTP)', () => {
  const h = useHarness();
  const c = () => client(h);

  it('enrolment: pending, confirmed with the current code, ten recovery codes once, a new token; the other tokens end', async () => {
    const { call, login } = c();
    const dev = await registerDeveloper(h.app);
    const other = (await login(dev.email)).json().Token as string;
    assert.deepEqual((await call('GET', '/developers/me/mfa', dev.token)).json(), { Totp: false, Pending: false, RecoveryCodesLeft: 0 });
    const start = await call('POST', '/developers/me/mfa/totp', dev.token);
    assert.equal(start.statusCode, 201);
    const { Secret: secret, OtpauthUri } = start.json();
    assert.match(OtpauthUri, /^otpauth:\/\/totp\/.*secret=[A-Z2-7]+/);
    assert.ok(OtpauthUri.includes(encodeURIComponent(dev.email)) || OtpauthUri.includes(dev.email), OtpauthUri);
    assert.deepEqual((await call('GET', '/developers/me/mfa', dev.token)).json(), { Totp: false, Pending: true, RecoveryCodesLeft: 0 });
    // A pending factor does not change the sign-in.
    assert.equal((await login(dev.email)).statusCode, 200);
    assertError(await call('POST', '/developers/me/mfa/totp/confirm', dev.token, { Code: codeOf(secret, 5) }), 401, 'invalid_mfa_code');
    const ok = await call('POST', '/developers/me/mfa/totp/confirm', dev.token, { Code: codeOf(secret) });
    assert.equal(ok.statusCode, 200, ok.body);
    const { RecoveryCodes, Token } = ok.json();
    assert.equal(RecoveryCodes.length, 10);
    assert.equal(new Set(RecoveryCodes).size, 10);
    // Every token issued before is refused now; the answered one works.
    assertError(await call('GET', '/games', dev.token), 401, 'unauthorized');
    assertError(await call('GET', '/games', other), 401, 'unauthorized');
    assert.equal((await call('GET', '/games', Token)).statusCode, 200);
    assert.deepEqual((await call('GET', '/developers/me/mfa', Token)).json(), { Totp: true, Pending: false, RecoveryCodesLeft: 10 });
    assertError(await call('POST', '/developers/me/mfa/totp', Token), 409, 'totp_enabled');
    assertError(await call('POST', '/developers/me/mfa/totp/confirm', Token, { Code: codeOf(secret, 1) }), 409, 'totp_not_pending');
    // Stored sealed and hashed: neither the secret nor a recovery code is in the tables.
    const raw = JSON.stringify(
      (await h.db.query('SELECT * FROM developer_totp t JOIN developer_recovery_codes r USING (developer_id) WHERE t.developer_id = $1', [dev.id])).rows,
    );
    assert.ok(!raw.includes(secret));
    for (const code of RecoveryCodes) assert.ok(!raw.includes(code));
  });

  it('confirm without a pending factor: 409 totp_not_pending; a new start replaces a pending secret', async () => {
    const { call } = c();
    const dev = await registerDeveloper(h.app);
    assertError(await call('POST', '/developers/me/mfa/totp/confirm', dev.token, { Code: '123456' }), 409, 'totp_not_pending');
    const first = (await call('POST', '/developers/me/mfa/totp', dev.token)).json().Secret;
    const second = (await call('POST', '/developers/me/mfa/totp', dev.token)).json().Secret;
    assert.notEqual(first, second);
    // The replaced secret's codes are not the new one's (unless by a one-in-a-million chance).
    const stale = codeOf(first);
    if (stale !== codeOf(second) && stale !== codeOf(second, -1) && stale !== codeOf(second, 1)) {
      assertError(await call('POST', '/developers/me/mfa/totp/confirm', dev.token, { Code: stale }), 401, 'invalid_mfa_code');
    }
    assert.equal((await call('POST', '/developers/me/mfa/totp/confirm', dev.token, { Code: codeOf(second) })).statusCode, 200);
  });

  it('sign-in in two steps: a code once (a reused code fails), a recovery code once (its second use fails)', async () => {
    const { call, login, firstStep, second, enrolled } = c();
    const dev = await enrolled();
    // A wrong password is still invalid_credentials (no hint that a factor exists).
    assertError(await login(dev.email, 'wrong password here'), 401, 'invalid_credentials');
    const mfa = await firstStep(dev.email);
    const code = codeOf(dev.secret);
    const ok = await second({ MfaToken: mfa, Code: code });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(Object.keys(ok.json()).sort(), ['DeveloperId', 'Email', 'Role', 'Token']);
    assert.equal(ok.json().Email, dev.email);
    assert.equal((await call('GET', '/games', ok.json().Token)).statusCode, 200);
    // The same code again (the same MfaToken or a new one): refused.
    assertError(await second({ MfaToken: mfa, Code: code }), 401, 'invalid_mfa_code');
    assertError(await second({ MfaToken: await firstStep(dev.email), Code: code }), 401, 'invalid_mfa_code');
    // A recovery code, typed in upper case with a separator: accepted once.
    const typed = `${dev.recovery[0].slice(0, 10).toUpperCase()}-${dev.recovery[0].slice(10)}`;
    const rec = await second({ MfaToken: await firstStep(dev.email), RecoveryCode: typed });
    assert.equal(rec.statusCode, 200, rec.body);
    assertError(await second({ MfaToken: await firstStep(dev.email), RecoveryCode: dev.recovery[0] }), 401, 'invalid_mfa_code');
    assert.equal((await call('GET', '/developers/me/mfa', rec.json().Token)).json().RecoveryCodesLeft, 9);
    // A sign-in does not end the other tokens (only a factor change does).
    assert.equal((await call('GET', '/games', dev.token)).statusCode, 200);
  });

  it('an MfaToken is bound to its developer and to this service: another developer’s code or a forged token fails', async () => {
    const { firstStep, second, enrolled } = c();
    const a = await enrolled();
    const b = await enrolled();
    // B's current code against A's sign-in: wrong (A's factor counts the failure).
    const bCode = codeOf(b.secret);
    if (bCode !== codeOf(a.secret) && bCode !== codeOf(a.secret, 1) && bCode !== codeOf(a.secret, -1)) {
      assertError(await second({ MfaToken: await firstStep(a.email), Code: bCode }), 401, 'invalid_mfa_code');
    }
    assertError(await second({ MfaToken: await firstStep(a.email), RecoveryCode: b.recovery[0] }), 401, 'invalid_mfa_code');
    // Tampered, made up or a developer token in its place.
    const mfa = await firstStep(a.email);
    const tampered = mfa.slice(0, -4) + (mfa.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assertError(await second({ MfaToken: tampered, Code: codeOf(a.secret) }), 401, 'invalid_mfa_code');
    assertError(await second({ MfaToken: 'x'.repeat(40), Code: codeOf(a.secret) }), 401, 'invalid_mfa_code');
    assertError(await second({ MfaToken: a.token, Code: codeOf(a.secret) }), 401, 'invalid_mfa_code');
    // B's recovery code still works for B (A's failed attempt did not spend it).
    assert.equal((await second({ MfaToken: await firstStep(b.email), RecoveryCode: b.recovery[0] })).statusCode, 200);
  });

  it('five wrong codes lock the factor for 15 minutes: 423 with Retry-After, even for the right code or a recovery code', async () => {
    const { call, firstStep, second, enrolled } = c();
    const dev = await enrolled();
    const mfa = await firstStep(dev.email);
    const wrong = String((Number(codeOf(dev.secret)) + 500_000) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) assertError(await second({ MfaToken: mfa, Code: wrong }), 401, 'invalid_mfa_code');
    const locked = await second({ MfaToken: mfa, Code: codeOf(dev.secret) });
    assertError(locked, 423, 'account_locked');
    const retry = Number(locked.headers['retry-after']);
    assert.ok(retry > 14 * 60 && retry <= 15 * 60, String(retry));
    assertError(await second({ MfaToken: mfa, RecoveryCode: dev.recovery[1] }), 423, 'account_locked');
    // Removal checks the same factor: locked too.
    assertError(await call('POST', '/developers/me/mfa/totp/remove', dev.token, { RecoveryCode: dev.recovery[1] }), 423, 'account_locked');
    // When the lock has passed (moved back in the database: no waiting), the right code signs in.
    await h.db.query(`UPDATE developer_totp SET locked_until = now() - interval '1 second' WHERE developer_id = (SELECT id FROM developers WHERE email = $1)`, [dev.email]);
    assert.equal((await second({ MfaToken: mfa, Code: codeOf(dev.secret) })).statusCode, 200);
  });

  it('removal: needs a current code or a recovery code; ends the other tokens; the sign-in is one step again', async () => {
    const { call, login, second, firstStep, enrolled } = c();
    const plain = await registerDeveloper(h.app);
    assertError(await call('POST', '/developers/me/mfa/totp/remove', plain.token, { Code: '123456' }), 404, 'totp_not_enabled');
    const dev = await enrolled();
    const other = (await second({ MfaToken: await firstStep(dev.email), RecoveryCode: dev.recovery[2] })).json().Token as string;
    const wrong = String((Number(codeOf(dev.secret)) + 500_000) % 1_000_000).padStart(6, '0');
    assertError(await call('POST', '/developers/me/mfa/totp/remove', dev.token, { Code: wrong }), 401, 'invalid_mfa_code');
    assertError(await call('POST', '/developers/me/mfa/totp/remove', dev.token, { RecoveryCode: dev.recovery[2] }), 401, 'invalid_mfa_code');
    assertError(await call('POST', '/developers/me/mfa/totp/remove', dev.token, {}), 400, 'validation_failed');
    assertError(await call('POST', '/developers/me/mfa/totp/remove', dev.token, { Code: codeOf(dev.secret), RecoveryCode: dev.recovery[3] }), 400, 'validation_failed');
    const removed = await call('POST', '/developers/me/mfa/totp/remove', dev.token, { Code: codeOf(dev.secret) });
    assert.equal(removed.statusCode, 200, removed.body);
    assertError(await call('GET', '/games', dev.token), 401, 'unauthorized');
    assertError(await call('GET', '/games', other), 401, 'unauthorized');
    const fresh = removed.json().Token as string;
    assert.deepEqual((await call('GET', '/developers/me/mfa', fresh)).json(), { Totp: false, Pending: false, RecoveryCodesLeft: 0 });
    assert.equal((await login(dev.email)).statusCode, 200);
    assert.equal((await h.db.query('SELECT count(*)::int AS n FROM developer_recovery_codes r JOIN developers d ON d.id = r.developer_id WHERE d.email = $1', [dev.email])).rows[0].n, 0);
  });

  it('refuses no token, bad bodies, unknown fields, wrong types, NUL and oversized values', async () => {
    const { call, second, firstStep, enrolled } = c();
    const dev = await enrolled();
    for (const [method, url] of [
      ['GET', '/developers/me/mfa'],
      ['POST', '/developers/me/mfa/totp'],
      ['POST', '/developers/me/mfa/totp/confirm'],
      ['POST', '/developers/me/mfa/totp/remove'],
    ] as const) {
      assertError(await call(method, url, undefined, method === 'POST' ? { Code: '123456' } : undefined), 401, 'unauthorized');
      assertError(await call(method, url, 'not-a-token', method === 'POST' ? { Code: '123456' } : undefined), 401, 'unauthorized');
    }
    const mfa = await firstStep(dev.email);
    const bad: [string, unknown][] = [
      ['/developers/me/mfa/totp/confirm', { Code: '12345' }],
      ['/developers/me/mfa/totp/confirm', { Code: 123456 }],
      ['/developers/me/mfa/totp/confirm', { Code: '12345a' }],
      ['/developers/me/mfa/totp/confirm', { Code: '123456', Extra: 1 }],
      ['/developers/me/mfa/totp/confirm', {}],
      ['/developers/me/mfa/totp/remove', { Code: '12\u00003456' }],
      ['/developers/me/mfa/totp/remove', { RecoveryCode: 'x'.repeat(65) }],
      ['/developers/me/mfa/totp/remove', { RecoveryCode: 'abc\u0000defghij' }],
      ['/developers/login/mfa', { MfaToken: mfa }],
      ['/developers/login/mfa', { MfaToken: mfa, Code: codeOf(dev.secret), RecoveryCode: dev.recovery[0] }],
      ['/developers/login/mfa', { MfaToken: 'x'.repeat(1025), Code: '123456' }],
      ['/developers/login/mfa', { MfaToken: 'short', Code: '123456' }],
      ['/developers/login/mfa', { MfaToken: mfa, Code: '123456', Email: dev.email }],
      ['/developers/login/mfa', { MfaToken: 42, Code: '123456' }],
    ];
    for (const [url, payload] of bad) {
      const r = await call('POST', url, url.startsWith('/developers/me') ? dev.token : undefined, payload);
      assert.equal(r.statusCode, 400, `${url} ${JSON.stringify(payload)}: ${r.body}`);
      assert.ok(['validation_failed', 'invalid_character'].includes(r.json().Code), r.body);
    }
    const malformed = await h.app.inject({ method: 'POST', url: '/developers/login/mfa', headers: { 'content-type': 'application/json' }, payload: '{"MfaToken": ' });
    assertError(malformed, 400, 'malformed_json');
    const huge = await h.app.inject({ method: 'POST', url: '/developers/login/mfa', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ MfaToken: 'x'.repeat(200_000), Code: '123456' }) });
    assertError(huge, 413, 'payload_too_large');
    // None of the refused bodies counted as a wrong code, nor spent anything.
    assert.equal((await second({ MfaToken: mfa, RecoveryCode: dev.recovery[0] })).statusCode, 200);
  });
});

describe('developer second factor: rate limit of the second step', () => {
  const h = useHarness({ rateLoginMfaPerIp: 5 });

  it('limits second steps per address (429, Retry-After), counted before validation; another address is served', async () => {
    const { second, firstStep, enrolled } = client(h);
    const dev = await enrolled();
    const mfa = await firstStep(dev.email);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await second({ MfaToken: 'bad' }, '203.0.113.44')).statusCode);
    assert.deepEqual(statuses, Array(5).fill(400));
    const limited = await second({ MfaToken: mfa, RecoveryCode: dev.recovery[0] }, '203.0.113.44');
    assertError(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await second({ MfaToken: mfa, RecoveryCode: dev.recovery[0] }, '198.51.100.44')).statusCode, 200);
  });
});

describe('REGISTRY_SECOND_FACTOR_ROLES=super-admin', () => {
  const h = useHarness({ secondFactorRoles: ['super-admin'] });

  it('a super-admin without an authenticator acts as a developer (403 second_factor_required on /admin) until it enrols', async () => {
    const { call, login, firstStep, second, enrolled } = client(h);
    const other = await registerDeveloper(h.app);
    const gameOfOther = await call('POST', '/games', other.token, { DisplayName: 'Theirs' });
    assert.equal(gameOfOther.statusCode, 201);
    const first = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.equal(first.statusCode, 200);
    const token = first.json().Token as string;
    assertError(await call('GET', '/admin/developers', token), 403, 'second_factor_required');
    // Its game list is its own (a super-admin's would hold every game).
    const ids = (await call('GET', '/games', token)).json().map((g: { GameId: string }) => g.GameId);
    assert.ok(!ids.includes(gameOfOther.json().Game.GameId));
    // It can enrol; from then on the sign-in takes two steps and the rights are back.
    const admin = await enrolled(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.equal((await call('GET', '/admin/developers', admin.token)).statusCode, 200);
    const signedIn = await second({ MfaToken: await firstStep(ADMIN_EMAIL, ADMIN_PASSWORD), RecoveryCode: admin.recovery[0] });
    assert.equal(signedIn.statusCode, 200);
    assert.equal(signedIn.json().Role, 'super-admin');
    assert.equal((await call('GET', '/admin/developers', signedIn.json().Token)).statusCode, 200);
    // A developer is not affected.
    assert.equal((await call('GET', '/games', other.token)).statusCode, 200);
  });

  it('refuses a role other than super-admin in the setting', () => {
    assert.throws(() => readRegistryConfig({ REGISTRY_SECOND_FACTOR_ROLES: 'developer' }), /REGISTRY_SECOND_FACTOR_ROLES/);
    assert.deepEqual(readRegistryConfig({ REGISTRY_SECOND_FACTOR_ROLES: 'super-admin' }).secondFactorRoles, ['super-admin']);
    assert.deepEqual(readRegistryConfig({}).secondFactorRoles, []);
  });
});


describe('developer second factor: logging', () => {
  it('logs each factor change with the developer id, and never the secret, a code, a recovery code or a token', async () => {
    const logs = captureLogs();
    const h = await harness({ logLevel: 'trace' }, { logStream: logs.stream });
    try {
      const { call, second, firstStep, enrolled } = client(h);
      const dev = await enrolled();
      const mfa = await firstStep(dev.email);
      const code = codeOf(dev.secret);
      const signedIn = await second({ MfaToken: mfa, Code: code });
      assert.equal(signedIn.statusCode, 200);
      const removed = await call('POST', '/developers/me/mfa/totp/remove', signedIn.json().Token, { RecoveryCode: dev.recovery[0] });
      assert.equal(removed.statusCode, 200, removed.body);
      const text = logs.text();
      assert.match(text, /"event":"factor_added"/);
      assert.match(text, /"event":"factor_removed"/);
      // The code as a JSON string (six digits alone may occur inside a timestamp by chance).
      assert.ok(!text.includes(`"${code}"`), 'logged the code');
      for (const secret of [dev.secret, mfa, dev.token, signedIn.json().Token, removed.json().Token, ...dev.recovery]) {
        assert.ok(!text.includes(secret), `logged: ${secret.slice(0, 12)}…`);
      }
    } finally {
      await h.drop();
    }
  });
});
