// The client key (docs/client-key.md): made with every game, shown in its view, resolved by
// POST /auth/validate-client-key, rotated by POST /games/:id/regenerate-client-key, never a secret's stand-in.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '@platform/kit';
import { assertError, bearer, createGame, useHarness, loginAdmin, registerDeveloper, type Dev } from './helpers.js';

const resolve = (app: App, ClientKey: string) => app.inject({ method: 'POST', url: '/auth/validate-client-key', payload: { ClientKey } });
const regenerate = (app: App, gameId: string, token: string) => app.inject({ method: 'POST', url: `/games/${gameId}/regenerate-client-key`, headers: bearer(token) });

describe('client key', () => {
  const h = useHarness({ keyCacheTtlMs: 60_000 });
  let dev: Dev;
  before(async () => {
    dev = await registerDeveloper(h.app);
  });

  it('every game has its own, shown in its view and list; it resolves to the game and its visibility', async () => {
    const g = await createGame(h.app, dev.token);
    const other = await createGame(h.app, dev.token);
    assert.match(g.clientKey, /^ck_[A-Za-z0-9_-]{32}$/);
    assert.notEqual(g.clientKey, other.clientKey);
    assert.notEqual(g.clientKey, g.apiKey);
    const view = (await h.app.inject({ url: `/games/${g.gameId}`, headers: bearer(dev.token) })).json();
    assert.equal(view.ClientKey, g.clientKey);
    const r = await resolve(h.app, g.clientKey);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { Valid: true, GameId: g.gameId, CrossGameVisibility: 'isolated', GuestRestricted: null, GroupLimits: null, PlatformFriends: 'suggest', TextFilter: { Mode: 'mask', AllowList: [], DenyList: [], Version: 1 } });
    await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(dev.token), payload: { CrossGameVisibility: 'full' } });
    assert.equal((await resolve(h.app, g.clientKey)).json().CrossGameVisibility, 'full', 'a cached entry follows a visibility change');
    await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(dev.token), payload: { GuestRestricted: [] } });
    assert.deepEqual((await resolve(h.app, g.clientKey)).json().GuestRestricted, [], 'and a change of its guest restrictions');
  });

  it('an unknown key, an API key or a secret in its place: 401 invalid_client_key', async () => {
    const g = await createGame(h.app, dev.token);
    for (const key of ['ck_unknown', g.apiKey, g.apiSecret, '', `client:${g.clientKey}`]) {
      const r = await resolve(h.app, key);
      assert.equal(r.statusCode, 401, key);
      assert.deepEqual([r.json().Valid, r.json().Code, r.json().GameId], [false, 'invalid_client_key', undefined]);
    }
  });

  it('never stands in for the API key where the secret is required', async () => {
    const g = await createGame(h.app, dev.token);
    for (const [ApiKey, ApiSecret] of [
      [g.clientKey, g.apiSecret],
      [g.apiKey, g.clientKey],
      [g.clientKey, ''],
      [`client:${g.clientKey}`, ''],
    ]) {
      const r = await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey, ApiSecret } });
      assert.deepEqual([r.statusCode, r.json().Code], [401, 'invalid_api_key']);
    }
    const reg = await h.app.inject({ method: 'POST', url: '/games/register-user', headers: { 'x-platform-api-key': g.clientKey, 'x-platform-api-secret': g.clientKey }, payload: { UserId: 'x' } });
    assertError(reg, 401, 'invalid_api_key');
  });

  it('regenerating replaces it at once (even when cached) and keeps the API credentials', async () => {
    const g = await createGame(h.app, dev.token);
    assert.equal((await resolve(h.app, g.clientKey)).statusCode, 200);
    const r = await regenerate(h.app, g.gameId, dev.token);
    assert.equal(r.statusCode, 200);
    const fresh = r.json().ClientKey;
    assert.notEqual(fresh, g.clientKey);
    assert.equal(r.json().ApiKey, g.apiKey);
    assert.equal((await resolve(h.app, g.clientKey)).statusCode, 401);
    assert.equal((await resolve(h.app, fresh)).json().GameId, g.gameId);
    const v = await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: g.apiKey, ApiSecret: g.apiSecret } });
    assert.equal(v.statusCode, 200, 'the secret still works');
  });

  it('another node drops its cached entry; a deleted game’s key stops resolving', async () => {
    const nodeB = await h.build();
    const g = await createGame(h.app, dev.token);
    assert.equal((await resolve(nodeB, g.clientKey)).statusCode, 200);
    await regenerate(h.app, g.gameId, dev.token);
    let refused = false;
    for (let i = 0; i < 200 && !refused; i++) {
      refused = (await resolve(nodeB, g.clientKey)).statusCode === 401;
      if (!refused) await new Promise((res) => setTimeout(res, 10));
    }
    assert.ok(refused, 'node B still resolves the replaced key');
    const now = (await h.app.inject({ url: `/games/${g.gameId}`, headers: bearer(dev.token) })).json().ClientKey;
    assert.equal((await resolve(h.app, now)).statusCode, 200);
    await h.app.inject({ method: 'DELETE', url: `/games/${g.gameId}`, headers: bearer(dev.token) });
    assert.equal((await resolve(h.app, now)).statusCode, 401);
  });

  it('only the owner or the super-admin regenerates; others get 404, no token 401', async () => {
    const g = await createGame(h.app, dev.token);
    const stranger = await registerDeveloper(h.app);
    assertError(await regenerate(h.app, g.gameId, stranger.token), 404, 'game_not_found');
    assertError(await h.app.inject({ method: 'POST', url: `/games/${g.gameId}/regenerate-client-key` }), 401, 'unauthorized');
    assertError(await regenerate(h.app, 'not-a-uuid', dev.token), 404, 'game_not_found');
    const admin = await loginAdmin(h.app);
    assert.equal((await regenerate(h.app, g.gameId, admin.token)).statusCode, 200);
  });

  it('validates the body of validate-client-key', async () => {
    for (const payload of [{}, { ClientKey: 1 }, { ClientKey: 'a', Extra: 1 }, { ClientKey: 'x'.repeat(300) }, { ClientKey: 'a\u0000' }]) {
      const r = await h.app.inject({ method: 'POST', url: '/auth/validate-client-key', payload });
      assert.equal(r.statusCode, 400, JSON.stringify(payload));
    }
    assertError(await h.app.inject({ method: 'POST', url: '/auth/validate-client-key', headers: { 'content-type': 'application/json' }, payload: '{' }), 400, 'malformed_json');
  });
});
