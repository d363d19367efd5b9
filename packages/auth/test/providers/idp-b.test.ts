// idp_b: Apple-style identity tokens; the token's `nonce` is the SHA-256 hex of the request's nonce.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readConfig } from '@platform/kit';
import { createPlatformVerifiers, platformProviderVars, type PlatformVerifiers } from '../../src/providers/index.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { assertAppError } from '@platform/kit/testing';

const CLIENT = 'com.example.game';
const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

describe('idp_b identity tokens (nonce checked)', () => {
  let idp: TestOidcProvider;
  let verifiers: PlatformVerifiers;
  const rawNonce = 'b3f1c0a2-raw-nonce-from-the-client';

  before(async () => {
    idp = await startOidcProvider({ alg: 'ES256' });
    verifiers = createPlatformVerifiers(
      readConfig(platformProviderVars, {
        AUTH_IDP_B_ISSUER: idp.issuer,
        AUTH_IDP_B_JWKS_URL: idp.jwksUrl,
        AUTH_IDP_B_AUDIENCE: CLIENT,
      }),
    );
  });
  after(() => idp.close());

  it('verifies a token whose nonce is the SHA-256 hex of the request nonce', async () => {
    const token = await idp.issueIdToken({
      clientId: CLIENT,
      sub: '001234.abcdef.0042',
      nonce: sha256Hex(rawNonce),
      extra: { email: 'relay@privaterelay.example.com', email_verified: 'true', is_private_email: 'true' },
    });
    assert.deepEqual(await verifiers.verify('idp_b', token, { nonce: rawNonce }), {
      provider: 'idp_b',
      providerUserId: '001234.abcdef.0042',
      email: 'relay@privaterelay.example.com',
      emailVerified: true,
      displayName: undefined,
    });
    assert.deepEqual(verifiers.configured(), ['idp_b']);
  });

  it('requires the request nonce', async () => {
    const token = await idp.issueIdToken({ clientId: CLIENT, sub: 'u1', nonce: sha256Hex(rawNonce) });
    await assertAppError(verifiers.verify('idp_b', token), 401, 'invalid_ticket', /nonce is required/);
    await assertAppError(verifiers.verify('idp_b', token, { nonce: '' }), 401, 'invalid_ticket', /nonce is required/);
  });

  it('rejects a mismatched nonce, a raw (unhashed) nonce claim and a token without one', async () => {
    const hashed = await idp.issueIdToken({ clientId: CLIENT, sub: 'u1', nonce: sha256Hex(rawNonce) });
    await assertAppError(verifiers.verify('idp_b', hashed, { nonce: `${rawNonce}x` }), 401, 'invalid_ticket', /nonce does not match/);
    await assertAppError(verifiers.verify('idp_b', hashed, { nonce: sha256Hex(rawNonce) }), 401, 'invalid_ticket', /nonce does not match/);
    const raw = await idp.issueIdToken({ clientId: CLIENT, sub: 'u1', nonce: rawNonce });
    await assertAppError(verifiers.verify('idp_b', raw, { nonce: rawNonce }), 401, 'invalid_ticket', /nonce does not match/);
    const none = await idp.issueIdToken({ clientId: CLIENT, sub: 'u1' });
    await assertAppError(verifiers.verify('idp_b', none, { nonce: rawNonce }), 401, 'invalid_ticket', /no "nonce" claim/);
  });

  it('checks audience, issuer and expiry as well', async () => {
    const nonce = sha256Hex(rawNonce);
    const otherAud = await idp.issueIdToken({ clientId: 'com.example.other', sub: 'u1', nonce });
    await assertAppError(verifiers.verify('idp_b', otherAud, { nonce: rawNonce }), 401, 'invalid_ticket', /audience/);
    const expired = await idp.issueIdToken({ clientId: CLIENT, sub: 'u1', nonce, expiresInSeconds: -300 });
    await assertAppError(verifiers.verify('idp_b', expired, { nonce: rawNonce }), 401, 'invalid_ticket', /expired/);
    const wrongIssuer = createPlatformVerifiers({ idpB: { issuer: 'https://appleid.example.com', jwksUrl: idp.jwksUrl, audience: [CLIENT] } });
    const ok = await idp.issueIdToken({ clientId: CLIENT, sub: 'u1', nonce });
    await assertAppError(wrongIssuer.verify('idp_b', ok, { nonce: rawNonce }), 401, 'invalid_ticket', /issuer/);
  });
});
