// A real OAuth client library (oauth4webapi) against a real listening auth service (HTTPS, TLS 1.3, the test
// certificate): it reads the metadata (RFC 8414 and the OpenID discovery path, issuer checked), runs the device
// flow (RFC 8628) with a player approving, refreshes, and sees reuse refused; jose verifies the access token
// against the metadata's jwks_uri.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import * as jose from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import { loadOrCreateTls } from '@platform/kit';
import { freePort } from '@platform/kit/testing';
import { harness, GOOD_PASSWORD, type Harness } from './support/harness.js';

describe('a standard OAuth client (oauth4webapi) against the listening service', () => {
  let h: Harness;
  let agent: Agent;
  let issuer: URL;
  let opts: { [oauth.customFetch]: typeof fetch };
  const client: oauth.Client = { client_id: 'tv-app' };
  const none = oauth.None();

  /** JSON over the same trusted connection (the player's side: sign-in and approval). */
  const call = async (method: string, p: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const r = await undiciFetch(new URL(p, issuer), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agent });
    return { status: r.status, body: (r.status === 204 ? null : await r.json()) as Record<string, any> };
  };

  before(async () => {
    const tls = await loadOrCreateTls({ dir: path.join(mkdtempSync(path.join(tmpdir(), 'auth-oauth-')), 'tls') });
    const port = await freePort();
    h = await harness(
      { AUTH_ISSUER: `https://127.0.0.1:${port}`, AUTH_TOKEN_FORMAT: 'jwt', AUTH_DEVICE_CLIENT_IDS: 'tv-app', AUTH_DEVICE_POLL_INTERVAL_SECONDS: '1' },
      { tls },
    );
    await h.app.listen({ port, host: '127.0.0.1' });
    issuer = new URL(h.config.issuer);
    agent = new Agent({ connect: { ca: tls.cert } });
    opts = { [oauth.customFetch]: ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch };
  });
  after(async () => {
    await h?.close();
    await agent?.close();
  });

  async function discover(algorithm: 'oauth2' | 'oidc') {
    return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm, ...opts }));
  }

  it('reads both metadata documents; the issuer check passes', async () => {
    for (const algorithm of ['oauth2', 'oidc'] as const) {
      const as = await discover(algorithm);
      assert.equal(as.issuer, h.config.issuer);
      assert.equal(as.token_endpoint, `${h.config.issuer}/oauth/token`);
      assert.equal(as.device_authorization_endpoint, `${h.config.issuer}/oauth/device_authorization`);
      assert.deepEqual(as.grant_types_supported, ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token']);
    }
    // A client expecting another issuer refuses the document.
    await assert.rejects(async () => oauth.processDiscoveryResponse(new URL('https://elsewhere.test'), await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...opts })));
  });

  it('completes the device flow, verifies the token with the key set, refreshes, and sees reuse refused', async () => {
    const as = await discover('oauth2');
    const dar = await oauth.processDeviceAuthorizationResponse(
      as,
      client,
      await oauth.deviceAuthorizationRequest(as, client, none, { device_name: 'Den console', platform: 'console' }, opts),
    );
    assert.match(dar.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(dar.interval, 1);
    const pollOnce = async () => oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, none, dar.device_code, opts));
    const isError = (error: string) => (e: unknown) => e instanceof oauth.ResponseBodyError && e.error === error;

    await assert.rejects(pollOnce(), isError('authorization_pending'));
    await assert.rejects(pollOnce(), isError('slow_down')); // at once: before the interval

    // The player, on a phone: signs up, sees the device, approves.
    const player = await call('POST', '/register', { email: `oauth-${Date.now()}@example.test`, password: GOOD_PASSWORD });
    assert.equal(player.status, 201);
    const seen = await call('POST', '/device/lookup', { user_code: dar.user_code }, player.body.access_token);
    assert.equal(seen.body.device_name, 'Den console');
    assert.equal(seen.body.client_verified, true);
    assert.equal((await call('POST', '/device/decision', { user_code: dar.user_code, approve: true }, player.body.access_token)).status, 200);

    // The next poll after the interval (the previous one moved an hour back instead of waiting) gets the tokens.
    await h.tdb.db.query(`UPDATE device_grants SET last_polled_at = last_polled_at - interval '1 hour' WHERE device_code_hash = $1`, [
      createHash('sha256').update(dar.device_code).digest('hex'),
    ]);
    const tokens = await pollOnce();
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, h.config.accessTtlSeconds);
    assert.ok(tokens.refresh_token);

    // The access token verifies offline against the key set the metadata names.
    const jwks = jose.createRemoteJWKSet(new URL(as.jwks_uri!), { [jose.customFetch]: opts[oauth.customFetch] });
    const { payload } = await jose.jwtVerify(tokens.access_token, jwks, { issuer: h.config.issuer, audience: h.config.audience });
    assert.equal(payload.sub, player.body.account_id);
    assert.equal(payload.platform, 'device_code');
    assert.equal((await call('GET', '/account', undefined, tokens.access_token)).status, 200);

    // The device code is spent.
    await assert.rejects(pollOnce(), isError('invalid_grant'));

    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, none, tokens.refresh_token!, opts));
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal((await call('GET', '/account', undefined, refreshed.access_token)).status, 200);
    await assert.rejects(
      async () => oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, none, tokens.refresh_token!, opts)),
      isError('invalid_grant'),
    );
    // Reuse ended the session (as /refresh does): the rotated token is gone too.
    assert.equal((await call('GET', '/account', undefined, refreshed.access_token)).status, 401);
  });

  it('a denied request reaches the client as access_denied; an unlisted client as invalid_client', async () => {
    const as = await discover('oidc');
    const dar = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, none, {}, opts));
    const player = await call('POST', '/guest', { device_fingerprint: `fp-${Date.now()}-oauth` });
    assert.equal((await call('POST', '/device/decision', { user_code: dar.user_code, approve: false }, player.body.access_token)).body.status, 'denied');
    await assert.rejects(
      async () => oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, none, dar.device_code, opts)),
      (e: unknown) => e instanceof oauth.ResponseBodyError && e.error === 'access_denied',
    );
    const stranger = { client_id: 'not-listed' };
    await assert.rejects(
      async () => oauth.processDeviceAuthorizationResponse(as, stranger, await oauth.deviceAuthorizationRequest(as, stranger, none, {}, opts)),
      (e: unknown) => e instanceof oauth.ResponseBodyError && e.error === 'invalid_client' && e.status === 401,
    );
  });
});
