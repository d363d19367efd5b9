// The access-token contract shared by the auth service (signer) and every
// verifier: both formats, kid = PASERK k4.pid, remote key sets.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, createPublicKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { decodeJwt, jwtVerify } from 'jose';
import {
  paserkPid,
  publicJwk,
  signAccessToken,
  createAccessTokenVerifier,
  remoteKeyResolver,
  staticKeyResolver,
  tokenKid,
  type SigningKey,
  type AccessTokenInput,
} from '../src/access-token.js';

const vectors = path.resolve(import.meta.dirname, '../../../../shared/vectors');

function newKey(): SigningKey & { publicKey: ReturnType<typeof createPublicKey> } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, kid: publicJwk(publicKey).kid };
}

const claims = (over: Partial<AccessTokenInput> = {}): AccessTokenInput => {
  const now = Math.floor(Date.now() / 1000);
  return { sub: randomUUID(), sid: randomUUID(), platform: 'guest', roles: ['player'], region: 'eu', jti: randomUUID(), iat: now, exp: now + 600, ...over };
};

describe('PASERK k4.pid', () => {
  const file = JSON.parse(readFileSync(path.join(vectors, 'paserk-k4.pid.json'), 'utf8'));
  for (const t of file.tests as { name: string; 'expect-fail': boolean; key: string; paserk: string | null }[]) {
    it(t.name, () => {
      const raw = Buffer.from(t.key, 'hex');
      if (t['expect-fail']) assert.throws(() => paserkPid(raw));
      else assert.equal(paserkPid(raw), t.paserk);
    });
  }
});

describe('access tokens', () => {
  const key = newKey();
  const other = newKey();
  const verify = createAccessTokenVerifier({
    issuer: 'https://auth.test',
    audience: 'platform',
    keys: staticKeyResolver(() => new Map([[key.kid, key.publicKey]])),
  });

  for (const format of ['paseto', 'jwt'] as const) {
    it(`${format}: signs and verifies with kid, claims and unix times`, async () => {
      const c = claims();
      const token = await signAccessToken(format, key, 'https://auth.test', 'platform', c);
      if (format === 'paseto') assert.match(token, /^v4\.public\./);
      assert.deepEqual(tokenKid(token), { format, kid: key.kid });
      const got = await verify(token);
      assert.deepEqual(got, { ...c, iatMs: c.iat * 1000, iss: 'https://auth.test', aud: 'platform', kid: key.kid, format, guest: false });
    });

    it(`${format}: a guest account's token carries guest: true; other tokens carry no guest claim and read as not a guest`, async () => {
      const guest = signAccessToken(format, key, 'https://auth.test', 'platform', claims({ guest: true }));
      const player = signAccessToken(format, key, 'https://auth.test', 'platform', claims());
      const payload = (t: string) => (format === 'paseto' ? JSON.parse(Buffer.from(t.split('.')[2], 'base64url').subarray(0, -64).toString()) : decodeJwt(t));
      assert.equal(payload(guest).guest, true);
      assert.equal('guest' in payload(player), false);
      assert.equal((await verify(guest)).guest, true);
      assert.equal((await verify(player)).guest, false);
      // Signed without the claim (guest: false is not written): not a guest.
      assert.equal((await verify(signAccessToken(format, key, 'https://auth.test', 'platform', claims({ guest: false })))).guest, false);
      if (format === 'jwt') await jwtVerify(guest, key.publicKey, { issuer: 'https://auth.test', audience: 'platform' });
    });

    it(`${format}: iat carries milliseconds (iatMs) when signed with them; whole seconds read as the start of the second`, async () => {
      const ms = Date.now() - 5000;
      const at = Math.floor(ms / 1000) * 1000 + 123;
      const c = claims({ iat: at / 1000 });
      const token = signAccessToken(format, key, 'https://auth.test', 'platform', c);
      const got = await verify(token);
      assert.deepEqual([got.iatMs, got.iat], [at, Math.floor(at / 1000)]);
      const payload = format === 'paseto' ? JSON.parse(Buffer.from(token.split('.')[2], 'base64url').subarray(0, -64).toString()) : decodeJwt(token);
      if (format === 'paseto') assert.match(payload.iat, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.123\+00:00$/);
      else assert.equal(payload.iat, at / 1000);
      // Independent verifiers accept it.
      if (format === 'jwt') await jwtVerify(token, key.publicKey, { issuer: 'https://auth.test', audience: 'platform' });
      const whole = await verify(signAccessToken(format, key, 'https://auth.test', 'platform', claims({ iat: Math.floor(at / 1000) })));
      assert.equal(whole.iatMs, Math.floor(at / 1000) * 1000);
    });

    it(`${format}: refuses wrong issuer, audience, expiry, unknown key and tampering`, async () => {
      const sign = (iss: string, aud: string, c = claims(), k: SigningKey = key) => signAccessToken(format, k, iss, aud, c);
      const now = Math.floor(Date.now() / 1000);
      const cases = [
        await sign('https://evil.test', 'platform'),
        await sign('https://auth.test', 'other'),
        await sign('https://auth.test', 'platform', claims({ iat: now - 1200, exp: now - 600 })),
        await sign('https://auth.test', 'platform', claims(), other),
        await sign('https://auth.test', 'platform', claims(), { kid: key.kid, privateKey: other.privateKey }),
      ];
      const good = await sign('https://auth.test', 'platform');
      cases.push(good.slice(0, -3) + (good.endsWith('AAA') ? 'BBB' : 'AAA'));
      cases.push('garbage', '');
      for (const t of cases) {
        await assert.rejects(verify(t), (err: any) => err.status === 401 && err.code === 'invalid_token', t.slice(0, 30));
      }
    });
  }
});

describe('remote key set', () => {
  let server: http.Server;
  let url: string;
  let keys = [newKey()];
  let fetches = 0;
  before(async () => {
    server = http.createServer((_req, res) => {
      fetches++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: keys.map((k) => publicJwk(k.publicKey)) }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('fetches once, refetches on an unknown kid, and honours the cooldown', async () => {
    const resolver = remoteKeyResolver({ url, cooldownMs: 60_000 });
    const verify = createAccessTokenVerifier({ issuer: 'i', audience: 'a', keys: resolver });
    const t1 = await signAccessToken('jwt', keys[0], 'i', 'a', claims());
    await verify(t1);
    await verify(t1);
    assert.equal(fetches, 1);
    // A new key published beside the old one: picked up on first sight of its kid.
    const rotated = newKey();
    keys = [keys[0], rotated];
    const resolver2 = remoteKeyResolver({ url, cooldownMs: 0 });
    const verify2 = createAccessTokenVerifier({ issuer: 'i', audience: 'a', keys: resolver2 });
    await verify2(t1);
    const t2 = await signAccessToken('paseto', rotated, 'i', 'a', claims());
    await verify2(t2);
    // With a long cooldown, an unknown kid does not refetch until refresh() (a key_rotation event).
    const before = fetches;
    await assert.rejects(verify(t2));
    assert.equal(fetches, before);
    await resolver.refresh();
    await verify(t2);
  });
});
