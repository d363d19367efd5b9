// Access tokens: the PASETO v4 vectors through our signing path, independent
// verifiers against the served key set over real HTTPS, TLS 1.3 only, HSTS.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import { PublicProtocol } from 'paseto';
import { VerifyFactory, PublicKeyFromCryptoKey } from 'paseto/v4/public';
import { loadOrCreateTls, remoteKeyResolver, createAccessTokenVerifier, ConfigError, tokenKid, signPasetoV4Public } from '@platform/kit';
import { harness, guest, type Harness } from './support/harness.js';
import { readAuthConfig } from '../src/config.js';

const vectorsFile = path.resolve(import.meta.dirname, '../../../../shared/vectors/paseto-v4.json');

interface Vector {
  name: string;
  'expect-fail': boolean;
  'public-key'?: string;
  'secret-key-seed'?: string;
  'secret-key-pem'?: string;
  'public-key-pem'?: string;
  token: string;
  payload: string | null;
  footer: string;
  'implicit-assertion': string;
}

const importPublic = async (hex: string) =>
  PublicKeyFromCryptoKey((await globalThis.crypto.subtle.importKey('raw', Buffer.from(hex, 'hex'), { name: 'Ed25519' }, true, ['verify'])) as never);

describe('PASETO v4.public test vectors through the signing path', () => {
  const vectors = (JSON.parse(readFileSync(vectorsFile, 'utf8')) as { tests: Vector[] }).tests;
  const verify = new PublicProtocol(VerifyFactory);
  // The vectors' exp lies in 2022: verify "as of" 2021, the library's `now`.
  const then = new Date('2021-06-01T00:00:00Z');

  for (const v of vectors.filter((t) => t.name.startsWith('4-S-'))) {
    it(`${v.name} signs byte for byte and verifies`, async () => {
      // The kit's signer (what signAccessToken calls); Ed25519 is deterministic. The library verifies independently.
      const token = signPasetoV4Public(Buffer.from(v.payload!), createPrivateKey(v['secret-key-pem']!), Buffer.from(v.footer), Buffer.from(v['implicit-assertion']));
      assert.equal(token, v.token);
      const r = await verify.Verify(await importPublic(v['public-key']!), token, { now: then, implicitAssertion: Buffer.from(v['implicit-assertion']) });
      assert.equal(JSON.stringify(r.claims), v.payload);
      assert.equal(Buffer.from(r.footer).toString(), v.footer);
    });
  }

  for (const v of vectors.filter((t) => t.name.startsWith('4-F-'))) {
    it(`${v.name} is rejected`, async () => {
      // 4-F cases carry either an Ed25519 public key or a (wrong-purpose) symmetric key: both must fail.
      const keyHex = v['public-key'] ?? '1eb9dbbbbc047c03fd70604e0071f0987e16b28b757225c11f00415d0e20b1a2';
      await assert.rejects(
        verify.Verify(await importPublic(keyHex), v.token, { now: then, implicitAssertion: Buffer.from(v['implicit-assertion'] ?? '') }),
      );
    });
  }
});

describe('configuration bounds', () => {
  it('refuses an access-token lifetime outside 300–900 s', () => {
    assert.throws(() => readAuthConfig({ AUTH_ACCESS_TOKEN_TTL_SECONDS: '299' }), (e: unknown) => e instanceof ConfigError && /AUTH_ACCESS_TOKEN_TTL_SECONDS/.test(e.message));
    assert.throws(() => readAuthConfig({ AUTH_ACCESS_TOKEN_TTL_SECONDS: '901' }), ConfigError);
    assert.equal(readAuthConfig({}).accessTtlSeconds, 600);
    assert.equal(readAuthConfig({}).schema, 'auth');
    assert.throws(() => readAuthConfig({ AUTH_DB_SCHEMA: 'Auth-1' }), (e: unknown) => e instanceof ConfigError && /AUTH_DB_SCHEMA/.test(e.message));
    assert.equal(readAuthConfig({}).tokenFormat, 'paseto');
  });
});

