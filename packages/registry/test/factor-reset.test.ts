// The super-admin's reset of a developer's lost second factors (docs/registry.md, "Lost factors"; decision 0031):
// the authenticator and every passkey go, every token of the developer stops working, the password signs in alone,
// logged with the super-admin and the reason; only the super-admin; unknown ids and bad input refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { captureLogs, SoftAuthenticator } from '@platform/kit/testing';
import { assertError, bearer, harness, loginAdmin, registerDeveloper } from './helpers.js';

const PASSWORD = 'correct horse battery';

describe('developer factor reset (super-admin)', () => {
  it('removes the authenticator and the passkeys, ends every token, logs who and why; refuses others and bad input', async () => {
    const logs = captureLogs();
    const h = await harness({ logLevel: 'info' }, { logStream: logs.stream });
    try {
      const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
        h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
      const dev = await registerDeveloper(h.app, undefined, PASSWORD);
      const { Secret: secret } = (await call('POST', '/developers/me/mfa/totp', dev.token)).json();
      const confirmed = await call('POST', '/developers/me/mfa/totp/confirm', dev.token, { Code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      let token = confirmed.json().Token as string;
      const auth = new SoftAuthenticator(h.config.webauthn.origins[0]);
      const options = (await call('POST', '/developers/me/passkeys/registration/options', token)).json().PublicKey;
      const added = await call('POST', '/developers/me/passkeys/registration', token, { Credential: auth.create(options) });
      assert.equal(added.statusCode, 201, added.body);
      token = added.json().Token;
      assertError(await call('POST', '/developers/login', undefined, { Email: dev.email, Password: PASSWORD }), 401, 'mfa_required');

      const admin = await loginAdmin(h.app);
      const other = await registerDeveloper(h.app);
      const reset = (id: string, t: string | undefined, body: unknown = { Reason: 'ticket 88: lost laptop and phone' }) => call('POST', `/admin/developers/${id}/factors/reset`, t, body);
      // Only the super-admin; nothing changes on a refusal.
      assertError(await reset(dev.id, undefined), 401, 'unauthorized');
      assertError(await reset(dev.id, other.token), 403, 'forbidden');
      assertError(await reset(dev.id, token), 403, 'forbidden');
      assertError(await reset('00000000-0000-0000-0000-000000000000', admin.token), 404, 'developer_not_found');
      assertError(await reset('not-a-uuid', admin.token), 404, 'developer_not_found');
      for (const body of [{}, { Reason: '' }, { Reason: 7 }, { Reason: 'x'.repeat(1001) }, { Reason: 'ok', Extra: 1 }]) {
        assert.equal((await reset(dev.id, admin.token, body)).statusCode, 400, JSON.stringify(body));
      }
      assertError(await reset(dev.id, admin.token, { Reason: 'a\u0000b' }), 400, 'invalid_character');
      assert.equal((await call('GET', '/developers/me/passkeys', token)).statusCode, 200, 'still signed in');

      const r = await reset(dev.id, admin.token);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json(), { TotpRemoved: true, PasskeysRemoved: 1 });
      assertError(await call('GET', '/developers/me/passkeys', token), 401, 'unauthorized');
      const login = await call('POST', '/developers/login', undefined, { Email: dev.email, Password: PASSWORD });
      assert.equal(login.statusCode, 200, 'the password alone signs in');
      assert.deepEqual((await call('GET', '/developers/me/mfa', login.json().Token)).json(), { Totp: false, Pending: false, RecoveryCodesLeft: 0 });
      const line = logs
        .text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.event === 'factors_reset' && l.developerId === dev.id);
      assert.equal(line?.by, admin.id);
      assert.equal(line?.reason, 'ticket 88: lost laptop and phone');
      assert.ok(!logs.text().includes(token));
    } finally {
      await h.drop();
    }
  });
});
