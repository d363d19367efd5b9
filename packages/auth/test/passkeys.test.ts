// Passkeys (docs/auth.md, "Passkeys"; issue 30 item 3) over HTTP with a software authenticator doing the real
// ceremony (support/authenticator.ts): registration, list, removal, the passkey sign-in, the passkey as the second
// step of an email sign-in; challenges single use and bound to their purpose and account; wrong origin, relying
// party, signature, counter; others' ids; guests; bad input; the rate limit; sessions ended and audit entries.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { auditCount, bearer, guest, harness, register, type Harness, assertError } from './support/harness.js';
import { SoftAuthenticator } from '@platform/kit/testing';

const ORIGIN = 'https://play.example.test';
const RP = 'example.test';

describe('passkeys', () => {
  let h: Harness;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const regOptions = async (token: string) => {
    const r = await call('POST', '/account/passkeys/registration/options', token);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().public_key;
  };
  const loginOptions = async () => {
    const r = await call('POST', '/login/passkey/options');
    assert.equal(r.statusCode, 200, r.body);
    return r.json().public_key;
  };
  /** A registered account with a passkey on `auth`. */
  async function withPasskey(auth = new SoftAuthenticator(ORIGIN)) {
    const u = await register(h.app);
    const r = await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create(await regOptions(u.access_token)), name: 'Laptop' });
    assert.equal(r.statusCode, 201, r.body);
    return { ...u, auth, passkey: r.json() };
  }

  before(async () => {
    h = await harness({
      AUTH_RATE_GENERAL_PER_IP: '100000',
      AUTH_RATE_LOGIN_PER_IP: '100000',
      AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000',
      AUTH_WEBAUTHN_RP_ID: RP,
      AUTH_WEBAUTHN_ORIGINS: `${ORIGIN},https://example.test`,
      AUTH_SECOND_FACTOR_ROLES: 'moderator',
    });
  });
  after(() => h.close());

  it('registration: options for a discoverable, user-verified credential; stored; listed; other sessions end; audited', async () => {
    const u = await register(h.app);
    const other = (await call('POST', '/login', undefined, { email: u.email, password: u.password })).json().access_token as string;
    const options = await regOptions(u.access_token);
    assert.equal(options.rp.id, RP);
    assert.equal(options.authenticatorSelection.residentKey, 'required');
    assert.equal(options.authenticatorSelection.userVerification, 'required');
    assert.equal(Buffer.from(options.user.id, 'base64url').toString('hex'), u.account_id.replace(/-/g, ''));
    const auth = new SoftAuthenticator(ORIGIN);
    const r = await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create(options), name: 'Laptop' });
    assert.equal(r.statusCode, 201, r.body);
    const view = r.json();
    assert.equal(view.name, 'Laptop');
    assert.deepEqual(view.transports, ['internal']);
    assert.equal(view.last_used_at, null);
    const list = (await call('GET', '/account/passkeys', u.access_token)).json();
    assert.deepEqual(list.passkeys, [view]);
    assert.equal((await call('GET', '/account/mfa', u.access_token)).json().passkeys, 1);
    // The other session ended; this one lives on.
    assert.equal((await call('GET', '/account', other)).statusCode, 401);
    assert.equal((await call('GET', '/account', u.access_token)).statusCode, 200);
    assert.equal(await auditCount(h, u.account_id, 'factor_added'), 1);
    // The next options exclude the registered credential; the same credential twice is refused.
    const again = await regOptions(u.access_token);
    assert.deepEqual(again.excludeCredentials.map((c: { id: string }) => c.id), [auth.credentials[0].id.toString('base64url')]);
  });

  it('registration errors: reused, unknown or foreign challenge, wrong origin or relying party, no user verification, guests, the limit, the same credential twice', async () => {
    const u = await register(h.app);
    const auth = new SoftAuthenticator(ORIGIN);
    const options = await regOptions(u.access_token);
    const cred = auth.create(options);
    assert.equal((await call('POST', '/account/passkeys/registration', u.access_token, { credential: cred })).statusCode, 201);
    // The same answer again: its challenge is spent.
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: cred }), 401, 'invalid_passkey');
    // A challenge never handed out.
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create(options, { challenge: 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldY' }) }), 401, 'invalid_passkey');
    // Another account's challenge.
    const v = await register(h.app);
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create(await regOptions(v.access_token)) }), 401, 'invalid_passkey');
    // A login challenge is not a registration one.
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create({ ...(await regOptions(u.access_token)), challenge: (await loginOptions()).challenge }) }), 401, 'invalid_passkey');
    // Wrong origin, wrong relying party, webauthn.get as a create, no user verification: each spends its challenge.
    for (const over of [{ origin: 'https://evil.test' }, { rpId: 'evil.test' }, { type: 'webauthn.get' }]) {
      const o = await regOptions(u.access_token);
      assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: auth.create(o, over) }), 401, 'invalid_passkey');
      assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: new SoftAuthenticator(ORIGIN).create(o) }), 401, 'invalid_passkey');
    }
    const lazy = new SoftAuthenticator(ORIGIN);
    lazy.userVerified = false;
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: lazy.create(await regOptions(u.access_token)) }), 401, 'invalid_passkey');
    // The same authenticator credential on a second account: 409.
    const dup = auth.create(await regOptions(v.access_token));
    const first = await call('POST', '/account/passkeys/registration', v.access_token, { credential: dup });
    assert.equal(first.statusCode, 201, first.body);
    // An answer whose id is not the credential its attestation carries.
    const swapped = auth.create(await regOptions(u.access_token));
    swapped.id = swapped.rawId = Buffer.alloc(32, 9).toString('base64url');
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: swapped }), 401, 'invalid_passkey');
    // Guests may not (403 guest_restricted naming what upgrading unlocks).
    const g = await guest(h.app);
    const refused = assertError(await call('POST', '/account/passkeys/registration/options', g.access_token), 403, 'guest_restricted');
    assert.equal((refused.details ?? refused).feature, 'passkeys');
    // Without a token.
    assertError(await call('POST', '/account/passkeys/registration/options'), 401, 'unauthenticated');
    assertError(await call('GET', '/account/passkeys'), 401, 'unauthenticated');
    // The limit: ten per account.
    const many = await register(h.app);
    for (let i = 0; i < 10; i++) {
      const r = await call('POST', '/account/passkeys/registration', many.access_token, { credential: auth.create(await regOptions(many.access_token)) });
      assert.equal(r.statusCode, 201, r.body);
    }
    assertError(await call('POST', '/account/passkeys/registration/options', many.access_token), 409, 'passkey_limit');
  });

  it('registration: the same credential id on two accounts is refused with passkey_exists', async () => {
    const a = await withPasskey();
    const b = await register(h.app);
    // A second create on the same soft authenticator makes a new key; make it reuse the first credential's id and key
    // by rewriting its stored attestation is not possible, so the database constraint is checked directly instead.
    const row = (await h.tdb.db.query('SELECT credential_id FROM passkeys WHERE account_id = $1', [a.account_id])).rows[0];
    const auth2 = new SoftAuthenticator(ORIGIN);
    const o = await regOptions(b.access_token);
    const cred = auth2.create(o);
    await h.tdb.db.query('UPDATE passkeys SET credential_id = $2 WHERE account_id = $1', [a.account_id, cred.id]);
    assertError(await call('POST', '/account/passkeys/registration', b.access_token, { credential: cred }), 409, 'passkey_exists');
    await h.tdb.db.query('UPDATE passkeys SET credential_id = $2 WHERE account_id = $1', [a.account_id, row.credential_id]);
  });

  it('sign-in with a passkey: discoverable options name no account; tokens as any sign-in; single-use challenge; counter and last use', async () => {
    const u = await withPasskey();
    const options = await loginOptions();
    assert.equal(options.rpId, RP);
    assert.equal(options.userVerification, 'required');
    assert.equal(options.allowCredentials, undefined);
    const assertion = u.auth.get(options);
    const r = await call('POST', '/login/passkey', undefined, { credential: assertion, device: { fingerprint: 'passkey-device-1', platform: 'web' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().account_id, u.account_id);
    assert.equal(r.json().token_type, 'Bearer');
    assert.equal((await call('GET', '/account', r.json().access_token)).statusCode, 200);
    const sessions = (await call('GET', '/account/sessions', r.json().access_token)).json().sessions;
    assert.ok(sessions.some((s: { auth_method: string; current: boolean }) => s.current && s.auth_method === 'passkey'));
    const refreshed = await call('POST', '/refresh', undefined, { refresh_token: r.json().refresh_token });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    // The same assertion again: the challenge is spent.
    assertError(await call('POST', '/login/passkey', undefined, { credential: assertion }), 401, 'invalid_passkey');
    assert.notEqual((await call('GET', '/account/passkeys', u.access_token)).json().passkeys[0].last_used_at, null);
    assert.ok((await auditCount(h, u.account_id, 'login')) >= 2);
  });

  it('sign-in errors: unknown credential, wrong origin, relying party, signature, user handle, no user verification, a counter gone backwards, banned and locked accounts', async () => {
    const u = await withPasskey();
    assertError(await call('POST', '/login/passkey', undefined, { credential: new SoftAuthenticator(ORIGIN).get(await loginOptions(), { cred: new SoftAuthenticator(ORIGIN).credentials[0] ?? { ...u.auth.credentials[0], id: Buffer.alloc(32, 7) } }) }), 401, 'invalid_passkey');
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions(), { origin: 'https://evil.test' }) }), 401, 'invalid_passkey');
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions(), { rpId: 'evil.test' }) }), 401, 'invalid_passkey');
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions(), { userHandle: Buffer.alloc(16, 1).toString('base64url') }) }), 401, 'invalid_passkey');
    // Failed sign-ins are audited with their reason.
    assert.ok(
      (await h.tdb.db.query(`SELECT 1 FROM audit_log WHERE account_id = $1 AND event = 'login' AND detail->>'reason' = 'unknown_passkey'`, [u.account_id])).rows.length === 0,
      'a passkey naming another user handle is audited without naming an account it does not prove',
    );
    const forged = u.auth.get(await loginOptions());
    forged.response.signature = Buffer.from(forged.response.signature, 'base64url').fill(1, 10, 12).toString('base64url');
    assertError(await call('POST', '/login/passkey', undefined, { credential: forged }), 401, 'invalid_passkey');
    const reasons = async () =>
      (await h.tdb.db.query<{ r: string }>(`SELECT detail->>'reason' AS r FROM audit_log WHERE account_id = $1 AND event = 'login' AND detail->>'outcome' = 'failure'`, [u.account_id])).rows.map((x) => x.r);
    assert.ok((await reasons()).includes('bad_assertion'), JSON.stringify(await reasons()));
    u.auth.userVerified = false;
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions()) }), 401, 'invalid_passkey');
    u.auth.userVerified = true;
    // A good sign-in moves the counter; one below it is a cloned authenticator (its own audit event).
    assert.equal((await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions(), { counter: 50 }) })).statusCode, 200);
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions(), { counter: 10 }) }), 401, 'invalid_passkey');
    assert.equal(await auditCount(h, u.account_id, 'passkey_rejected'), 1);
    // An options challenge of a second step is not a sign-in's.
    const mfa = assertError(await call('POST', '/login', undefined, { email: u.email, password: u.password }), 401, 'mfa_required');
    const mfaOptions = (await call('POST', '/login/mfa/passkey/options', undefined, { mfa_token: (mfa.details ?? mfa).mfa_token })).json().public_key;
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(mfaOptions) }), 401, 'invalid_passkey');
    // Banned and locked accounts: refused after the passkey checked out.
    await h.tdb.db.query(`UPDATE accounts SET status = 'locked' WHERE id = $1`, [u.account_id]);
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions(), { counter: 60 }) }), 403, 'account_disabled');
    await h.tdb.db.query(`UPDATE accounts SET status = 'active' WHERE id = $1`, [u.account_id]);
  });

  it('as the second step: mfa_required names the factors; a passkey assertion of the account finishes /login/mfa; TOTP still works', async () => {
    const u = await withPasskey();
    const first = assertError(await call('POST', '/login', undefined, { email: u.email, password: u.password }), 401, 'mfa_required');
    const details = first.details ?? first;
    assert.deepEqual(details.factors, ['passkey']);
    const token = details.mfa_token as string;
    const options = (await call('POST', '/login/mfa/passkey/options', undefined, { mfa_token: token })).json().public_key;
    assert.deepEqual(options.allowCredentials.map((c: { id: string }) => c.id), [u.auth.credentials[0].id.toString('base64url')]);
    // Another account's passkey does not finish this account's sign-in.
    const v = await withPasskey();
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, passkey: v.auth.get(options) }), 401, 'invalid_passkey');
    const options2 = (await call('POST', '/login/mfa/passkey/options', undefined, { mfa_token: token })).json().public_key;
    const done = await call('POST', '/login/mfa', undefined, { mfa_token: token, passkey: u.auth.get(options2) });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().account_id, u.account_id);
    // Bad input: two proofs, a tampered token.
    assertError(await call('POST', '/login/mfa', undefined, { mfa_token: token, code: '123456', passkey: u.auth.get(options2) }), 400, 'validation_failed');
    assertError(await call('POST', '/login/mfa/passkey/options', undefined, { mfa_token: token.slice(0, -4) + 'AAAA' }), 401, 'invalid_mfa_code');
    // With TOTP on too: both factors are offered; a TOTP code still finishes.
    const start = (await call('POST', '/account/mfa/totp', u.access_token)).json();
    const totp = new TOTP({ secret: Secret.fromBase32(start.secret), digits: 6, period: 30, algorithm: 'SHA1' });
    assert.equal((await call('POST', '/account/mfa/totp/confirm', u.access_token, { code: totp.generate() })).statusCode, 200);
    const again = assertError(await call('POST', '/login', undefined, { email: u.email, password: u.password }), 401, 'mfa_required');
    assert.deepEqual((again.details ?? again).factors, ['totp', 'passkey']);
    const viaCode = await call('POST', '/login/mfa', undefined, { mfa_token: (again.details ?? again).mfa_token, code: totp.generate({ timestamp: Date.now() + 30_000 }) });
    assert.equal(viaCode.statusCode, 200, viaCode.body);
  });

  it('AUTH_SECOND_FACTOR_ROLES: a passkey counts as the authenticator the guarded roles need', async () => {
    const u = await withPasskey();
    await h.tdb.db.query(`UPDATE accounts SET roles = '{player,moderator}' WHERE id = $1`, [u.account_id]);
    const r = await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions()) });
    assert.equal(r.statusCode, 200, r.body);
    const payload = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(r.json().access_token) });
    assert.equal(payload.statusCode, 200);
    assert.ok(payload.json().roles.includes('moderator'), payload.body);
  });

  it('removal: own passkey only (others’ ids, unknown, not a uuid: 404); other sessions end; audited; the passkey no longer signs in', async () => {
    const u = await withPasskey();
    const v = await withPasskey();
    const other = (await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions()) })).json().access_token as string;
    assertError(await call('DELETE', `/account/passkeys/${v.passkey.id}`, u.access_token), 404, 'passkey_not_found');
    assertError(await call('DELETE', '/account/passkeys/00000000-0000-0000-0000-000000000000', u.access_token), 404, 'passkey_not_found');
    assertError(await call('DELETE', '/account/passkeys/not-a-uuid', u.access_token), 404, 'passkey_not_found');
    assertError(await call('DELETE', '/account/passkeys/not-a-uuid%00', u.access_token), 400, 'invalid_character');
    assertError(await call('DELETE', `/account/passkeys/${'a'.repeat(300)}`, u.access_token), 400, 'bad_request');
    assertError(await call('DELETE', `/account/passkeys/${u.passkey.id}`), 401, 'unauthenticated');
    assert.equal((await call('GET', '/account/passkeys', v.access_token)).json().passkeys.length, 1);
    const r = await call('DELETE', `/account/passkeys/${u.passkey.id}`, u.access_token);
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(await auditCount(h, u.account_id, 'factor_removed'), 1);
    assert.equal((await call('GET', '/account', other)).statusCode, 401);
    assert.deepEqual((await call('GET', '/account/passkeys', u.access_token)).json().passkeys, []);
    assertError(await call('DELETE', `/account/passkeys/${u.passkey.id}`, u.access_token), 404, 'passkey_not_found');
    assertError(await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions()) }), 401, 'invalid_passkey');
    // No passkey and no authenticator app: the password alone signs in again.
    assert.equal((await call('POST', '/login', undefined, { email: u.email, password: u.password })).statusCode, 200);
  });

  it('a session that signed in long ago neither starts adding a passkey nor removes one (403 recent_sign_in_required); a fresh sign-in does', async () => {
    const u = await withPasskey();
    const age = () => h.tdb.db.query(`UPDATE sessions SET created_at = now() - interval '16 minutes' WHERE account_id = $1`, [u.account_id]);
    await age();
    // The access token is still good for everything else.
    assert.equal((await call('GET', '/account/passkeys', u.access_token)).statusCode, 200);
    const refused = assertError(await call('POST', '/account/passkeys/registration/options', u.access_token), 403, 'recent_sign_in_required');
    assert.equal(refused.max_age_seconds, 900);
    assertError(await call('DELETE', `/account/passkeys/${u.passkey.id}`, u.access_token), 403, 'recent_sign_in_required');
    assert.equal((await call('GET', '/account/passkeys', u.access_token)).json().passkeys.length, 1, 'nothing removed');
    // Signing in again (here with the passkey itself) opens a session that may.
    const signedIn = (await call('POST', '/login/passkey', undefined, { credential: u.auth.get(await loginOptions()) })).json();
    const fresh = signedIn.access_token as string;
    assert.equal((await call('POST', '/account/passkeys/registration/options', fresh)).statusCode, 200);
    assert.equal((await call('DELETE', `/account/passkeys/${u.passkey.id}`, fresh)).statusCode, 204);
    // A refresh keeps the session's sign-in time: it does not make an old session recent.
    await age();
    const refreshed = await call('POST', '/refresh', undefined, { refresh_token: signedIn.refresh_token });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assertError(await call('POST', '/account/passkeys/registration/options', refreshed.json().access_token), 403, 'recent_sign_in_required');
  });

  it('bad input: malformed JSON, wrong types, unknown fields, NUL, oversized, wrong content type', async () => {
    const u = await withPasskey();
    const good = u.auth.get(await loginOptions());
    const raw = (payload: string, type = 'application/json') => h.app.inject({ method: 'POST', url: '/login/passkey', headers: { 'content-type': type }, payload });
    assertError(await raw('{"credential":'), 400, 'malformed_json');
    assertError(await raw('x', 'application/xml'), 415, 'unsupported_media_type');
    assertError(await call('POST', '/login/passkey', undefined, { credential: { ...good, type: 'password' } }), 400, 'validation_failed');
    assertError(await call('POST', '/login/passkey', undefined, { credential: { ...good, extra: 1 } }), 400, 'validation_failed');
    assertError(await call('POST', '/login/passkey', undefined, { credential: good, extra: 1 }), 400, 'validation_failed');
    assertError(await call('POST', '/login/passkey', undefined, { credential: { ...good, id: 12 } }), 400, 'validation_failed');
    assertError(await call('POST', '/login/passkey', undefined, { credential: { ...good, response: { ...good.response, signature: 'ab\u0000cd' } } }), 400, 'invalid_character');
    assertError(await call('POST', '/login/passkey', undefined, { credential: { ...good, response: { ...good.response, clientDataJSON: 'A'.repeat(5000) } } }), 400, 'validation_failed');
    assertError(await raw(JSON.stringify({ credential: good, pad: 'x'.repeat(70_000) })), 413, 'payload_too_large');
    assertError(await call('POST', '/login/passkey', undefined, {}), 400, 'validation_failed');
    // clientDataJSON that is not JSON, or names no challenge: refused as a failed ceremony.
    assertError(await call('POST', '/login/passkey', undefined, { credential: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('nope').toString('base64url') } } }), 401, 'invalid_passkey');
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: { ...good } }), 400, 'validation_failed');
    assertError(await call('POST', '/account/passkeys/registration', u.access_token, { credential: u.auth.create(await regOptions(u.access_token)), name: '' }), 400, 'validation_failed');
  });

  it('any node finishes a ceremony another started (the shared state store); a challenge is spent once across nodes', async () => {
    const u = await withPasskey();
    const b = await h.node({ AUTH_WEBAUTHN_RP_ID: RP, AUTH_WEBAUTHN_ORIGINS: ORIGIN });
    try {
      const assertion = u.auth.get(await loginOptions());
      const [x, y] = await Promise.all([
        b.inject({ method: 'POST', url: '/login/passkey', payload: { credential: assertion } }),
        h.app.inject({ method: 'POST', url: '/login/passkey', payload: { credential: assertion } }),
      ]);
      assert.deepEqual([x.statusCode, y.statusCode].sort(), [200, 401]);
    } finally {
      await b.close();
    }
  });
});