for (const format of ['paseto', 'jwt'] as const) {
  describe(`${format} tokens over HTTPS, verified independently`, () => {
    let h: Harness;
    let base: string;
    let ca: string;

    before(async () => {
      const material = await loadOrCreateTls({ dir: mkdtempSync(path.join(tmpdir(), 'auth-tls-')) });
      ca = material.cert;
      h = await harness({ AUTH_TOKEN_FORMAT: format, AUTH_ISSUER: 'https://auth.test', AUTH_AUDIENCE: 'game-platform' }, { tls: material });
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      base = `https://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    });
    after(() => h.close());

    const request = (method: string, url: string, body?: unknown) =>
      new Promise<{ status: number; headers: Record<string, unknown>; json: any }>((resolve, reject) => {
        const req = https.request(base + url, { method, ca, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined });
          });
        });
        req.on('error', reject);
        req.end(body ? JSON.stringify(body) : undefined);
      });

    it('serves the key set with HSTS and a 300 s cache lifetime', async () => {
      const r = await request('GET', '/.well-known/jwks.json');
      assert.equal(r.status, 200);
      assert.equal(r.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
      assert.equal(r.headers['cache-control'], 'public, max-age=300');
      assert.equal(r.json.keys.length, 1);
      assert.match(r.json.keys[0].kid, /^k4\.pid\./);
      assert.deepEqual(Object.keys(r.json.keys[0]).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    });

    it('sends HSTS on errors too', async () => {
      const r = await request('GET', '/nowhere');
      assert.equal(r.status, 404);
      assert.equal(r.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    });

    it('refuses a TLS 1.2 client and accepts TLS 1.3', async () => {
      const port = Number(new URL(base).port);
      await assert.rejects(
        new Promise((resolve, reject) => {
          const s = tls.connect({ host: '127.0.0.1', port, ca, maxVersion: 'TLSv1.2', servername: 'localhost' }, () => resolve(s.getProtocol()));
          s.on('error', reject);
        }),
      );
      const protocol = await new Promise((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
          resolve(s.getProtocol());
          s.end();
        });
        s.on('error', reject);
      });
      assert.equal(protocol, 'TLSv1.3');
    });

    it('issues a token with exactly the contract claims, verified by jose/paseto against the served key set', async () => {
      const r = await request('POST', '/guest', { device_fingerprint: 'https-device-0001', platform: 'linux' });
      assert.equal(r.status, 200);
      const token: string = r.json.access_token;
      assert.equal(r.json.expires_in, 600);
      const { kid } = tokenKid(token);
      const jwks = (await request('GET', '/.well-known/jwks.json')).json;
      const jwk = jwks.keys.find((k: { kid: string }) => k.kid === kid);
      assert.ok(jwk, 'the signing key is in the key set');
      let claims: Record<string, unknown>;
      if (format === 'jwt') {
        // jose fetches the key set itself over HTTPS, trusting our self-signed CA through a custom fetch.
        const set = createRemoteJWKSet(new URL(base + '/.well-known/jwks.json'), {
          [customFetch]: async (url: string) => {
            const got = await new Promise<string>((resolve, reject) =>
              https.get(url, { ca }, (res) => {
                let s = '';
                res.on('data', (c) => (s += c));
                res.on('end', () => resolve(s));
              }).on('error', reject),
            );
            return new Response(got, { status: 200, headers: { 'content-type': 'application/json' } });
          },
        });
        const v = await jwtVerify(token, set, { issuer: 'https://auth.test', audience: 'game-platform', algorithms: ['EdDSA'] });
        claims = v.payload as Record<string, unknown>;
        assert.equal(v.protectedHeader.kid, kid);
        await assert.rejects(jwtVerify(token, set, { issuer: 'https://other', audience: 'game-platform' }));
        await assert.rejects(jwtVerify(token, set, { issuer: 'https://auth.test', audience: 'other' }));
        await assert.rejects(jwtVerify(token, set, { issuer: 'https://auth.test', audience: 'game-platform', currentDate: new Date(Date.now() + 700_000) }));
      } else {
        const verify = new PublicProtocol(VerifyFactory);
        const pub = await PublicKeyFromCryptoKey(
          (await globalThis.crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, true, ['verify'])) as never,
        );
        const v = await verify.Verify(pub, token, { issuer: 'https://auth.test', audience: 'game-platform' });
        claims = v.claims as Record<string, unknown>;
        assert.deepEqual(JSON.parse(Buffer.from(v.footer).toString()), { kid });
        await assert.rejects(verify.Verify(pub, token, { issuer: 'https://other', audience: 'game-platform' }));
        await assert.rejects(verify.Verify(pub, token, { issuer: 'https://auth.test', audience: 'other' }));
        await assert.rejects(verify.Verify(pub, token, { issuer: 'https://auth.test', audience: 'game-platform', now: new Date(Date.now() + 700_000) }));
      }
      // A guest's token adds `guest: true` to the spec's claim set (docs/auth.md, "Guests"; absent on other accounts' tokens).
      assert.deepEqual(Object.keys(claims).sort(), ['aud', 'exp', 'guest', 'iat', 'iss', 'jti', 'platform', 'region', 'roles', 'sid', 'sub'].sort());
      assert.equal(claims.guest, true);
      assert.equal(claims.sub, r.json.account_id);
      assert.equal(claims.platform, 'guest');
      assert.deepEqual(claims.roles, ['player']);
      assert.equal(claims.iss, 'https://auth.test');
      assert.equal(claims.aud, 'game-platform');

      // The kit's remote verifier (what social and game servers use) agrees.
      const kitVerify = createAccessTokenVerifier({
        issuer: 'https://auth.test',
        audience: 'game-platform',
        keys: remoteKeyResolver({ url: base + '/.well-known/jwks.json', ca }),
      });
      const c = await kitVerify(token);
      assert.equal(c.sub, r.json.account_id);
      assert.equal(c.exp - c.iat, 600);
    });
  });
}

describe('the public key in the key set is the stored key', () => {
  it('matches the private key the node signs with', async () => {
    const h = await harness();
    try {
      const g = await guest(h.app);
      const jwk = h.app.auth.keys.jwks().keys[0];
      const signing = h.app.auth.keys.signingKey();
      assert.equal(createPublicKey(signing.privateKey).export({ format: 'jwk' }).x, jwk.x);
      assert.equal(tokenKid(g.access_token).kid, jwk.kid);
    } finally {
      await h.close();
    }
  });
});
