// The SDK's second factor (docs/auth.md, "Second factor (TOTP)"), against the real auth service: a player adds an
// authenticator (codes computed as an app would, otpauth), signs in in two steps (signInWithEmail fails with
// mfa_required, completeSignIn finishes it), uses a recovery code once (the second use fails), and removes it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { PASSWORD, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

const codeOf = (secret: string, offsetSteps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

describe('client: second factor', () => {
  let tp: TestPlatform;
  before(async () => {
    tp = await startTestPlatform();
  });
  after(() => tp.close());

  it('startTotp/confirmTotp, then signInWithEmail → mfa_required → completeSignIn; a recovery code once; removeTotp', async () => {
    const c = tp.client();
    const email = uniqueEmail('totp');
    await c.auth.register({ email, password: PASSWORD });
    await c.auth.signInWithEmail({ email, password: PASSWORD });
    assert.deepEqual(await c.auth.secondFactors(), { totp: false, pending: false, recovery_codes_left: 0, passkeys: 0 });
    const { secret, otpauth_uri } = await c.auth.startTotp();
    assert.match(otpauth_uri, /^otpauth:\/\/totp\//);
    const { recovery_codes } = await c.auth.confirmTotp(codeOf(secret));
    assert.equal(recovery_codes.length, 10);

    const device = tp.client();
    const e = await rejects(device.auth.signInWithEmail({ email, password: PASSWORD }), 401, 'mfa_required');
    const token = String(e.details.mfa_token);
    await rejects(device.auth.completeSignIn(token, { code: '000000' }), 401, 'invalid_mfa_code');
    await device.auth.completeSignIn(token, { code: codeOf(secret, 1) });
    assert.ok(await device.session.get(), 'signed in');

    const other = tp.client();
    const e2 = await rejects(other.auth.signInWithEmail({ email, password: PASSWORD }), 401, 'mfa_required');
    await other.auth.completeSignIn(String(e2.details.mfa_token), { recovery_code: recovery_codes[0]! });
    const third = tp.client();
    const e3 = await rejects(third.auth.signInWithEmail({ email, password: PASSWORD }), 401, 'mfa_required');
    await rejects(third.auth.completeSignIn(String(e3.details.mfa_token), { recovery_code: recovery_codes[0]! }), 401, 'invalid_mfa_code');

    await other.auth.removeTotp({ recovery_code: recovery_codes[1]! });
    assert.deepEqual(await other.auth.secondFactors(), { totp: false, pending: false, recovery_codes_left: 0, passkeys: 0 });
    await tp.client().auth.signInWithEmail({ email, password: PASSWORD });
  });
});
