// The SDK's passkeys (docs/auth.md, "Passkeys") against the real auth service, with an injected authenticator (the
// kit's software authenticator doing the real ES256 ceremony, as a native client's would): add, list, sign in,
// finish an email sign-in with one, remove; the typed errors of a ceremony that does not finish or has no
// authenticator. The browser path (navigator.credentials) is packages/auth/test/passkeys-chromium.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SoftAuthenticator } from '@platform/kit/testing';
import type { PasskeyAuthenticator, PasskeyOptionsJSON } from '../src/index.js';
import { PASSWORD, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

const ORIGIN = 'https://play.example.test';

/** The kit's software authenticator as the SDK's PasskeyAuthenticator. */
const injected = (soft: SoftAuthenticator): PasskeyAuthenticator => ({
  create: async (o: PasskeyOptionsJSON) => soft.create(o),
  get: async (o: PasskeyOptionsJSON) => soft.get(o),
});

describe('client: passkeys', () => {
  let tp: TestPlatform;
  before(async () => {
    tp = await startTestPlatform({ authEnv: { AUTH_WEBAUTHN_RP_ID: 'example.test', AUTH_WEBAUTHN_ORIGINS: ORIGIN } });
  });
  after(() => tp.close());

  it('addPasskey, passkeys, signInWithPasskey, completeSignInWithPasskey, removePasskey', async () => {
    const soft = new SoftAuthenticator(ORIGIN);
    const authenticator = injected(soft);
    const c = tp.client();
    const email = uniqueEmail('passkey');
    await c.auth.register({ email, password: PASSWORD });
    await c.auth.signInWithEmail({ email, password: PASSWORD });
    const added = await c.auth.addPasskey({ name: 'Phone', authenticator });
    assert.equal(added.name, 'Phone');
    assert.deepEqual((await c.auth.passkeys()).map((p) => p.id), [added.id]);
    assert.equal((await c.auth.secondFactors()).passkeys, 1);

    const device = tp.client();
    const { accountId } = await device.auth.signInWithPasskey({ authenticator });
    assert.equal(accountId, (await c.auth.account()).id);

    const other = tp.client();
    const e = await rejects(other.auth.signInWithEmail({ email, password: PASSWORD }), 401, 'mfa_required');
    assert.deepEqual(e.details.factors, ['passkey']);
    await other.auth.completeSignInWithPasskey(String(e.details.mfa_token), { authenticator });
    assert.ok(await other.session.get(), 'signed in');

    await other.auth.removePasskey(added.id);
    await rejects(other.auth.removePasskey(added.id), 404, 'passkey_not_found');
    await rejects(tp.client().auth.signInWithPasskey({ authenticator }), 401, 'invalid_passkey');
    await tp.client().auth.signInWithEmail({ email, password: PASSWORD });
  });

  it('typed errors: no authenticator here, a cancelled prompt, a failed ceremony, a guest', async () => {
    await rejects(tp.client().auth.signInWithPasskey(), 0, 'passkeys_not_supported');
    const cancelled: PasskeyAuthenticator = {
      create: async () => Promise.reject(Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' })),
      get: async () => Promise.reject(Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' })),
    };
    await rejects(tp.client().auth.signInWithPasskey({ authenticator: cancelled }), 0, 'passkey_cancelled');
    const broken: PasskeyAuthenticator = { create: async () => Promise.reject(new TypeError('boom')), get: async () => Promise.reject(new TypeError('boom')) };
    await rejects(tp.client().auth.signInWithPasskey({ authenticator: broken }), 0, 'passkey_failed');
    const g = tp.client();
    await g.auth.signInAsGuest();
    await rejects(g.auth.addPasskey({ authenticator: injected(new SoftAuthenticator(ORIGIN)) }), 403, 'guest_restricted');
  });
});
