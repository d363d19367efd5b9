// store_b and idp_a: ID tokens from a real OIDC provider, verified against its key set.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { readConfig } from '@platform/kit';
import { createPlatformVerifiers, platformProviderVars, type PlatformVerifiers } from '../../src/providers/index.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { assertAppError } from '@platform/kit/testing';

const CLIENT = 'game-client';

/** Re-signs a token's exact header and claims with a key the provider never published. */
async function resignWithForeignKey(token: string): Promise<string> {
  const header = decodeProtectedHeader(token);
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'RS256', kid: header.kid }).sign(privateKey);
}

/** A local HTTP server answering every request with `handler` (key-set failure modes). */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`, server };
}

describe('ID-token providers (store_b, idp_a)', () => {
  let idp: TestOidcProvider;
  let other: TestOidcProvider;
  let verifiers: PlatformVerifiers;

  before(async () => {
    [idp, other] = await Promise.all([startOidcProvider(), startOidcProvider({ alg: 'ES256' })]);
    verifiers = createPlatformVerifiers(
      readConfig(platformProviderVars, {
        AUTH_STORE_B_ISSUER: other.issuer,
        AUTH_STORE_B_JWKS_URL: other.jwksUrl,
        AUTH_STORE_B_AUDIENCE: 'store-client',
        AUTH_IDP_A_ISSUER: idp.issuer,
        AUTH_IDP_A_JWKS_URL: idp.jwksUrl,
        AUTH_IDP_A_AUDIENCE: `${CLIENT}, ${CLIENT}-ios`,
      }),
    );
  });
  after(async () => {
    await Promise.all([idp.close(), other.close()]);
  });

  it('verifies a valid ID token and returns sub and profile claims', async () => {
    const token = await idp.issueIdToken({
      clientId: CLIENT,
      sub: 'idp-user-1',
      extra: { email: 'ann@example.com', email_verified: true, name: 'Ann' },
    });
    assert.deepEqual(await verifiers.verify('idp_a', token), {
      provider: 'idp_a',
      providerUserId: 'idp-user-1',
      email: 'ann@example.com',
      emailVerified: true,
      displayName: 'Ann',
    });
  });

  it('accepts every configured audience', async () => {
    const token = await idp.issueIdToken({ clientId: `${CLIENT}-ios`, sub: 'idp-user-2' });
    assert.equal((await verifiers.verify('idp_a', token)).providerUserId, 'idp-user-2');
  });

  it('verifies store_b tokens (ES256) against its own key set', async () => {
    const token = await other.issueIdToken({ clientId: 'store-client', sub: 'store-user-9' });
    assert.equal(decodeProtectedHeader(token).alg, 'ES256');
    const id = await verifiers.verify('store_b', token);
    assert.equal(id.provider, 'store_b');
    assert.equal(id.providerUserId, 'store-user-9');
    assert.equal(id.email, undefined);
  });

  it('lists both providers as configured', () => {
    assert.deepEqual(verifiers.configured(), ['store_b', 'idp_a']);
  });

  it('rejects a token issued to another client (audience)', async () => {
    const token = await idp.issueIdToken({ clientId: 'someone-else', sub: 'idp-user-1' });
    await assertAppError(verifiers.verify('idp_a', token), 401, 'invalid_ticket', /audience does not match/);
  });

  it('rejects a token of another issuer, even when signed by a published key', async () => {
    const strict = createPlatformVerifiers({ idpA: { issuer: 'https://accounts.example.com', jwksUrl: idp.jwksUrl, audience: [CLIENT] } });
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1' });
    await assertAppError(strict.verify('idp_a', token), 401, 'invalid_ticket', /issuer does not match/);
  });

  it("rejects one provider's token presented as another's", async () => {
    const token = await other.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1' });
    await assertAppError(verifiers.verify('idp_a', token), 401, 'invalid_ticket', /not signed by a key of the provider's key set/);
  });

  it('rejects an expired token', async () => {
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1', expiresInSeconds: -120 });
    assert.ok(decodeJwt(token).exp! < Date.now() / 1000 - 60);
    await assertAppError(verifiers.verify('idp_a', token), 401, 'invalid_ticket', /expired/);
  });

  it('accepts a token expired by less than the clock tolerance', async () => {
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1', expiresInSeconds: -5 });
    assert.equal((await verifiers.verify('idp_a', token)).providerUserId, 'idp-user-1');
  });

  it('rejects a token signed by another key under the published key id', async () => {
    const token = await resignWithForeignKey(await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1' }));
    await assertAppError(verifiers.verify('idp_a', token), 401, 'invalid_ticket', /signature does not verify/);
  });

  it('rejects a token whose claims were altered after signing', async () => {
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1' });
    const [h, , s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(token), sub: 'idp-admin' })).toString('base64url');
    await assertAppError(verifiers.verify('idp_a', `${h}.${forged}.${s}`), 401, 'invalid_ticket', /signature does not verify/);
  });

  it('rejects symmetric and unsigned algorithms', async () => {
    const claims = { iss: idp.issuer, aud: CLIENT, sub: 'x', exp: Math.floor(Date.now() / 1000) + 600, iat: Math.floor(Date.now() / 1000) };
    const jwks = (await (await fetch(idp.jwksUrl)).json()) as { keys: { kid: string; n: string }[] };
    // HS256 keyed with the public modulus: the classic key-confusion attack.
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: jwks.keys[0].kid }).sign(Buffer.from(jwks.keys[0].n));
    await assertAppError(verifiers.verify('idp_a', hs), 401, 'invalid_ticket', /algorithm is not allowed/);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    await assertAppError(verifiers.verify('idp_a', none), 401, 'invalid_ticket', /malformed/);
  });

  it('checks a nonce only when the request carries one (raw, OIDC convention)', async () => {
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1', nonce: 'n-123' });
    assert.equal((await verifiers.verify('idp_a', token, { nonce: 'n-123' })).providerUserId, 'idp-user-1');
    assert.equal((await verifiers.verify('idp_a', token)).providerUserId, 'idp-user-1');
    await assertAppError(verifiers.verify('idp_a', token, { nonce: 'n-124' }), 401, 'invalid_ticket', /nonce does not match/);
    const without = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1' });
    await assertAppError(verifiers.verify('idp_a', without, { nonce: 'n-123' }), 401, 'invalid_ticket', /no "nonce" claim/);
  });

  it('rejects garbage without echoing it', async () => {
    for (const bad of ['', 'garbage', 'a.b', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', 'x'.repeat(17_000), '{"sub":"x"}']) {
      const err = await assertAppError(verifiers.verify('idp_a', bad), 401, 'invalid_ticket');
      if (bad.length > 3) assert.ok(!err.message.includes(bad));
    }
  });

  it('answers 503 provider_unavailable when the key set cannot be fetched', async () => {
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'idp-user-1' });
    const closed = await serve((_q, r) => r.end());
    await new Promise<void>((r) => closed.server.close(() => r()));
    const failing = await serve((_q, r) => {
      r.statusCode = 500;
      r.end('down');
    });
    const notJson = await serve((_q, r) => r.end('<html>maintenance</html>'));
    const notKeySet = await serve((_q, r) => r.end('{"keys":"nope"}'));
    const hanging = await serve(() => {});
    try {
      for (const url of [closed.url, failing.url, notJson.url, notKeySet.url, hanging.url]) {
        const v = createPlatformVerifiers({ idpA: { issuer: idp.issuer, jwksUrl: url, audience: [CLIENT] } }, { keySetTimeoutMs: 300 });
        await assertAppError(v.verify('idp_a', token), 503, 'provider_unavailable', /unreachable/);
      }
    } finally {
      for (const s of [failing, notJson, notKeySet, hanging]) {
        s.server.closeAllConnections();
        s.server.close();
      }
    }
  });

  it('keeps verifying with the cached key set while the provider is down', async () => {
    const flaky = await startOidcProvider();
    const v = createPlatformVerifiers({ idpA: { issuer: flaky.issuer, jwksUrl: flaky.jwksUrl, audience: [CLIENT] } });
    const first = await flaky.issueIdToken({ clientId: CLIENT, sub: 'u1' });
    const second = await flaky.issueIdToken({ clientId: CLIENT, sub: 'u2' });
    assert.equal((await v.verify('idp_a', first)).providerUserId, 'u1');
    await flaky.close();
    assert.equal((await v.verify('idp_a', second)).providerUserId, 'u2');
  });
});
