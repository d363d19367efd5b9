// POST /auth/validate-key: the hot path, its cache and cross-node invalidation.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '@platform/kit';
import { assertError, bearer, createGame, harness, loginAdmin, registerDeveloper, type Dev, type Harness } from './helpers.js';

const validate = (app: App, ApiKey: string, ApiSecret: string) => app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey, ApiSecret } });

describe('validate-key', () => {
  let h: Harness;
  let dev: Dev;
  before(async () => {
    // A long cache life: only invalidation can explain a refusal right after a change.
    h = await harness({ keyCacheTtlMs: 60_000 });
    dev = await registerDeveloper(h.app);
  });
  after(() => h.drop());

  it('accepts the right pair with the game id and its visibility', async () => {
    const g = await createGame(h.app, dev.token);
    const r = await validate(h.app, g.apiKey, g.apiSecret);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { Valid: true, GameId: g.gameId, CrossGameVisibility: 'isolated', GuestRestricted: null, GroupLimits: null, PlatformFriends: 'suggest', TextFilter: { Mode: 'mask', AllowList: [], DenyList: [], Version: 1 } });
    // Cached now; still right.
    assert.deepEqual((await validate(h.app, g.apiKey, g.apiSecret)).json().Valid, true);
  });

  it('refuses an unknown key or a wrong secret with 401 Valid false', async () => {
    const g = await createGame(h.app, dev.token);
    const other = await createGame(h.app, dev.token);
    for (const [key, secret] of [
      [g.apiKey, other.apiSecret],
      [g.apiKey, g.apiSecret + 'x'],
      [g.apiKey, ''],
      ['gk_unknown', g.apiSecret],
      ['', ''],
    ]) {
      const r = await validate(h.app, key, secret);
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().Valid, false);
      assert.equal(r.json().Code, 'invalid_api_key');
      assert.equal(r.json().GameId, undefined);
    }
  });

  it('validates the body', async () => {
    for (const payload of [{}, { ApiKey: 'a' }, { ApiKey: 1, ApiSecret: 'b' }, { ApiKey: 'a', ApiSecret: 'b', Extra: 1 }, { ApiKey: 'a', ApiSecret: 'x'.repeat(300) }]) {
      assertError(await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload }), 400, 'validation_failed');
    }
    assertError(await h.app.inject({ method: 'POST', url: '/auth/validate-key', headers: { 'content-type': 'application/json' }, payload: 'nope' }), 400, 'malformed_json');
    assertError(await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: 'x'.repeat(70_000), ApiSecret: 'b' } }), 413, 'payload_too_large');
  });

  it('refuses a regenerated secret immediately, even though it was cached', async () => {
    const g = await createGame(h.app, dev.token);
    assert.equal((await validate(h.app, g.apiKey, g.apiSecret)).statusCode, 200);
    const r = await h.app.inject({ method: 'POST', url: `/games/${g.gameId}/regenerate-key`, headers: bearer(dev.token) });
    assert.equal(r.statusCode, 200);
    const { Game, ApiSecret } = r.json();
    assert.equal(Game.ApiKey, g.apiKey, 'the public key stays');
    assert.notEqual(ApiSecret, g.apiSecret);
    assert.equal((await validate(h.app, g.apiKey, g.apiSecret)).statusCode, 401);
    assert.equal((await validate(h.app, g.apiKey, ApiSecret)).statusCode, 200);
  });

  it('reports a changed visibility at once', async () => {
    const g = await createGame(h.app, dev.token);
    assert.equal((await validate(h.app, g.apiKey, g.apiSecret)).json().CrossGameVisibility, 'isolated');
    await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(dev.token), payload: { CrossGameVisibility: 'summary' } });
    assert.equal((await validate(h.app, g.apiKey, g.apiSecret)).json().CrossGameVisibility, 'summary');
  });

  it('reports the game’s guest restrictions, changed at once (null: the deployment’s)', async () => {
    const g = await createGame(h.app, dev.token);
    assert.equal((await validate(h.app, g.apiKey, g.apiSecret)).json().GuestRestricted, null);
    await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(dev.token), payload: { GuestRestricted: ['party_chat'] } });
    assert.deepEqual((await validate(h.app, g.apiKey, g.apiSecret)).json().GuestRestricted, ['party_chat']);
  });

  it('lets the super-admin regenerate any game', async () => {
    const admin = await loginAdmin(h.app);
    const g = await createGame(h.app, dev.token);
    const r = await h.app.inject({ method: 'POST', url: `/games/${g.gameId}/regenerate-key`, headers: bearer(admin.token) });
    assert.equal(r.statusCode, 200);
    assert.equal((await validate(h.app, g.apiKey, r.json().ApiSecret)).statusCode, 200);
  });

  it('drops cached entries on other nodes through the state store', async () => {
    const nodeB = await h.build();
    const g = await createGame(h.app, dev.token);
    // Node B caches the key.
    assert.equal((await validate(nodeB, g.apiKey, g.apiSecret)).statusCode, 200);
    const r = await h.app.inject({ method: 'POST', url: `/games/${g.gameId}/regenerate-key`, headers: bearer(dev.token) });
    const fresh = r.json().ApiSecret;
    // The invalidation travels asynchronously (pub/sub); wait for node B to take the new secret,
    // which it cannot do from its 60-second cache entry.
    let accepted = false;
    for (let i = 0; i < 200 && !accepted; i++) {
      accepted = (await validate(nodeB, g.apiKey, fresh)).statusCode === 200;
      if (!accepted) await new Promise((res) => setTimeout(res, 10));
    }
    assert.ok(accepted, 'node B learnt the new secret');
    assert.equal((await validate(nodeB, g.apiKey, g.apiSecret)).statusCode, 401);

    // Deleting on node A makes node B refuse the key.
    await h.app.inject({ method: 'DELETE', url: `/games/${g.gameId}`, headers: bearer(dev.token) });
    let refused = false;
    for (let i = 0; i < 200 && !refused; i++) {
      refused = (await validate(nodeB, g.apiKey, fresh)).statusCode === 401;
      if (!refused) await new Promise((res) => setTimeout(res, 10));
    }
    assert.ok(refused, 'node B refuses a deleted game');
  });

  it('reports readiness failing when the state store is gone', async () => {
    const t = await harness();
    await t.state.close();
    const r = await t.app.inject({ url: '/readyz' });
    assert.equal(r.statusCode, 503);
    assert.equal(r.json().Checks.state, 'failing');
    await t.drop();
  });
});
