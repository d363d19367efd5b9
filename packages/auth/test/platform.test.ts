// POST /platform end to end through the configured providers: a real OIDC
// provider (oidc-provider) stands in for idp_a, store_b and idp_b, and
// encrypted app tickets built with the format's real encryption for store_a.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { harness, bearer, guest, type Harness, assertError } from './support/harness.js';
import { startOidcProvider, type TestOidcProvider } from './support/oidc-provider.js';
import { buildEncryptedAppTicket, individualSteamId } from './support/steam-ticket.js';

const APP_ID = 480;
const TICKET_KEY = randomBytes(32);
const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[2], 'base64url').subarray(0, -64).toString('utf8'));

describe('POST /platform with the configured providers', () => {
  let idp: TestOidcProvider;
  let store: TestOidcProvider;
  let h: Harness;

  before(async () => {
    idp = await startOidcProvider({ alg: 'RS256' });
    store = await startOidcProvider({ alg: 'ES256' });
    h = await harness({
      AUTH_IDP_A_ISSUER: idp.issuer,
      AUTH_IDP_A_JWKS_URL: idp.jwksUrl,
      AUTH_IDP_A_AUDIENCE: 'game-client',
      AUTH_IDP_B_ISSUER: idp.issuer,
      AUTH_IDP_B_JWKS_URL: idp.jwksUrl,
      AUTH_IDP_B_AUDIENCE: 'com.example.game',
      AUTH_STORE_B_ISSUER: store.issuer,
      AUTH_STORE_B_JWKS_URL: store.jwksUrl,
      AUTH_STORE_B_AUDIENCE: 'store-client',
      AUTH_STORE_A_APP_ID: String(APP_ID),
      AUTH_STORE_A_ENCRYPTION_KEY: TICKET_KEY.toString('hex'),
    });
  });
  after(async () => {
    await h.close();
    await idp.close();
    await store.close();
  });

  const platform = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url: '/platform', headers, payload });

  it('idp_a: a real ID token signs in, creating the account once (a retry signs the same one in)', async () => {
    const ticket = await idp.issueIdToken({ clientId: 'game-client', sub: 'idp-user-1' });
    const first = await platform({ provider: 'idp_a', ticket });
    assert.equal(first.statusCode, 200, first.body);
    const again = await platform({ provider: 'idp_a', ticket });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().account_id, first.json().account_id);
    assert.equal(typeof first.json().refresh_token, 'string');
    const account = await h.app.inject({ url: '/account', headers: bearer(first.json().access_token) });
    assert.equal(account.statusCode, 200);
    assert.ok(JSON.stringify(account.json()).includes('idp-user-1'));
  });

  it('idp_a: wrong audience, wrong issuer and an expired token are refused with 401 invalid_ticket', async () => {
    const wrongAud = await idp.issueIdToken({ clientId: 'another-client', sub: 'idp-user-2' });
    const wrongIss = await store.issueIdToken({ clientId: 'game-client', sub: 'idp-user-2' });
    const expired = await idp.issueIdToken({ clientId: 'game-client', sub: 'idp-user-2', expiresInSeconds: -120 });
    for (const ticket of [wrongAud, wrongIss, expired, 'not-a-token']) {
      const r = await platform({ provider: 'idp_a', ticket });
      assertError(r, 401, 'invalid_ticket');
      if (ticket.length > 60) assert.ok(!r.body.includes(ticket.slice(20, 60)), 'the ticket is not echoed');
    }
  });

  it('idp_b: the nonce is checked (SHA-256 hex of the request nonce)', async () => {
    const nonce = 'raw-nonce-' + randomBytes(8).toString('hex');
    const ticket = await idp.issueIdToken({ clientId: 'com.example.game', sub: 'apple-user-1', nonce: sha256Hex(nonce) });
    const ok = await platform({ provider: 'idp_b', ticket, nonce });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(claimsOf(ok.json().access_token).platform, 'idp_b');
    assertError(await platform({ provider: 'idp_b', ticket, nonce: 'another-nonce' }), 401, 'invalid_ticket');
    const missing = await platform({ provider: 'idp_b', ticket });
    assert.equal(missing.statusCode, 401);
  });

  it('store_b: an OIDC ID token from the store signs in', async () => {
    const ticket = await store.issueIdToken({ clientId: 'store-client', sub: 'store-user-9' });
    const r = await platform({ provider: 'store_b', ticket });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(claimsOf(r.json().access_token).platform, 'store_b');
  });

  it('store_a: an encrypted app ticket signs in; wrong app id, another key and a stale ticket are refused', async () => {
    const steamId = individualSteamId(123456);
    const ticket = buildEncryptedAppTicket({ appId: APP_ID, steamId, key: TICKET_KEY }).toString('hex');
    const ok = await platform({ provider: 'store_a', ticket });
    assert.equal(ok.statusCode, 200, ok.body);
    const again = await platform({ provider: 'store_a', ticket });
    assert.equal(again.json().account_id, ok.json().account_id);
    const refused = [
      buildEncryptedAppTicket({ appId: APP_ID + 1, steamId, key: TICKET_KEY }),
      buildEncryptedAppTicket({ appId: APP_ID, steamId, key: randomBytes(32) }),
      buildEncryptedAppTicket({ appId: APP_ID, steamId, key: TICKET_KEY, issuedAt: new Date(Date.now() - 3600_000) }),
    ];
    for (const t of refused) {
      const r = await platform({ provider: 'store_a', ticket: t.toString('hex') });
      assertError(r, 401, 'invalid_ticket');
    }
  });

  it('links a platform identity to the current (guest) account with a Bearer token', async () => {
    const g = await guest(h.app);
    const ticket = await idp.issueIdToken({ clientId: 'game-client', sub: 'idp-linker' });
    const r = await platform({ provider: 'idp_a', ticket }, bearer(g.access_token));
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().account_id, g.account_id);
    const account = (await h.app.inject({ url: '/account', headers: bearer(r.json().access_token) })).json();
    assert.equal(account.is_guest, false);
  });
});

describe('POST /platform without configured providers', () => {
  it('answers 400 provider_not_configured', async () => {
    const h = await harness();
    try {
      assertError(await h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'idp_a', ticket: 'x.y.z' } }), 400, 'provider_not_configured');
    } finally {
      await h.close();
    }
  });
});