describe('passkeys: rate limits and settings', () => {
  it('the sign-in routes share the per-address sign-in limit', async () => {
    const h = await harness({ AUTH_RATE_LOGIN_PER_IP: '3', AUTH_WEBAUTHN_RP_ID: RP, AUTH_WEBAUTHN_ORIGINS: ORIGIN });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await h.app.inject({ method: 'POST', url: '/login/passkey/options' })).statusCode);
      assert.deepEqual(codes, [200, 200, 200, 429]);
      const b = 'AAAA';
      const credential = { id: b, rawId: b, type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: b, authenticatorData: b, signature: b } };
      assertError(await h.app.inject({ method: 'POST', url: '/login/passkey', payload: { credential } }), 429, 'rate_limited');
    } finally {
      await h.close();
    }
  });

  it('without a relying party (a public URL on an IP address and no AUTH_WEBAUTHN_RP_ID): 503 passkeys_unavailable', async () => {
    const h = await harness({ AUTH_ISSUER: 'https://127.0.0.1:8443' });
    try {
      assertError(await h.app.inject({ method: 'POST', url: '/login/passkey/options' }), 503, 'passkeys_unavailable');
      const u = await register(h.app);
      assertError(await h.app.inject({ method: 'POST', url: '/account/passkeys/registration/options', headers: bearer(u.access_token) }), 503, 'passkeys_unavailable');
    } finally {
      await h.close();
    }
  });

  it('settings: an IP address as the relying party and an origin off it are refused at start', async () => {
    await assert.rejects(harness({ AUTH_WEBAUTHN_RP_ID: '10.0.0.1' }), /AUTH_WEBAUTHN_RP_ID/);
    await assert.rejects(harness({ AUTH_WEBAUTHN_RP_ID: RP, AUTH_WEBAUTHN_ORIGINS: 'https://other.test' }), /AUTH_WEBAUTHN_ORIGINS/);
  });
});
