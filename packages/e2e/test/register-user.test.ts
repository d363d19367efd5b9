// POST /games/register-user across the registry and a real auth service (HTTPS, self-signed CA).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readRegistryConfig } from '@platform/registry';
import { ADMIN_EMAIL, ADMIN_PASSWORD, client, freePort, startPlatform, type Platform } from '../src/index.js';
// The auth package's real OIDC provider harness (oidc-provider) stands in for the external store.
import { startOidcProvider, type TestOidcProvider } from '../../auth/test/support/oidc-provider.js';

const PASSWORD = 'correct horse battery staple 42';
let n = 0;
const email = () => `player${++n}.${randomBytes(3).toString('hex')}@e2e.test`;

describe('POST /games/register-user', () => {
  let p: Platform;
  let game: { headers: Record<string, string>; gameId: string };
  let devToken: string;
  const register = (body: unknown, headers = game.headers) => p.registry.call('POST', '/games/register-user', { body, headers });

  let store: TestOidcProvider;
  const ticketFor = (sub: string, nonce?: string) => store.issueIdToken({ clientId: 'store-client', sub, nonce });

  before(async () => {
    store = await startOidcProvider({ alg: 'ES256' });
    p = await startPlatform({
      authEnv: { AUTH_STORE_B_ISSUER: store.issuer, AUTH_STORE_B_JWKS_URL: store.jwksUrl, AUTH_STORE_B_AUDIENCE: 'store-client' },
    });
    const dev = await p.registry.call('POST', '/developers/register', { body: { Email: email(), Password: PASSWORD, DisplayName: 'Dev' } });
    assert.equal(dev.status, 201);
    devToken = dev.body.Token;
    const g = await p.registry.call('POST', '/games', { token: devToken, body: { DisplayName: 'Game' } });
    assert.equal(g.status, 201);
    game = { gameId: g.body.Game.GameId, headers: { 'x-platform-api-key': g.body.Game.ApiKey, 'x-platform-api-secret': g.body.ApiSecret } };
  });
  after(async () => {
    await p.close();
    await store.close();
  });

  it('Email + Password creates the account on first use, then signs in (idempotent, 200 both times)', async () => {
    const e = email();
    const first = await register({ Email: e, Password: PASSWORD, DisplayName: 'Alice' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.AccountCreated, true);
    assert.equal(first.body.Registration.GameId, game.gameId);
    assert.equal(first.body.Registration.UserId, first.body.Sub);
    assert.equal(first.body.Registration.DisplayName, 'Alice');
    const second = await register({ Email: e, Password: PASSWORD });
    assert.equal(second.status, 200);
    assert.equal(second.body.AccountCreated, false);
    assert.equal(second.body.Sub, first.body.Sub);
    assert.equal(second.body.Registration.Id, first.body.Registration.Id);
    assert.equal(second.body.Registration.DisplayName, 'Alice', 'an absent DisplayName keeps the stored one');
    // The player can sign in to auth with the same credentials: it is one account.
    const login = await p.auth.call('POST', '/login', { body: { email: e, password: PASSWORD } });
    assert.equal(login.status, 200);
    assert.equal(login.body.account_id, first.body.Sub);
    // Listed for the developer and the super-admin.
    const users = await p.registry.call('GET', `/games/${game.gameId}/users`, { token: devToken });
    assert.ok(users.body.some((u: { UserId: string }) => u.UserId === first.body.Sub));
    const admin = await p.registry.call('POST', '/developers/login', { body: { Email: ADMIN_EMAIL, Password: ADMIN_PASSWORD } });
    const all = await p.registry.call('GET', '/admin/users', { token: admin.body.Token });
    assert.equal(all.body.filter((u: { UserId: string }) => u.UserId === first.body.Sub).length, 1);
  });

  it('the sessions auth opened for the registry are closed again', async () => {
    const e = email();
    const r = await register({ Email: e, Password: PASSWORD });
    const sessions = await p.auth.app.auth.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sessions WHERE account_id = $1 AND revoked_at IS NULL`,
      [r.body.Sub],
    );
    assert.equal(sessions.rows[0].n, 0);
  });

  it('a wrong password for an existing email is 401 invalid_credentials, and creates nothing', async () => {
    const e = email();
    await register({ Email: e, Password: PASSWORD });
    const r = await register({ Email: e, Password: 'another long password 99' });
    assert.equal(r.status, 401);
    assert.equal(r.body.Code, 'invalid_credentials');
  });

  it('a weak password for a new email is 400 weak_password', async () => {
    const r = await register({ Email: email(), Password: 'short' });
    assert.equal(r.status, 400);
    assert.equal(r.body.Code, 'weak_password');
  });

  it('Provider + Ticket goes through the platform exchange; AccountCreated only the first time', async () => {
    const ext = randomBytes(6).toString('hex');
    const first = await register({ Provider: 'store_b', Ticket: await ticketFor(ext), DisplayName: 'Storey' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.AccountCreated, true);
    const again = await register({ Provider: 'store_b', Ticket: await ticketFor(ext, 'n-1'), Nonce: 'n-1' });
    assert.equal(again.status, 200);
    assert.equal(again.body.AccountCreated, false);
    assert.equal(again.body.Sub, first.body.Sub);
    assert.equal(again.body.Registration.Id, first.body.Registration.Id);
  });

  it('a rejected ticket is 401 invalid_ticket; an unconfigured provider 400 provider_not_configured', async () => {
    const wrongAudience = await store.issueIdToken({ clientId: 'another-client', sub: 'someone' });
    for (const Ticket of ['forged', wrongAudience]) {
      const bad = await register({ Provider: 'store_b', Ticket });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.Code, 'invalid_ticket');
    }
    const unknown = await register({ Provider: 'idp_a', Ticket: 'x' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.Code, 'provider_not_configured');
  });

  it('UserId registers an existing account (confirmed by auth); unknown → 404 user_not_found', async () => {
    const guest = await p.auth.call('POST', '/guest', { body: { device_fingerprint: `dev-${randomBytes(6).toString('hex')}` } });
    assert.equal(guest.status, 200);
    const r = await register({ UserId: guest.body.account_id, DisplayName: 'Guesty' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.Sub, guest.body.account_id);
    assert.equal(r.body.AccountCreated, false);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await register({ UserId: id });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.Code, 'user_not_found');
    }
  });

  it('a deleted account cannot be registered by UserId', async () => {
    const g = await p.auth.call('POST', '/guest', { body: { device_fingerprint: `dev-${randomBytes(6).toString('hex')}` } });
    const del = await p.auth.call('DELETE', '/account', { token: g.body.access_token });
    assert.equal(del.status, 202);
    const r = await register({ UserId: g.body.account_id });
    assert.equal(r.status, 404);
    assert.equal(r.body.Code, 'user_not_found');
  });

  it('other field combinations are 400 invalid_combination', async () => {
    for (const body of [
      {},
      { DisplayName: 'only a name' },
      { Email: email() },
      { Password: PASSWORD },
      { Provider: 'store_b' },
      { Ticket: 'ok:x' },
      { Provider: 'store_b', ExternalId: 'abc' },
      { Provider: 'store_b', Ticket: 'ok:x', Email: email(), Password: PASSWORD },
      { UserId: '00000000-0000-4000-8000-000000000000', Email: email(), Password: PASSWORD },
      { Email: email(), Password: PASSWORD, Nonce: 'n' },
    ]) {
      const r = await register(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.Code, 'invalid_combination', JSON.stringify(body));
    }
  });

  it('bad input: unknown fields, wrong types, malformed JSON, oversized bodies', async () => {
    const unknown = await register({ Email: email(), Password: PASSWORD, Admin: true });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.Code, 'validation_failed');
    const wrongType = await register({ UserId: 42 });
    assert.equal(wrongType.body.Code, 'validation_failed');
    assert.equal(wrongType.body.Field, 'UserId');
    const badEmail = await register({ Email: 'nope', Password: PASSWORD });
    assert.equal(badEmail.body.Code, 'validation_failed');
    const malformed = await fetch(`${p.registry.url}/games/register-user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...game.headers },
      body: '{"Email": ',
    });
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { Code: string }).Code, 'malformed_json');
    const huge = await register({ Provider: 'store_b', Ticket: 'x'.repeat(100_000) });
    assert.equal(huge.status, 413);
  });

  it('missing or wrong game credentials are 401 invalid_api_key', async () => {
    for (const headers of [
      {},
      { 'x-platform-api-key': game.headers['x-platform-api-key'] },
      { ...game.headers, 'x-platform-api-secret': 'gs_wrong' },
      { 'x-platform-api-key': 'gk_unknown', 'x-platform-api-secret': 'gs_wrong' },
    ]) {
      const r = await register({ Email: email(), Password: PASSWORD }, headers as Record<string, string>);
      assert.equal(r.status, 401);
      assert.equal(r.body.Code, 'invalid_api_key');
    }
  });

  it('auth unreachable → 503 auth_unavailable; an auth certificate not trusted → 503 too', async () => {
    const { buildApp, FsBlobStore, MIGRATIONS_DIR } = await import('@platform/registry');
    const { testDatabase, testStateStore } = await import('@platform/kit/testing');
    const { migrate } = await import('@platform/kit');
    const d = await testDatabase('registry');
    const s = await testStateStore();
    await migrate(d.db, MIGRATIONS_DIR);
    const deadPort = await freePort();
    const masterKey = randomBytes(32);
    for (const [url, caFile] of [
      [`https://127.0.0.1:${deadPort}`, p.authTls.certPath],
      [p.auth.url, undefined],
    ] as const) {
      const config = readRegistryConfig({
        LOG_LEVEL: 'silent',
        REGISTRY_ADMIN_EMAIL: ADMIN_EMAIL,
        REGISTRY_ADMIN_PASSWORD: ADMIN_PASSWORD,
        REGISTRY_AUTH_URL: url,
        ...(caFile ? { REGISTRY_AUTH_CA_FILE: caFile } : {}),
        REGISTRY_AUTH_INTERNAL_KEY: p.internalKey,
      });
      const app = await buildApp({ ...config, masterKey }, { db: d.db, state: s.state, blobs: new FsBlobStore(p.dir + '/b2'), announce: () => {} });
      const dev = await app.inject({ method: 'POST', url: '/developers/register', payload: { Email: email(), Password: PASSWORD, DisplayName: 'D' } });
      const g = await app.inject({ method: 'POST', url: '/games', headers: { authorization: `Bearer ${dev.json().Token}` }, payload: { DisplayName: 'G' } });
      const r = await app.inject({
        method: 'POST',
        url: '/games/register-user',
        headers: { 'x-platform-api-key': g.json().Game.ApiKey, 'x-platform-api-secret': g.json().ApiSecret },
        payload: { Email: email(), Password: PASSWORD },
      });
      assert.equal(r.statusCode, 503, r.body);
      assert.equal(r.json().Code, 'auth_unavailable');
      await app.close();
    }
    await s.drop();
    await d.drop();
  });

  it('auth GET /internal/accounts/{id}: internal key required (401 internal_key_required / invalid_internal_key)', async () => {
    const auth = client(p.auth.url, p.authTls.cert);
    const g = await auth.call('POST', '/guest', { body: { device_fingerprint: `dev-${randomBytes(6).toString('hex')}` } });
    const path = `/internal/accounts/${g.body.account_id}`;
    const ok = await auth.call('GET', path, { headers: { 'x-internal-key': p.internalKey } });
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.body).sort(), ['created_at', 'display_name', 'guest_standing', 'id', 'is_guest', 'status']);
    assert.equal(ok.body.guest_standing, 'normal', 'a guest’s standing, the level only');
    assert.equal(ok.body.is_guest, true);
    const missing = await auth.call('GET', path);
    assert.equal(missing.status, 401);
    assert.equal(missing.body.code, 'internal_key_required');
    for (const key of ['x'.repeat(32), p.internalKey + 'x', '', p.internalKey.slice(1)]) {
      const wrong = await auth.call('GET', path, { headers: { 'x-internal-key': key } });
      assert.equal(wrong.status, 401, key);
      assert.equal(wrong.body.code, 'invalid_internal_key');
    }
    // A player's access token is no substitute.
    const bearer = await auth.call('GET', path, { token: g.body.access_token });
    assert.equal(bearer.status, 401);
  });
});
