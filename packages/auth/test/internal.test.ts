// Service callers: X-Internal-Key, GET /internal/accounts/{id}, POST /internal/server-token, the forwarded player address.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccessTokenVerifier, staticKeyResolver } from '@platform/kit';
import { captureLogs } from '@platform/kit/testing';
import { bearer, guest, harness, useHarness, assertError } from './support/harness.js';

const REGISTRY_KEY = 'registry-secret-0123456789';
const MATCH_KEY = 'matchmaking-secret-9876543210';

describe('internal callers', () => {
  const logs = captureLogs();
  const h = useHarness({ AUTH_INTERNAL_KEYS: `registry:${REGISTRY_KEY},matchmaking:${MATCH_KEY}`, LOG_LEVEL: 'debug' }, { logStream: logs.stream });

  it('GET /internal/accounts/{id} answers for any configured caller', async () => {
    const g = await guest(h.app);
    for (const key of [REGISTRY_KEY, MATCH_KEY]) {
      const r = await h.app.inject({ url: `/internal/accounts/${g.account_id}`, headers: { 'x-internal-key': key } });
      assert.equal(r.statusCode, 200);
      assert.equal(r.json().id, g.account_id);
      assert.equal(r.json().status, 'active');
      assert.equal(r.json().is_guest, true);
      assert.equal(r.json().guest_standing, 'normal', 'a guest’s standing: the level only');
      assert.ok(!('score' in r.json()) && !JSON.stringify(r.json()).includes('reasons'));
    }
    // An account that is not a guest has no standing.
    const player = await h.app.inject({ method: 'POST', url: '/register', payload: { email: `std-${Date.now()}@example.test`, password: 'correct horse battery staple', display_name: 'Std' } });
    assert.equal(player.statusCode, 201, player.body);
    const r = await h.app.inject({ url: `/internal/accounts/${player.json().account_id}`, headers: { 'x-internal-key': REGISTRY_KEY } });
    assert.deepEqual([r.json().is_guest, r.json().guest_standing], [false, undefined]);
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

  it('POST /internal/server-token issues a server-role access token named after the caller, and audits it', async () => {
    const verify = createAccessTokenVerifier({ issuer: h.config.issuer, audience: h.config.audience, keys: staticKeyResolver(() => h.app.auth.keys.publicKeys()) });
    for (const [name, key, payload] of [
      ['registry', REGISTRY_KEY, undefined],
      ['matchmaking', MATCH_KEY, {}],
    ] as const) {
      const r = await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': key }, ...(payload ? { payload } : {}) });
      assert.equal(r.statusCode, 200, r.body);
      const body = r.json();
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'roles', 'sub', 'token_type']);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, h.config.accessTtlSeconds);
      const claims = await verify(body.access_token);
      assert.equal(claims.sub, `service:${name}`);
      assert.deepEqual(claims.roles, ['server']);
      assert.deepEqual([body.sub, body.roles], [claims.sub, claims.roles]);
      assert.equal(claims.exp - claims.iat, h.config.accessTtlSeconds);
      const audited = await h.tdb.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log WHERE event = 'login' AND account_id IS NULL AND detail->>'method' = 'internal_key' AND detail->>'service' = $1`,
        [name],
      );
      assert.ok(audited.rows[0].n >= 1, 'audited');
    }
    // A player's token (no server role) is not a server token: the two differ in role.
    const g = await guest(h.app);
    assert.deepEqual((await verify(g.access_token)).roles.includes('server'), false);
  });

  it('POST /internal/server-token: no key, a wrong key or a player token → 401; a body with fields, a non-object or malformed JSON → 400; oversized → 413; not JSON → 415', async () => {
    const g = await guest(h.app);
    const post = (headers: Record<string, string>, payload?: string) =>
      h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, payload });
    assert.equal((await post({})).json().code, 'internal_key_required');
    assert.equal((await post(bearer(g.access_token))).json().code, 'internal_key_required');
    for (const key of ['x', REGISTRY_KEY.slice(1), `${MATCH_KEY}x`]) {
      const r = await post({ 'x-internal-key': key });
      assertError(r, 401, 'invalid_internal_key');
    }
    for (const [payload, code] of [
      ['{"roles":["admin"]}', 'validation_failed'],
      ['{"sub":"service:x"}', 'validation_failed'],
      ['[]', 'validation_failed'],
      ['"x"', 'validation_failed'],
      ['{"a":', 'malformed_json'],
      ['{', 'malformed_json'],
    ]) {
      const r = await post({ 'x-internal-key': REGISTRY_KEY }, payload);
      assert.equal(r.statusCode, 400, payload);
      assert.equal(r.json().code, code, payload);
    }
    const big = await post({ 'x-internal-key': REGISTRY_KEY }, JSON.stringify({ pad: 'x'.repeat(70_000) }));
    assert.equal(big.statusCode, 413);
    assertError(await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': REGISTRY_KEY, 'content-type': 'text/xml' }, payload: '<a/>' }), 415, 'unsupported_media_type');
    // Plain text is parsed as a string (Fastify's text parser), and a string is not an empty body.
    const text = await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': REGISTRY_KEY, 'content-type': 'text/plain' }, payload: 'hello' });
    assertError(text, 400, 'validation_failed');
  });

  it('POST /internal/server-token {game_id}: the token carries the game (social takes it for that game’s rosters); a bad game_id → 400', async () => {
    const verify = createAccessTokenVerifier({ issuer: h.config.issuer, audience: h.config.audience, keys: staticKeyResolver(() => h.app.auth.keys.publicKeys()) });
    const game = '6f1c2a44-3b1e-4c8e-9a57-0d2f4b7e8c11';
    const r = await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': MATCH_KEY }, payload: { game_id: game.toUpperCase() } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().game, game);
    const claims = await verify(r.json().access_token);
    assert.deepEqual([claims.sub, claims.roles, claims.game], ['service:matchmaking', ['server'], game]);
    const audited = await h.tdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE event = 'login' AND detail->>'game' = $1`, [game]);
    assert.equal(audited.rows[0].n, 1);
    // Without one, no claim (the tokens of before are unchanged).
    const plain = await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': MATCH_KEY } });
    assert.equal((await verify(plain.json().access_token)).game, undefined);
    assert.ok(!('game' in plain.json()));
    for (const payload of [{ game_id: 'not-a-uuid' }, { game_id: '' }, { game_id: 5 }, { game_id: null }, { game_id: game, extra: 1 }]) {
      assertError(await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': MATCH_KEY }, payload }), 400, 'validation_failed');
    }
    const g = await guest(h.app);
    assertError(await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: bearer(g.access_token), payload: { game_id: game } }), 401, 'internal_key_required');
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
      assertError(await other.app.inject({ url: `/internal/accounts/${g.account_id}`, headers: { 'x-internal-key': REGISTRY_KEY } }), 401, 'invalid_internal_key');
    } finally {
      await other.close();
    }
  });
});
