// Developer passkeys (docs/registry.md, "Passkeys"; decision 0028) over HTTP with the kit's software authenticator
// doing the real ceremony: registration, list, removal, the passkey sign-in, the passkey as the second step after a
// password; challenges single use and bound to their purpose and developer; wrong origin, relying party, signature,
// counter; others' ids; bad input; tokens ended on each change; the super-admin requirement; the rate limits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { captureLogs, SoftAuthenticator } from '@platform/kit/testing';
import { readRegistryConfig } from '../src/config.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, harness, registerDeveloper, useHarness, type Harness } from './helpers.js';

const PASSWORD = 'correct horse battery';

function client(h: Harness) {
  const origin = h.config.webauthn.origins[0];
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: unknown, remoteAddress?: string) =>
    h.app.inject({ method, url, remoteAddress, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const options = async (url: string, token?: string, payload?: unknown) => {
    const r = await call('POST', url, token, payload);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().PublicKey;
  };
  const regOptions = (token: string) => options('/developers/me/passkeys/registration/options', token);
  const loginOptions = () => options('/developers/login/passkey/options');
  /** A developer with a passkey on `auth`: its fresh token and the passkey's view. */
  async function withPasskey(auth = new SoftAuthenticator(origin), dev?: { token: string; id: string; email: string }) {
    dev ??= await registerDeveloper(h.app, undefined, PASSWORD);
    const r = await call('POST', '/developers/me/passkeys/registration', dev.token, { Credential: auth.create(await regOptions(dev.token)), Name: 'Laptop' });
    assert.equal(r.statusCode, 201, r.body);
    return { ...dev, oldToken: dev.token, token: r.json().Token as string, passkey: r.json().Passkey, auth };
  }
  const firstStep = async (email: string) => {
    const body = assertError(await call('POST', '/developers/login', undefined, { Email: email, Password: PASSWORD }), 401, 'mfa_required');
    return body as { MfaToken: string; Factors: string[] };
  };
  return { origin, call, regOptions, loginOptions, withPasskey, firstStep, options };
}

describe('developer passkeys', () => {
  const h = useHarness();
  const c = () => client(h);

  it('defaults: the relying party is the public URL’s host (localhost for npm start and tests)', () => {
    assert.deepEqual(h.config.webauthn, { rpId: 'localhost', rpName: 'Game Platform (developers)', origins: ['http://localhost:3004'] });
  });

  it('registration: discoverable, user-verified options; stored, listed; the other tokens end; the next options exclude it', async () => {
    const { call, regOptions, origin } = c();
    const dev = await registerDeveloper(h.app, undefined, PASSWORD);
    const other = (await call('POST', '/developers/login', undefined, { Email: dev.email, Password: PASSWORD })).json().Token as string;
    const opts = await regOptions(dev.token);
    assert.equal(opts.rp.id, 'localhost');
    assert.equal(opts.authenticatorSelection.residentKey, 'required');
    assert.equal(opts.authenticatorSelection.userVerification, 'required');
    assert.equal(Buffer.from(opts.user.id, 'base64url').toString('hex'), dev.id.replace(/-/g, ''));
    assert.equal(opts.user.name, dev.email);
    const auth = new SoftAuthenticator(origin);
    const r = await call('POST', '/developers/me/passkeys/registration', dev.token, { Credential: auth.create(opts), Name: 'Laptop' });
    assert.equal(r.statusCode, 201, r.body);
    const { Passkey, Token } = r.json();
    assert.equal(Passkey.Name, 'Laptop');
    assert.deepEqual(Passkey.Transports, ['internal']);
    assert.equal(Passkey.LastUsedAt, null);
    assertError(await call('GET', '/games', dev.token), 401, 'unauthorized');
    assertError(await call('GET', '/games', other), 401, 'unauthorized');
    assert.deepEqual((await call('GET', '/developers/me/passkeys', Token)).json(), { Passkeys: [Passkey] });
    const again = await regOptions(Token);
    assert.deepEqual(again.excludeCredentials.map((x: { id: string }) => x.id), [auth.credentials[0].id.toString('base64url')]);
    // Default name.
    const second = await call('POST', '/developers/me/passkeys/registration', Token, { Credential: new SoftAuthenticator(origin).create(again) });
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.json().Passkey.Name, 'Passkey');
  });

  it('registration errors: reused, unknown or another developer’s challenge, wrong origin or relying party, no user verification, the same credential twice, the limit', async () => {
    const { call, regOptions, origin } = c();
    const dev = await registerDeveloper(h.app);
    const reg = (token: string, credential: unknown) => call('POST', '/developers/me/passkeys/registration', token, { Credential: credential });
    const auth = new SoftAuthenticator(origin);
    const opts = await regOptions(dev.token);
    const cred = auth.create(opts);
    const ok = await reg(dev.token, cred);
    assert.equal(ok.statusCode, 201, ok.body);
    let token = ok.json().Token as string;
    // The same answer again: its challenge is spent.
    assertError(await reg(token, cred), 401, 'invalid_passkey');
    // A challenge the registry never gave.
    assertError(await reg(token, new SoftAuthenticator(origin).create({ ...(await regOptions(token)), challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })), 401, 'invalid_passkey');
    // Another developer's challenge.
    const other = await registerDeveloper(h.app);
    assertError(await reg(token, new SoftAuthenticator(origin).create(await regOptions(other.token))), 401, 'invalid_passkey');
    // Wrong origin, wrong relying party, no user verification, a registration answer typed as a sign-in.
    assertError(await reg(token, new SoftAuthenticator('https://evil.example').create(await regOptions(token))), 401, 'invalid_passkey');
    assertError(await reg(token, new SoftAuthenticator(origin).create(await regOptions(token), { rpId: 'evil.example' })), 401, 'invalid_passkey');
    const noUv = new SoftAuthenticator(origin);
    noUv.userVerified = false;
    assertError(await reg(token, noUv.create(await regOptions(token))), 401, 'invalid_passkey');
    assertError(await reg(token, new SoftAuthenticator(origin).create(await regOptions(token), { type: 'webauthn.get' })), 401, 'invalid_passkey');
    // An answer whose id is not the one its attestation signed: refused.
    const again = auth.create(await regOptions(token));
    auth.credentials.pop();
    assertError(await reg(token, { ...again, id: cred.id, rawId: cred.id }), 401, 'invalid_passkey');
    // An authenticator's credential id registered already (here or by another developer): 409 passkey_exists.
    const sameId = Buffer.from(cred.id, 'base64url');
    assertError(await reg(token, new SoftAuthenticator(origin).create(await regOptions(token), { id: sameId })), 409, 'passkey_exists');
    assertError(await reg(other.token, new SoftAuthenticator(origin).create(await regOptions(other.token), { id: sameId })), 409, 'passkey_exists');
    // The limit: ten in all.
    for (let i = 1; i < 10; i++) {
      const r = await reg(token, new SoftAuthenticator(origin).create(await regOptions(token)));
      assert.equal(r.statusCode, 201, r.body);
      token = r.json().Token;
    }
    assertError(await call('POST', '/developers/me/passkeys/registration/options', token), 409, 'passkey_limit');
    assert.equal((await call('GET', '/developers/me/passkeys', token)).json().Passkeys.length, 10);
  });

  it('removal: the developer’s own (another developer’s, unknown and non-uuid ids: 404); a new token, the others end', async () => {
    const { call, withPasskey } = c();
    const a = await withPasskey();
    const b = await withPasskey();
    const del = (token: string, id: string) => call('DELETE', `/developers/me/passkeys/${id}`, token);
    assertError(await del(a.token, b.passkey.Id), 404, 'passkey_not_found');
    assertError(await del(a.token, '00000000-0000-4000-8000-000000000000'), 404, 'passkey_not_found');
    assertError(await del(a.token, 'not-a-uuid'), 404, 'passkey_not_found');
    assertError(await del(a.token, '%00'), 400, 'invalid_character');
    assertError(await del(a.token, encodeURIComponent(`../${b.passkey.Id}`)), 404, 'passkey_not_found');
    assertError(await call('DELETE', `/developers/me/passkeys/${a.passkey.Id}`), 401, 'unauthorized');
    const other = (await call('POST', '/developers/login/passkey', undefined, { Credential: a.auth.get(await c().loginOptions()) })).json().Token as string;
    const r = await del(a.token, a.passkey.Id.toUpperCase());
    assert.equal(r.statusCode, 200, r.body);
    const fresh = r.json().Token as string;
    assertError(await call('GET', '/games', a.token), 401, 'unauthorized');
    assertError(await call('GET', '/games', other), 401, 'unauthorized');
    assert.deepEqual((await call('GET', '/developers/me/passkeys', fresh)).json(), { Passkeys: [] });
    assertError(await del(fresh, a.passkey.Id), 404, 'passkey_not_found');
    // b's is untouched; with none left the password alone signs a in again.
    assert.equal((await call('GET', '/developers/me/passkeys', b.token)).json().Passkeys.length, 1);
    assert.equal((await call('POST', '/developers/login', undefined, { Email: a.email, Password: PASSWORD })).statusCode, 200);
  });

  it('a token signed in long ago neither adds a factor nor removes a passkey (403 recent_sign_in_required); a replacement token keeps its sign-in time', async () => {
    const { call, withPasskey } = c();
    const dev = await withPasskey();
    // A node whose clock runs 20 minutes behind signs in: a token still valid here, whose sign-in is 20 minutes old.
    const past = await h.build({}, { clock: () => Date.now() - 20 * 60 * 1000 });
    const old = (await past.inject({ method: 'POST', url: '/developers/login/passkey', payload: { Credential: dev.auth.get((await past.inject({ method: 'POST', url: '/developers/login/passkey/options' })).json().PublicKey) } })).json().Token as string;
    assert.equal((await call('GET', '/developers/me/passkeys', old)).statusCode, 200, 'the token is good for everything else');
    const refused = assertError(await call('POST', '/developers/me/passkeys/registration/options', old), 403, 'recent_sign_in_required');
    assert.equal(refused.MaxAgeSeconds, 900);
    assertError(await call('POST', '/developers/me/mfa/totp', old), 403, 'recent_sign_in_required');
    assertError(await call('DELETE', `/developers/me/passkeys/${dev.passkey.Id}`, old), 403, 'recent_sign_in_required');
    assert.equal((await call('GET', '/developers/me/passkeys', old)).json().Passkeys.length, 1, 'nothing removed');
    // The replacement token of a factor change keeps the sign-in's time (it does not make the session recent).
    const authTime = (t: string) => JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()).auth_time as number;
    const fresh = (await call('POST', '/developers/me/mfa/totp', dev.token)).statusCode;
    assert.equal(fresh, 201);
    const removed = await call('DELETE', `/developers/me/passkeys/${dev.passkey.Id}`, dev.token);
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(authTime(removed.json().Token), authTime(dev.token));
  });

  it('sign-in with a passkey: discoverable options; a token; the counter and last use kept', async () => {
    const { call, loginOptions, withPasskey } = c();
    const a = await withPasskey();
    const opts = await loginOptions();
    assert.equal(opts.rpId, 'localhost');
    assert.equal(opts.userVerification, 'required');
    assert.equal(opts.allowCredentials, undefined);
    const r = await call('POST', '/developers/login/passkey', undefined, { Credential: a.auth.get(opts) });
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json() as Record<string, unknown>;
    assert.deepEqual({ ...body, Token: typeof body.Token }, { Token: 'string', DeveloperId: a.id, Email: a.email, Role: 'developer' });
    assert.equal((await call('GET', '/games', r.json().Token)).statusCode, 200);
    const [row] = (await h.db.query<{ counter: string }>('SELECT counter FROM developer_passkeys WHERE developer_id = $1', [a.id])).rows;
    assert.equal(Number(row.counter), 1);
    assert.notEqual((await call('GET', '/developers/me/passkeys', r.json().Token)).json().Passkeys[0].LastUsedAt, null);
  });

  it('sign-in errors: replayed challenge, unknown challenge, wrong origin, relying party, user handle, signature, counter gone backwards, unknown credential, a second step’s challenge', async () => {
    const { call, loginOptions, withPasskey, origin, firstStep, options } = c();
    const a = await withPasskey();
    const login = (credential: unknown) => call('POST', '/developers/login/passkey', undefined, { Credential: credential });
    const good = a.auth.get(await loginOptions());
    assert.equal((await login(good)).statusCode, 200);
    assertError(await login(good), 401, 'invalid_passkey'); // replayed
    assertError(await login(a.auth.get({ rpId: 'localhost', challenge: 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' })), 401, 'invalid_passkey');
    assertError(await login(a.auth.get(await loginOptions(), { origin: 'https://evil.example' })), 401, 'invalid_passkey');
    assertError(await login(a.auth.get(await loginOptions(), { rpId: 'evil.example' })), 401, 'invalid_passkey');
    const b = await withPasskey();
    assertError(await login(a.auth.get(await loginOptions(), { userHandle: Buffer.from(b.id.replace(/-/g, ''), 'hex').toString('base64url') })), 401, 'invalid_passkey');
    const forged = a.auth.get(await loginOptions());
    assertError(await login({ ...forged, response: { ...forged.response, signature: b.auth.get(await loginOptions()).response.signature } }), 401, 'invalid_passkey');
    // A counter that went backwards (a cloned authenticator): refused, and the stored counter stays.
    const before = Number((await h.db.query<{ counter: string }>('SELECT counter FROM developer_passkeys WHERE developer_id = $1', [a.id])).rows[0].counter);
    assertError(await login(a.auth.get(await loginOptions(), { counter: 1 })), 401, 'invalid_passkey');
    assert.equal(Number((await h.db.query<{ counter: string }>('SELECT counter FROM developer_passkeys WHERE developer_id = $1', [a.id])).rows[0].counter), before);
    // A credential registered nowhere.
    const stranger = new SoftAuthenticator(origin);
    stranger.create(await c().regOptions((await registerDeveloper(h.app)).token));
    assertError(await login(stranger.get(await loginOptions())), 401, 'invalid_passkey');
    // A second step's challenge is not a sign-in's (and the other way round).
    const { MfaToken } = await firstStep(a.email);
    assertError(await login(a.auth.get(await options('/developers/login/mfa/passkey/options', undefined, { MfaToken }))), 401, 'invalid_passkey');
    assertError(await call('POST', '/developers/login/mfa', undefined, { MfaToken, Passkey: a.auth.get(await loginOptions()) }), 401, 'invalid_passkey');
  });

  it('the second step: a password answers mfa_required listing the factors; the passkey (or a code) finishes it', async () => {
    const { call, withPasskey, firstStep, options } = c();
    const a = await withPasskey();
    const first = await firstStep(a.email);
    assert.deepEqual(first.Factors, ['passkey']);
    const opts = await options('/developers/login/mfa/passkey/options', undefined, { MfaToken: first.MfaToken });
    assert.deepEqual(opts.allowCredentials.map((x: { id: string }) => x.id), [a.passkey && a.auth.credentials[0].id.toString('base64url')]);
    const r = await call('POST', '/developers/login/mfa', undefined, { MfaToken: first.MfaToken, Passkey: a.auth.get(opts) });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().DeveloperId, a.id);
    // Another developer's passkey, on this developer's second step: refused.
    const b = await withPasskey();
    const second = await firstStep(a.email);
    assertError(
      await call('POST', '/developers/login/mfa', undefined, { MfaToken: second.MfaToken, Passkey: b.auth.get(await options('/developers/login/mfa/passkey/options', undefined, { MfaToken: second.MfaToken })) }),
      401,
      'invalid_passkey',
    );
    // With an authenticator app too: both listed, and a code finishes it as before.
    const start = await call('POST', '/developers/me/mfa/totp', r.json().Token);
    const secret = start.json().Secret as string;
    const code = (offset: number) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offset * 30_000 });
    // The current step confirms; the next step (within the one-step drift, and newer) signs in, whenever a step
    // boundary falls between the two requests (a previous step's code could be two steps old by then).
    assert.equal((await call('POST', '/developers/me/mfa/totp/confirm', r.json().Token, { Code: code(0) })).statusCode, 200);
    const both = await firstStep(a.email);
    assert.deepEqual(both.Factors, ['totp', 'passkey']);
    assert.equal((await call('POST', '/developers/login/mfa', undefined, { MfaToken: both.MfaToken, Code: code(1) })).statusCode, 200);
    // One proof only; an MfaToken that is not one.
    const third = await firstStep(a.email);
    const both2 = { MfaToken: third.MfaToken, Code: '123456', Passkey: a.auth.get(await options('/developers/login/mfa/passkey/options', undefined, { MfaToken: third.MfaToken })) };
    assertError(await call('POST', '/developers/login/mfa', undefined, both2), 400, 'validation_failed');
    assertError(await call('POST', '/developers/login/mfa/passkey/options', undefined, { MfaToken: 'x'.repeat(40) }), 401, 'invalid_mfa_code');
  });

  it('a passkey is the super-admin’s second factor (REGISTRY_SECOND_FACTOR_ROLES)', async () => {
    const h2 = await harness({ secondFactorRoles: ['super-admin'] });
    try {
      const { call, withPasskey } = client(h2);
      const login = await call('POST', '/developers/login', undefined, { Email: ADMIN_EMAIL, Password: ADMIN_PASSWORD });
      const admin = { token: login.json().Token as string, id: login.json().DeveloperId as string, email: ADMIN_EMAIL };
      assertError(await call('GET', '/admin/developers', admin.token), 403, 'second_factor_required');
      const withKey = await withPasskey(undefined, admin);
      assert.equal((await call('GET', '/admin/developers', withKey.token)).statusCode, 200);
    } finally {
      await h2.drop();
    }
  });

  it('bad input: malformed JSON, wrong types, missing and unknown fields, oversized, NUL; no token', async () => {
    const { call, withPasskey, loginOptions } = c();
    const a = await withPasskey();
    const cred = a.auth.get(await loginOptions());
    const raw = (url: string, payload: string, token?: string) => h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) } });
    for (const url of ['/developers/login/passkey', '/developers/me/passkeys/registration', '/developers/login/mfa', '/developers/login/mfa/passkey/options']) {
      assertError(await raw(url, '{"Credential":', a.token), 400, 'malformed_json');
    }
    const bad = [
      {},
      { Credential: 'x' },
      { Credential: { ...cred, type: 'password' } },
      { Credential: { ...cred, response: { ...cred.response, signature: 'not base64url!' } } },
      { Credential: { ...cred, id: 'A'.repeat(2000) } },
      { Credential: { ...cred, extra: 1 } },
      { Credential: cred, Extra: 1 },
      { Credential: { ...cred, id: 'AA\u0000' } },
    ];
    for (const body of bad) {
      const r = await call('POST', '/developers/login/passkey', undefined, body);
      assert.equal(r.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${r.body}`);
      assert.ok(['validation_failed', 'invalid_character'].includes(r.json().Code), r.body);
    }
    assertError(await call('POST', '/developers/me/passkeys/registration', a.token, { Credential: cred }), 400, 'validation_failed');
    assertError(await call('POST', '/developers/me/passkeys/registration', a.token, { Credential: {}, Name: 'x'.repeat(65) }), 400, 'validation_failed');
    assertError(await call('POST', '/developers/me/passkeys/registration/options'), 401, 'unauthorized');
    assertError(await call('GET', '/developers/me/passkeys'), 401, 'unauthorized');
    assertError(await call('GET', '/developers/me/passkeys', 'not-a-token'), 401, 'unauthorized');
    assertError(await call('POST', '/developers/login/mfa/passkey/options', undefined, { MfaToken: 1 }), 400, 'validation_failed');
  });

  it('any node finishes a ceremony another started (the shared state store); a challenge is spent once across nodes', async () => {
    const other = await h.build();
    try {
      const { call, withPasskey, loginOptions } = c();
      const a = await withPasskey();
      const cred = a.auth.get(await loginOptions());
      const r = await other.inject({ method: 'POST', url: '/developers/login/passkey', payload: { Credential: cred } });
      assert.equal(r.statusCode, 200, r.body);
      assertError(await call('POST', '/developers/login/passkey', undefined, { Credential: cred }), 401, 'invalid_passkey');
    } finally {
      await other.close();
    }
  });
});

describe('developer passkeys: rate limits and settings', () => {
  it('the passkey sign-in shares the per-address sign-in limit; the second step’s options the second step’s', async () => {
    const h = await harness({ rateLoginPerIp: 3, rateLoginMfaPerIp: 2 });
    try {
      const { call } = client(h);
      const ip = '203.0.113.9';
      for (let i = 0; i < 3; i++) assert.equal((await call('POST', '/developers/login/passkey/options', undefined, undefined, ip)).statusCode, 200);
      assertError(await call('POST', '/developers/login/passkey', undefined, {}, ip), 429, 'rate_limited');
      for (let i = 0; i < 2; i++) assertError(await call('POST', '/developers/login/mfa/passkey/options', undefined, { MfaToken: 'x'.repeat(20) }, '203.0.113.10'), 401, 'invalid_mfa_code');
      assertError(await call('POST', '/developers/login/mfa/passkey/options', undefined, { MfaToken: 'x'.repeat(20) }, '203.0.113.10'), 429, 'rate_limited');
    } finally {
      await h.drop();
    }
  });

  it('logged: factor_added and factor_removed with factor passkey, a counter gone backwards as a warning; no token or credential in the log', async () => {
    const logs = captureLogs();
    const h = await harness({ logLevel: 'trace' }, { logStream: logs.stream });
    try {
      const { call, withPasskey, loginOptions } = client(h);
      const a = await withPasskey();
      assert.equal((await call('POST', '/developers/login/passkey', undefined, { Credential: a.auth.get(await loginOptions()) })).statusCode, 200);
      const cloned = a.auth.get(await loginOptions(), { counter: 1 });
      assertError(await call('POST', '/developers/login/passkey', undefined, { Credential: cloned }), 401, 'invalid_passkey');
      assert.equal((await call('DELETE', `/developers/me/passkeys/${a.passkey.Id}`, a.token)).statusCode, 200);
      const lines = logs.text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const of = (event: string) => lines.filter((l) => l.event === event && l.factor === 'passkey' && l.developerId === a.id);
      assert.equal(of('factor_added').length, 1);
      assert.equal(of('factor_removed').length, 1);
      const refused = of('login_failed');
      assert.equal(refused.length, 1);
      assert.equal(refused[0].reason, 'counter');
      assert.equal(refused[0].level, 40);
      const text = logs.text();
      assert.ok(!text.includes(a.token) && !text.includes(cloned.response.signature));
    } finally {
      await h.drop();
    }
  });

  it('without a relying party (a public URL on an IP address, no REGISTRY_WEBAUTHN_RP_ID): 503 passkeys_unavailable', async () => {
    const h = await harness({ webauthn: { rpId: '', rpName: 'x', origins: [] } });
    try {
      const { call } = client(h);
      const dev = await registerDeveloper(h.app);
      assertError(await call('POST', '/developers/login/passkey/options'), 503, 'passkeys_unavailable');
      assertError(await call('POST', '/developers/me/passkeys/registration/options', dev.token), 503, 'passkeys_unavailable');
      assert.deepEqual((await call('GET', '/developers/me/passkeys', dev.token)).json(), { Passkeys: [] });
    } finally {
      await h.drop();
    }
  });

  it('settings: named relying party and origins; an IP address or an origin off the relying party refused at start', () => {
    const base = { REGISTRY_ADMIN_EMAIL: 'a@example.test' };
    assert.deepEqual(readRegistryConfig({ ...base, REGISTRY_PUBLIC_URL: 'http://127.0.0.1:3004' }).webauthn.rpId, '');
    const named = readRegistryConfig({ ...base, REGISTRY_WEBAUTHN_RP_ID: 'example.com', REGISTRY_WEBAUTHN_ORIGINS: 'https://console.example.com,https://example.com', REGISTRY_WEBAUTHN_RP_NAME: 'Studio' }).webauthn;
    assert.deepEqual(named, { rpId: 'example.com', rpName: 'Studio', origins: ['https://console.example.com', 'https://example.com'] });
    assert.throws(() => readRegistryConfig({ ...base, REGISTRY_WEBAUTHN_RP_ID: '10.0.0.1' }), /REGISTRY_WEBAUTHN_RP_ID/);
    assert.throws(() => readRegistryConfig({ ...base, REGISTRY_WEBAUTHN_RP_ID: 'example.com', REGISTRY_WEBAUTHN_ORIGINS: 'https://evil.test' }), /REGISTRY_WEBAUTHN_ORIGINS/);
    assert.throws(() => readRegistryConfig({ ...base, REGISTRY_WEBAUTHN_RP_ID: 'example.com', REGISTRY_WEBAUTHN_ORIGINS: 'not an origin' }), /REGISTRY_WEBAUTHN_ORIGINS/);
  });
});
