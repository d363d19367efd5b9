// Developer accounts: register, login, tokens, admin listing, logging hygiene.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { captureLogs } from '@platform/kit/testing';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, createGame, harness, useHarness, loginAdmin, registerDeveloper, uniqueEmail } from './helpers.js';

describe('developer accounts', () => {
  const h = useHarness();

  it('registers with 201 and an EdDSA token for the registry audience', async () => {
    const email = uniqueEmail('Mixed.Case');
    const r = await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: email, Password: 'long enough pw', DisplayName: 'Ann' } });
    assert.equal(r.statusCode, 201);
    const body = r.json();
    assert.deepEqual(Object.keys(body).sort(), ['DeveloperId', 'Email', 'Role', 'Token']);
    assert.equal(body.Email, email.toLowerCase());
    assert.equal(body.Role, 'developer');
    assert.match(body.DeveloperId, /^[0-9a-f-]{36}$/);
    const [header, payload] = body.Token.split('.').slice(0, 2).map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    assert.equal(header.alg, 'EdDSA');
    assert.equal(payload.iss, 'platform-registry');
    assert.equal(payload.aud, 'platform-registry');
    assert.equal(payload.sub, body.DeveloperId);
    assert.equal(payload.role, 'developer');
    assert.equal(payload.exp - payload.iat, 12 * 3600);
    // The token works.
    assert.equal((await h.app.inject({ url: '/games', headers: bearer(body.Token) })).statusCode, 200);
  });

  it('refuses a duplicate email whatever its case with 409 email_taken', async () => {
    const email = uniqueEmail();
    await registerDeveloper(h.app, email);
    const r = await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: email.toUpperCase(), Password: 'another password', DisplayName: 'B' } });
    assertError(r, 409, 'email_taken');
  });

  it('lets exactly one of two concurrent registrations of an email win', async () => {
    const email = uniqueEmail('race');
    const send = () => h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: email, Password: 'long enough pw', DisplayName: 'R' } });
    const codes = (await Promise.all([send(), send()])).map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [201, 409]);
  });

  it('enforces the password length rules with weak_password', async () => {
    for (const pw of ['short', 'x'.repeat(9), 'x'.repeat(257)]) {
      const r = await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: uniqueEmail(), Password: pw, DisplayName: 'A' } });
      assertError(r, 400, 'weak_password');
    }
    const ok = await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: uniqueEmail(), Password: 'x'.repeat(256), DisplayName: 'A' } });
    assert.equal(ok.statusCode, 201);
  });

  it('validates the registration body', async () => {
    const cases: [unknown, string][] = [
      [{ Email: 'not-an-email', Password: 'long enough pw', DisplayName: 'A' }, 'Email'],
      [{ Email: uniqueEmail(), Password: 'long enough pw', DisplayName: '' }, 'DisplayName'],
      [{ Email: uniqueEmail(), Password: 'long enough pw', DisplayName: 'x'.repeat(101) }, 'DisplayName'],
      [{ Email: uniqueEmail(), Password: 'long enough pw', DisplayName: '   ' }, 'DisplayName'],
      [{ Email: uniqueEmail(), Password: 1234567890123, DisplayName: 'A' }, 'Password'],
      [{ Email: uniqueEmail(), DisplayName: 'A' }, 'Password'],
      [{ Email: uniqueEmail(), Password: 'long enough pw', DisplayName: 'A', Role: 'super-admin' }, 'Role'],
    ];
    for (const [payload, field] of cases) {
      const r = await h.app.inject({ method: 'POST', url: '/developers/register', payload: payload as object });
      const body = assertError(r, 400, 'validation_failed');
      assert.equal(body.Field, field);
    }
    assertError(
      await h.app.inject({ method: 'POST', url: '/developers/register', headers: { 'content-type': 'application/json' }, payload: '{"Email":' }),
      400,
      'malformed_json',
    );
    assertError(await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: 'a@b.c', Password: 'x'.repeat(70_000), DisplayName: 'A' } }), 413, 'payload_too_large');
    assertError(await h.app.inject({ method: 'POST', url: '/developers/register', payload: [1, 2] as never }), 400, 'validation_failed');
  });

  it('logs in with any case of the email; wrong password and unknown email look the same', async () => {
    const email = uniqueEmail();
    const dev = await registerDeveloper(h.app, email, 'the right password');
    const ok = await h.app.inject({ method: 'POST', url: '/developers/login', payload: { Email: email.toUpperCase(), Password: 'the right password' } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().DeveloperId, dev.id);
    assert.equal(ok.json().Role, 'developer');
    const wrong = assertError(await h.app.inject({ method: 'POST', url: '/developers/login', payload: { Email: email, Password: 'the wrong password' } }), 401, 'invalid_credentials');
    const unknown = assertError(await h.app.inject({ method: 'POST', url: '/developers/login', payload: { Email: uniqueEmail(), Password: 'whatever pw' } }), 401, 'invalid_credentials');
    assert.equal(wrong.Message, unknown.Message);
    assertError(await h.app.inject({ method: 'POST', url: '/developers/login', payload: { Email: email } }), 400, 'validation_failed');
    assertError(await h.app.inject({ method: 'POST', url: '/developers/login', payload: { Email: email, Password: 'x', Extra: 1 } }), 400, 'validation_failed');
  });

  it('answers 401 unauthorized to missing, malformed, forged and expired bearer tokens', async () => {
    const dev = await registerDeveloper(h.app);
    const forgedKey = generateKeyPairSync('ed25519').privateKey;
    const forged = await new SignJWT({ role: 'super-admin' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('platform-registry')
      .setAudience('platform-registry')
      .setSubject(dev.id)
      .setExpirationTime('1h')
      .sign(forgedKey);
    const [h64, p64] = dev.token.split('.');
    const unsigned = `${h64}.${p64}.`;
    const noneAlg = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p64}.`;
    // A node whose clock runs 13 hours behind mints a token that is already expired here.
    const past = await h.build({}, { clock: () => Date.now() - 13 * 3600 * 1000 });
    const expired = (await past.inject({ method: 'POST', url: '/developers/login', payload: { Email: dev.email, Password: 'correct horse battery' } })).json().Token;
    for (const headers of [{}, { authorization: dev.token }, { authorization: 'Basic abc' }, bearer('garbage'), bearer(forged), bearer(unsigned), bearer(noneAlg), bearer(expired)]) {
      const r = await h.app.inject({ url: '/games', headers });
      assertError(r, 401, 'unauthorized');
      assert.match(String(r.headers['www-authenticate']), /^Bearer/);
    }
  });

  it('lists developers to the super-admin only', async () => {
    const dev = await registerDeveloper(h.app);
    assertError(await h.app.inject({ url: '/admin/developers' }), 401, 'unauthorized');
    assertError(await h.app.inject({ url: '/admin/developers', headers: bearer(dev.token) }), 403, 'forbidden');
    const admin = await loginAdmin(h.app);
    assert.equal(admin.email, ADMIN_EMAIL);
    const r = await h.app.inject({ url: '/admin/developers', headers: bearer(admin.token) });
    assert.equal(r.statusCode, 200);
    const list = r.json();
    const me = list.find((d: any) => d.Id === dev.id);
    assert.deepEqual(Object.keys(me).sort(), ['CreatedAt', 'DisplayName', 'Email', 'Id', 'Role']);
    assert.equal(new Date(me.CreatedAt).toISOString(), me.CreatedAt);
    assert.equal(list.filter((d: any) => d.Role === 'super-admin').length, 1);
    assert.ok(!JSON.stringify(list).includes('argon2'));
  });

  it('serves readiness and an OpenAPI document with the bearer scheme', async () => {
    const ready = await h.app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json().Checks, { database: 'ok', state: 'ok' });
    assert.deepEqual((await h.app.inject({ url: '/healthz' })).json(), { Status: 'ok' });
    const spec = (await h.app.inject({ url: '/openapi.json' })).json();
    assert.ok(spec.components.securitySchemes.bearerAuth);
    assert.ok(spec.paths['/games/{gameId}/modules'].post);
    assert.ok(spec.paths['/games/register-user'].post);
    assert.ok(spec.components.securitySchemes.gameKey && spec.components.securitySchemes.gameSecret);
  });
});

describe('logging', () => {
  it('never writes the password, the token or the API secret to the log', async () => {
    const logs = captureLogs();
    const h = await harness({ logLevel: 'trace' }, { logStream: logs.stream });
    try {
      const password = 'a very secret password 42';
      const email = uniqueEmail();
      const reg = await registerDeveloper(h.app, email, password);
      const login = await h.app.inject({ method: 'POST', url: '/developers/login', payload: { Email: email, Password: password } });
      const token = login.json().Token;
      const game = await createGame(h.app, token);
      const regen = await h.app.inject({ method: 'POST', url: `/games/${game.gameId}/regenerate-key`, headers: bearer(token) });
      const secret = regen.json().ApiSecret;
      await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: game.apiKey, ApiSecret: secret } });
      const text = logs.text();
      assert.ok(text.includes('/developers/login'), 'requests are logged');
      for (const s of [password, reg.token, token, game.apiSecret, secret, token.split('.')[2]]) assert.ok(!text.includes(s), 'a secret leaked into the log');
    } finally {
      await h.drop();
    }
  });
});

describe('sign-in limits (shared state store)', () => {
  const h = useHarness({ rateRegisterPerIp: 20, rateLoginPerIp: 100, rateLoginPerIpEmail: 10 });
  const login = (Password: string, remoteAddress: string, Email = ADMIN_EMAIL) =>
    h.app.inject({ method: 'POST', url: '/developers/login', remoteAddress, payload: { Email, Password } });

  it('refuses password guessing from one address with 429 and Retry-After; the owner signs in from another', async () => {
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(`wrong-password-${i}`, '203.0.113.7')).statusCode);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    assert.deepEqual(statuses.slice(10), [429, 429]);
    const refused = await login(ADMIN_PASSWORD, '203.0.113.7', ADMIN_EMAIL.toUpperCase());
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    const owner = await login(ADMIN_PASSWORD, '198.51.100.20');
    assert.equal(owner.statusCode, 200, owner.body);
  });

  it('limits sign-ups per address', async () => {
    const statuses = [];
    for (let i = 0; i < 21; i++) {
      const r = await h.app.inject({
        method: 'POST',
        url: '/developers/register',
        remoteAddress: '203.0.113.9',
        payload: { Email: uniqueEmail('flood'), Password: 'short' },
      });
      statuses.push(r.statusCode);
    }
    assert.deepEqual(statuses.slice(0, 20), Array(20).fill(400));
    assert.equal(statuses[20], 429);
  });
});
