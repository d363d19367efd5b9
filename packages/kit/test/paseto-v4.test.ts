// The hand-written v4.public verifier against the official PASETO test vectors
// and against claim defects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRfc3339, signPasetoV4Public, verifyPasetoV4Claims, verifyPasetoV4Public } from '../src/paseto-v4.js';
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
  it('refuses a token with more than one footer separator, and a footer that is not base64url', () => {
    const t = publicTests.find((x) => !x['expect-fail'] && x.footer);
    const key = createPublicKey(t['public-key-pem']);
    assert.throws(() => verifyPasetoV4Public(`${t.token}.x`, key), /malformed/);
    assert.throws(() => verifyPasetoV4Public(`${t.token}*`, key), /footer/);
    // The same footer decoded from the cache a second time still verifies, and a changed one does not.
    assert.equal(verifyPasetoV4Public(t.token, key).footer.toString(), t.footer);
    assert.throws(() => verifyPasetoV4Public(`${t.token.slice(0, t.token.lastIndexOf('.'))}.${Buffer.from('{}').toString('base64url')}`, key), /signature/);
  });
});

describe('RFC 3339 times (PASETO time claims)', () => {
  it('reads what Date.parse reads, for every offset and fraction', () => {
    for (let i = 0; i < 2000; i++) {
      const t = Math.floor(Math.random() * 4e12);
      const iso = new Date(t).toISOString();
      assert.equal(parseRfc3339(iso), t);
      assert.equal(parseRfc3339(iso.replace(/\.\d{3}Z$/, '+00:00')), Math.floor(t / 1000) * 1000);
      const offset = `${i % 2 ? '-' : '+'}${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
      const shifted = iso.replace('Z', offset);
      assert.equal(parseRfc3339(shifted), Date.parse(shifted), shifted);
    }
    assert.equal(parseRfc3339('2026-11-21T10:00:00.123456Z'), Date.parse('2026-11-21T10:00:00.123Z'));
    assert.equal(parseRfc3339('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
    assert.equal(parseRfc3339('0099-01-01T00:00:00Z'), new Date('0099-01-01T00:00:00Z').getTime());
  });
  it('refuses what is not an RFC 3339 date-time or names no real instant', () => {
    for (const bad of [
      '',
      '2026-11-21',
      '2026-11-21T10:00:00',
      '2026-11-21 10:00:00Z',
      '2026-11-21t10:00:00Z',
      '2026-11-21T10:00:00z',
      '2026-11-21T10:00:00.Z',
      '2026-11-21T10:00:00ZZ',
      '2026-11-21T10:00:00+0200',
      '2026-11-21T10:00:00+24:00',
      '2026-1a-21T10:00:00Z',
      '+02026-11-21T10:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-11-21T24:00:00Z',
      '2026-11-21T23:60:00Z',
      '2026-11-21T23:59:60Z',
    ]) {
      assert.ok(Number.isNaN(parseRfc3339(bad)), bad);
    }
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
  it('refuses a time claim that is not an RFC 3339 string', () => {
    for (const exp of [Math.floor(Date.now() / 1000) + 600, '2026-02-31T00:00:00Z', 'tomorrow']) {
      const claims = { iss: 'https://auth.test', aud: 'platform', sub: 's', jti: 'j', iat: new Date().toISOString(), exp };
      const token = signPasetoV4Public(Buffer.from(JSON.stringify(claims)), privateKey);
      assert.throws(() => verifyPasetoV4Claims(token, publicKey, opts), /exp is not an RFC 3339 time/);
    }
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
