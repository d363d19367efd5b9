// The kit's TOTP core and sealed tokens (totp.ts, sealed-token.ts), shared by auth and the registry: codes as an
// authenticator app computes them (otpauth), the drift window, the newest-step rule, recovery codes, the lock
// arithmetic, and sealed tokens bound to their kind and expiry.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { newRecoveryCodes, newTotpSecret, openToken, openTotpSecret, recoveryCodeHash, sealToken, sealTotpSecret, totpLockSeconds, totpStep } from '../src/index.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 15); // mid-step
const codeAt = (secret: string, ms: number) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });
const stepAt = (ms: number) => Math.floor(ms / 30_000);

describe('kit totp', () => {
  it('makes a 160-bit secret and an otpauth URI naming the issuer and label', () => {
    const { secret, otpauthUri } = newTotpSecret('Game Platform', 'dev@example.test');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.match(otpauthUri, /^otpauth:\/\/totp\/Game%20Platform:dev%40example\.test\?/);
    assert.ok(otpauthUri.includes(`secret=${secret}`) && otpauthUri.includes('period=30') && otpauthUri.includes('digits=6'));
  });

  it('accepts the current code and one step either way, newer than the last accepted only', () => {
    const { secret } = newTotpSecret('I', 'L');
    assert.equal(totpStep(secret, codeAt(secret, T0), 0, T0), stepAt(T0));
    assert.equal(totpStep(secret, codeAt(secret, T0 - 30_000), 0, T0), stepAt(T0) - 1);
    assert.equal(totpStep(secret, codeAt(secret, T0 + 30_000), 0, T0), stepAt(T0) + 1);
    const far = codeAt(secret, T0 + 90_000);
    if (![-1, 0, 1].some((d) => codeAt(secret, T0 + d * 30_000) === far)) assert.equal(totpStep(secret, far, 0, T0), undefined);
    // The newest-step rule: the step accepted last, or an older one, is refused.
    assert.equal(totpStep(secret, codeAt(secret, T0), stepAt(T0), T0), undefined);
    assert.equal(totpStep(secret, codeAt(secret, T0 - 30_000), stepAt(T0), T0), undefined);
    assert.equal(totpStep(secret, codeAt(secret, T0 + 30_000), stepAt(T0), T0), stepAt(T0) + 1);
    for (const bad of ['', '12345', '1234567', '12345a', ' 123456', '１２３４５６']) assert.equal(totpStep(secret, bad, 0, T0), undefined, bad);
  });

  it('makes ten distinct 80-bit recovery codes; their hash ignores case and separators', () => {
    const codes = newRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[0-9a-f]{20}$/);
    const c = codes[0];
    assert.equal(recoveryCodeHash(`${c.slice(0, 5).toUpperCase()}-${c.slice(5, 10)} ${c.slice(10)}`), recoveryCodeHash(c));
    assert.notEqual(recoveryCodeHash(codes[1]), recoveryCodeHash(c));
    assert.match(recoveryCodeHash(c), /^[0-9a-f]{64}$/);
  });

  it('seals the secret under the key and its associated data only', () => {
    const key = randomBytes(32);
    const sealed = sealTotpSecret(key, 'JBSWY3DPEHPK3PXP', 'svc:totp:v1');
    assert.ok(!sealed.includes('JBSWY3DPEHPK3PXP'));
    assert.equal(openTotpSecret(key, sealed, 'svc:totp:v1'), 'JBSWY3DPEHPK3PXP');
    assert.throws(() => openTotpSecret(key, sealed, 'other:totp:v1'));
    assert.throws(() => openTotpSecret(randomBytes(32), sealed, 'svc:totp:v1'));
  });

  it('tells the seconds left of a lock', () => {
    assert.equal(totpLockSeconds(null, T0), undefined);
    assert.equal(totpLockSeconds(new Date(T0 - 1), T0), undefined);
    assert.equal(totpLockSeconds(new Date(T0 + 900_000), T0), 900);
    assert.equal(totpLockSeconds(new Date(T0 + 10).toISOString(), T0), 1);
  });
});

describe('kit sealed tokens', () => {
  it('open only as their kind, with their claims, before their expiry', () => {
    const key = randomBytes(32);
    const t = sealToken(key, 'svc:mfa:v1', { d: 'dev-1' }, 60_000);
    assert.deepEqual(openToken(key, 'svc:mfa:v1', t, ['d']), { d: 'dev-1' });
    assert.equal(openToken(key, 'svc:appeal:v1', t, ['d']), undefined);
    assert.equal(openToken(randomBytes(32), 'svc:mfa:v1', t, ['d']), undefined);
    assert.equal(openToken(key, 'svc:mfa:v1', t, ['d', 'missing']), undefined);
    assert.equal(openToken(key, 'svc:mfa:v1', 'not a token', ['d']), undefined);
    assert.equal(openToken(key, 'svc:mfa:v1', sealToken(key, 'svc:mfa:v1', { d: 'x' }, -1), ['d']), undefined);
    assert.throws(() => sealToken(undefined, 'svc:mfa:v1', {}, 1000), /master key/);
  });
});
