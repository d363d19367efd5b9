// The hand-written v4.public verifier against the official PASETO test vectors
// and against claim defects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { signPasetoV4Public, verifyPasetoV4Claims, verifyPasetoV4Public } from '../src/paseto-v4.js';
import { verifyEdDsaJwt } from '../src/jwt-eddsa.js';
import { signAccessToken } from '../src/access-token.js';

const vectors = path.resolve(import.meta.dirname, '../../../../shared/vectors');

describe('PASETO v4.public vectors', () => {
  const file = JSON.parse(readFileSync(path.join(vectors, 'paseto-v4.json'), 'utf8'));
  const publicTests = (file.tests as any[]).filter((t) => t['public-key'] && t.token?.startsWith('v4.public.'));
  it('has public vectors to check', () => assert.ok(publicTests.length >= 3));
  for (const t of publicTests) {
    it(t.name, () => {
      const key = createPublicKey(t['public-key-pem']);
      const implicit = Buffer.from(t['implicit-assertion'] ?? '');
      if (t['expect-fail']) {
        assert.throws(() => verifyPasetoV4Public(t.token, key, implicit));
      } else {
        const { message, footer } = verifyPasetoV4Public(t.token, key, implicit);
        assert.equal(message.toString('utf8'), t.payload);
        assert.equal(footer.toString('utf8'), t.footer);
      }
    });
  }
  // Ed25519 is deterministic: the signer must reproduce every 4-S token byte for byte.
  for (const t of publicTests.filter((x) => !x['expect-fail'] && x['secret-key-pem'])) {
    it(`${t.name} is reproduced byte for byte by the signer`, () => {
      const token = signPasetoV4Public(
        Buffer.from(t.payload),
        createPrivateKey(t['secret-key-pem']),
        Buffer.from(t.footer),
        Buffer.from(t['implicit-assertion'] ?? ''),
      );
      assert.equal(token, t.token);
    });
  }
  it('has signing vectors to reproduce', () => assert.ok(publicTests.filter((x) => !x['expect-fail'] && x['secret-key-pem']).length >= 3));

  it('refuses a local token and a token signed by another key', () => {
    const t = publicTests[0];
    const other = generateKeyPairSync('ed25519').publicKey;
    assert.throws(() => verifyPasetoV4Public(t.token, other));
    assert.throws(() => verifyPasetoV4Public(t.token.replace('v4.public.', 'v4.local.'), createPublicKey(t['public-key-pem'])));
    assert.throws(() => verifyPasetoV4Public(t.token.replace('v4.public.', 'v4.public.*'), createPublicKey(t['public-key-pem'])));
  });
});

/** A platform access token (iss https://auth.test, aud platform) with the given times. */
const signTestToken = (format: 'paseto' | 'jwt', privateKey: KeyObject, iat: number, exp: number) =>
  signAccessToken(format, { kid: 'k', privateKey }, 'https://auth.test', 'platform', {
    sub: randomUUID(),
    sid: randomUUID(),
    platform: 'guest',
    roles: [],
    region: 'eu',
    jti: randomUUID(),
    iat,
    exp,
  });

describe('PASETO v4.public claims', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const opts = { issuer: 'https://auth.test', audience: 'platform', clockTolerance: 30, requiredClaims: ['exp', 'iat', 'sub', 'jti'] };
  const now = Math.floor(Date.now() / 1000);
  const sign = (iat: number, exp: number) => signTestToken('paseto', privateKey, iat, exp);

  it('accepts a current token and returns its claims', async () => {
    const p = verifyPasetoV4Claims(await sign(now, now + 600), publicKey, opts);
    assert.equal(p.iss, 'https://auth.test');
    assert.equal(typeof p.exp, 'string');
  });
  it('refuses expired, future, wrong issuer or audience, and missing required claims', async () => {
    const token = await sign(now, now + 600);
    assert.throws(() => verifyPasetoV4Claims(token, publicKey, { ...opts, issuer: 'x' }), /iss/);
    assert.throws(() => verifyPasetoV4Claims(token, publicKey, { ...opts, audience: 'x' }), /aud/);
    assert.throws(() => verifyPasetoV4Claims(token, publicKey, { ...opts, requiredClaims: ['nope'] }), /nope/);
    const expired = await sign(now - 1200, now - 600);
    const future = await sign(now + 600, now + 1200);
    assert.throws(() => verifyPasetoV4Claims(expired, publicKey, opts), /expired/);
    assert.throws(() => verifyPasetoV4Claims(future, publicKey, opts), /future/);
    // Within the tolerance: accepted.
    verifyPasetoV4Claims(await sign(now - 620, now - 10), publicKey, opts);
  });
});

describe('EdDSA JWT (hand-written verifier)', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');
  const opts = { issuer: 'https://auth.test', audience: 'platform', clockTolerance: 30, requiredClaims: ['exp', 'iat', 'sub', 'jti'] };
  const now = Math.floor(Date.now() / 1000);
  const sign = (iat: number, exp: number, key = privateKey) => signTestToken('jwt', key, iat, exp);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

  it('accepts a current token and returns its claims', async () => {
    const p = verifyEdDsaJwt(await sign(now, now + 600), publicKey, opts);
    assert.equal(p.iss, 'https://auth.test');
    assert.equal(p.exp, now + 600);
  });
  it('refuses expired, not-yet-valid, wrong issuer or audience, other keys, other algorithms, crit and tampering', async () => {
    const token = await sign(now, now + 600);
    const [h, p, s] = token.split('.');
    assert.throws(() => verifyEdDsaJwt(token, publicKey, { ...opts, issuer: 'x' }), /iss/);
    assert.throws(() => verifyEdDsaJwt(token, publicKey, { ...opts, audience: 'x' }), /aud/);
    assert.throws(() => verifyEdDsaJwt(token, publicKey, { ...opts, requiredClaims: ['nope'] }), /nope/);
    assert.throws(() => verifyEdDsaJwt(token, other.publicKey, opts), /signature/);
    const expired = await sign(now - 1200, now - 600);
    assert.throws(() => verifyEdDsaJwt(expired, publicKey, opts), /expired/);
    assert.throws(() => verifyEdDsaJwt(token, publicKey, { ...opts, now: (now + 700) * 1000 }), /expired/);
    assert.throws(() => verifyEdDsaJwt(`${b64({ alg: 'none' })}.${p}.`, publicKey, opts), /alg/);
    assert.throws(() => verifyEdDsaJwt(`${b64({ alg: 'HS256' })}.${p}.${s}`, publicKey, opts), /alg/);
    assert.throws(() => verifyEdDsaJwt(`${b64({ alg: 'EdDSA', crit: ['x'], x: 1 })}.${p}.${s}`, publicKey, opts), /crit/);
    assert.throws(() => verifyEdDsaJwt(`${h}.${b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'x' })}.${s}`, publicKey, opts), /signature/);
    assert.throws(() => verifyEdDsaJwt(`${h}.${p}`, publicKey, opts), /compact/);
    // Within the tolerance: accepted.
    verifyEdDsaJwt(await sign(now - 620, now - 10), publicKey, opts);
  });
});
