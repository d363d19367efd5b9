// Service callers: X-Internal-Key, GET /internal/accounts/{id}, the forwarded player address.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '@platform/kit/testing';
import { bearer, guest, harness, type Harness } from './support/harness.js';

const REGISTRY_KEY = 'registry-secret-0123456789';
const MATCH_KEY = 'matchmaking-secret-9876543210';

describe('internal callers', () => {
  let h: Harness;
  const logs = captureLogs();
  before(async () => {
    h = await harness({ AUTH_INTERNAL_KEYS: `registry:${REGISTRY_KEY},matchmaking:${MATCH_KEY}`, LOG_LEVEL: 'debug' }, { logStream: logs.stream });
  });
  after(() => h.close());

  it('GET /internal/accounts/{id} answers for any configured caller', async () => {
    const g = await guest(h.app);
    for (const key of [REGISTRY_KEY, MATCH_KEY]) {
      const r = await h.app.inject({ url: `/internal/accounts/${g.account_id}`, headers: { 'x-internal-key': key } });
      assert.equal(r.statusCode, 200);
      assert.equal(r.json().id, g.account_id);
      assert.equal(r.json().status, 'active');
      assert.equal(r.json().is_guest, true);
    }
  });

  it('unknown, malformed and deleted accounts are 404 account_not_found', async () => {
    const g = await guest(h.app);
    assert.equal((await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(g.access_token) })).statusCode, 202);
    for (const id of [g.account_id, '00000000-0000-4000-8000-000000000000', 'nope', 'x'.repeat(200)]) {
      const r = await h.app.inject({ url: `/internal/accounts/${id}`, headers: { 'x-internal-key': REGISTRY_KEY } });
      assert.equal(r.statusCode, 404, id);
      assert.equal(r.json().code, 'account_not_found');
    }
  });

  it('no key → 401 internal_key_required; a wrong key or a player token → 401 invalid_internal_key / internal_key_required', async () => {
    const g = await guest(h.app);
    const url = `/internal/accounts/${g.account_id}`;
    assert.equal((await h.app.inject({ url })).json().code, 'internal_key_required');
    assert.equal((await h.app.inject({ url, headers: bearer(g.access_token) })).json().code, 'internal_key_required');
    for (const key of ['', 'registry', REGISTRY_KEY + ' ', REGISTRY_KEY.toUpperCase(), `registry:${REGISTRY_KEY}`]) {
      const r = await h.app.inject({ url, headers: { 'x-internal-key': key } });
      assert.equal(r.statusCode, 401, key);
      assert.equal(r.json().code, 'invalid_internal_key');
    }
  });

  it('an internal caller may name the player address; without a valid key the header is ignored', async () => {
    const fwd = (key?: string) =>
      h.app.inject({
        method: 'POST',
        url: '/guest',
        payload: { device_fingerprint: `fp-${Math.random().toString(36).slice(2)}-long` },
        headers: { 'x-platform-client-ip': '203.0.113.7', ...(key ? { 'x-internal-key': key } : {}) },
      });
    const withKey = await fwd(REGISTRY_KEY);
    const withoutKey = await fwd();
    const wrongKey = await fwd('wrong-key-wrong-key');
    const ipOf = async (accountId: string) =>
      (await h.tdb.db.query<{ ip: string }>(`SELECT ip FROM audit_log WHERE account_id = $1 AND event = 'login'`, [accountId])).rows[0]?.ip;
    assert.equal(await ipOf(withKey.json().account_id), '203.0.113.7');
    assert.notEqual(await ipOf(withoutKey.json().account_id), '203.0.113.7');
    assert.notEqual(await ipOf(wrongKey.json().account_id), '203.0.113.7');
  });

  it('never logs an internal key', () => {
    const text = logs.text();
    assert.ok(text.length > 0);
    assert.ok(!text.includes(REGISTRY_KEY) && !text.includes(MATCH_KEY));
  });

  it('without AUTH_INTERNAL_KEYS every key is refused', async () => {
    const other = await harness();
    try {
      const g = await guest(other.app);
      const r = await other.app.inject({ url: `/internal/accounts/${g.account_id}`, headers: { 'x-internal-key': REGISTRY_KEY } });
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().code, 'invalid_internal_key');
    } finally {
      await other.close();
    }
  });
});
