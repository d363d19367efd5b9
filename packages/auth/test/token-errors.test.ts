// A rejected access token gets one answer whatever the reason (no key id, algorithm or parser text).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { publicJwk, signAccessToken } from '@platform/kit';
import { bearer, guest, useHarness } from './support/harness.js';

describe('access-token rejections are generic', () => {
  const h = useHarness();

  it('bad key id, wrong algorithm, wrong audience, garbage and a revoked session answer the same body', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: randomUUID(), sid: randomUUID(), platform: 'guest', roles: ['player'], region: 'eu', jti: randomUUID(), iat: now, exp: now + 600 };
    const unknownKid = signAccessToken('jwt', { kid: publicJwk(publicKey).kid, privateKey }, h.config.issuer, h.config.audience, claims);
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const hs256 = `${enc({ alg: 'HS256', typ: 'JWT', kid: 'k' })}.${enc(claims)}.${enc({ sig: 1 })}`;
    const g = await guest(h.app);
    const revoked = (await guest(h.app)).access_token;
    assert.equal((await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(revoked) })).statusCode, 204);
    const bodies = [];
    for (const token of [unknownKid, hs256, 'garbage', 'v4.public.' + 'A'.repeat(120), g.access_token.slice(0, -4) + 'AAAA', revoked]) {
      const r = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(token) });
      assert.equal(r.statusCode, 401, token.slice(0, 20));
      const { request_id: _id, ...body } = r.json();
      bodies.push(body);
    }
    for (const b of bodies) assert.deepEqual(b, { code: 'invalid_token', message: 'Access token rejected' });
  });
});
