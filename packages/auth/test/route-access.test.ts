// Every auth route, reached by every spelling of its path, answers as its plain path does for the same
// caller, or reaches no route; the rate-limit exemptions (probes, key set) belong to the route, not the URL.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { routeSpellingMismatches } from '@platform/kit/testing';
import { bearer, guest, harness, useHarness } from './support/harness.js';

describe('route access by the route that runs (auth)', () => {
  const h = useHarness({ AUTH_RATE_GENERAL_PER_IP: '100000', AUTH_RATE_GUEST_PER_IP: '100000', AUTH_GUEST_SCORE_SLOW: '100000', AUTH_GUEST_SCORE_REFUSE: '100000', AUTH_RATE_REFRESH_PER_IP: '100000' });

  it('every route answers every spelling of its path as the plain path, or reaches no route', async () => {
    const { walked, mismatches } = await routeSpellingMismatches(h.app, {
      // No credentials, a fresh player per request (logout or deletion cannot change the next answer), an internal key.
      callers: [async () => ({}), async () => bearer((await guest(h.app)).access_token), async () => ({ 'x-internal-key': 'not-a-key' })],
    });
    assert.ok(walked > 15, `walked ${walked} routes`);
    assert.deepEqual(mismatches, []);
  });

  it('answers a browser preflight for sign-in and the key set (CORS)', async () => {
    for (const url of ['/guest', '/login', '/refresh', '/.well-known/jwks.json']) {
      const r = await h.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      assert.equal(r.statusCode, 204, url);
      assert.equal(r.headers['access-control-allow-origin'], 'http://127.0.0.1:5173', url);
    }
    const g = await h.app.inject({ method: 'POST', url: '/guest', headers: { origin: 'http://127.0.0.1:5173' }, payload: { device_fingerprint: 'cors-device-1' } });
    assert.equal(g.statusCode, 200);
    assert.equal(g.headers['access-control-allow-origin'], 'http://127.0.0.1:5173');
  });

  it('the key set and probes stay unlimited by their route, whatever the spelling; other routes are limited', async () => {
    const limited = await harness({ AUTH_RATE_GENERAL_PER_IP: '3' });
    try {
      for (let i = 0; i < 6; i++) {
        for (const url of ['/.well-known/jwks.json', '/.well-known/%6Awks.json', '/healthz', '/%68ealthz']) {
          assert.equal((await limited.app.inject({ method: 'GET', url })).statusCode, 200, url);
        }
      }
      const codes = [];
      for (let i = 0; i < 5; i++) codes.push((await limited.app.inject({ method: 'GET', url: '/%61ccount' })).statusCode);
      assert.ok(codes.includes(429), `encoded /account is rate limited: ${codes}`);
    } finally {
      await limited.close();
    }
  });
});
