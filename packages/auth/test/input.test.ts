// Every endpoint with bad input answers 4xx with a code, never 5xx; the client IP behind a proxy.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, guest, bearer } from './support/harness.js';

const INTERNAL_KEY = 'registry-secret-0123456789';

describe('bad input on every endpoint', () => {
  const h = useHarness({ AUTH_TRUST_PROXY: '127.0.0.1', AUTH_INTERNAL_KEYS: `registry:${INTERNAL_KEY}` });
  let token: string;
  before(async () => {
    token = (await guest(h.app)).access_token;
  });

  const posts = ['/guest', '/guest/restore', '/register', '/login', '/platform', '/refresh', '/logout', '/account/link', '/account/unlink', '/admin/keys/rotate'];

  it('malformed JSON → 400 malformed_json', async () => {
    for (const url of [...posts, '/account']) {
      const r = await h.app.inject({ method: url === '/account' ? 'PATCH' : 'POST', url, headers: { 'content-type': 'application/json', ...bearer(token) }, payload: '{"a":' });
      assert.equal(r.statusCode, 400, `${url}: ${r.body}`);
      assert.equal(r.json().code, 'malformed_json', url);
    }
  });

  it('oversized → 413, wrong content type → 415, unknown field / wrong type → 400', async () => {
    for (const url of posts) {
      const big = await h.app.inject({ method: 'POST', url, headers: bearer(token), payload: { x: 'y'.repeat(70_000) } });
      assert.equal(big.statusCode, 413, url);
      const xml = await h.app.inject({ method: 'POST', url, headers: { 'content-type': 'text/xml', ...bearer(token) }, payload: '<a/>' });
      assert.equal(xml.statusCode, 415, url);
      const unknown = await h.app.inject({ method: 'POST', url, headers: bearer(token), payload: { surprise: true } });
      assert.ok(unknown.statusCode >= 400 && unknown.statusCode < 500, `${url}: ${unknown.statusCode}`);
      assert.equal(typeof unknown.json().code, 'string');
      const array = await h.app.inject({ method: 'POST', url, headers: bearer(token), payload: [1, 2] as never });
      assert.ok(array.statusCode >= 400 && array.statusCode < 500, `${url}: ${array.statusCode} ${array.body}`);
    }
  });

  it('Bearer endpoints without or with a bad token → 401', async () => {
    // Valid bodies, so that only the token is wrong (bodies are validated before the handler runs).
    const cases: [string, string, object | undefined][] = [
      ['GET', '/account', undefined],
      ['PATCH', '/account', { display_name: 'x' }],
      ['POST', '/account/link', { provider: 'idp_a', ticket: 't' }],
      ['POST', '/account/unlink', { provider: 'guest' }],
      ['POST', '/account/export', undefined],
      ['DELETE', '/account', undefined],
      ['POST', '/admin/keys/rotate', undefined],
    ];
    for (const [method, url, payload] of cases) {
      const none = await h.app.inject({ method: method as 'GET', url, payload });
      assert.equal(none.statusCode, 401, `${method} ${url}: ${none.body}`);
      assert.equal(none.json().code, 'unauthenticated');
      const bad = await h.app.inject({ method: method as 'GET', url, headers: { authorization: 'Bearer v4.public.AAAA.BBBB' }, payload });
      assert.equal(bad.statusCode, 401, `${method} ${url}: ${bad.body}`);
      assert.equal(bad.json().code, 'invalid_token');
    }
    const basic = await h.app.inject({ method: 'GET', url: '/account', headers: { authorization: 'Basic dTpw' } });
    assert.equal(basic.json().code, 'unauthenticated');
  });

  it('behind a trusted proxy the audit entry carries the forwarded client IP', async () => {
    const r = await h.app.inject({ method: 'POST', url: '/guest', headers: { 'x-forwarded-for': '203.0.113.7' }, payload: { device_fingerprint: 'proxied-device-1' } });
    assert.equal(r.statusCode, 200);
    const row = await h.tdb.db.query(`SELECT ip FROM audit_log WHERE account_id = $1`, [r.json().account_id]);
    assert.equal(row.rows[0].ip, '203.0.113.7');
    const s = await h.tdb.db.query(`SELECT ip_cidr FROM sessions WHERE account_id = $1`, [r.json().account_id]);
    assert.equal(s.rows[0].ip_cidr, '203.0.113.0/24');
  });

  it('text PostgreSQL cannot store (NUL, an unpaired surrogate) → 400 invalid_character naming the field, in body, path and query', async () => {
    const cases: [string, string, Record<string, string>, object | undefined, string][] = [
      ['POST', '/guest', {}, { device_fingerprint: 'device\u0000one' }, 'device_fingerprint'],
      ['POST', '/register', {}, { email: 'nul@example.test', password: 'long-enough-password-1', display_name: 'Nu\u0000l' }, 'display_name'],
      ['PATCH', '/account', bearer(token), { display_name: 'lone \udfff' }, 'display_name'],
      ['GET', '/internal/accounts/%00', { 'x-internal-key': INTERNAL_KEY }, undefined, 'id'],
      ['GET', '/account?handle=%00', bearer(token), undefined, 'handle'],
    ];
    for (const [method, url, headers, payload, field] of cases) {
      const r = await h.app.inject({ method: method as 'GET', url, headers, payload });
      assert.equal(r.statusCode, 400, `${method} ${url}: ${r.body}`);
      assert.deepEqual([r.json().code, r.json().field], ['invalid_character', field], url);
    }
    const deep = await h.app.inject({ method: 'PATCH', url: '/account', headers: { ...bearer(token), 'content-type': 'application/json' }, payload: `{"display_name":${'['.repeat(6000)}${']'.repeat(6000)}}` });
    assert.equal(deep.json().code, 'too_deep');
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(token) })).statusCode, 200);
  });
});
