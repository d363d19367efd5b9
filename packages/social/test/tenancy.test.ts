// The tenancy resolver on its own, with a clock: how long a cached client key (or key + secret) keeps
// working after the registry replaced it when no notice comes (Social:Registry:CacheSeconds), without waiting
// for it; and what the registry's notices do to it (the notices over a real bus: e2e game-credentials.test.ts).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, gameSecretDigest, type GameCredentialsNotice } from '@platform/kit';
import type { GameContext } from '../src/context.js';
import { registryTenancy } from '../src/adapters/registry-client.js';
import { startRegistry, type Game } from './support.js';

/** The game context without the credential that gave it. */
const context = async (p: Promise<GameContext>) => {
  const { gameId, visibility } = await p;
  return { gameId, visibility };
};
const notice = (game: Game, change: GameCredentialsNotice['change'], more: Partial<GameCredentialsNotice> = {}): GameCredentialsNotice => ({
  change,
  gameId: game.gameId,
  apiKey: game.key,
  at: new Date().toISOString(),
  ...more,
});

describe('tenancy resolver', () => {
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  before(async () => {
    registry = await startRegistry();
  });
  after(() => registry.close());

  const refusedWith = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

  it('a replaced client key keeps resolving for the cache time, then is refused with invalid_client_key', async () => {
    let now = 1_000_000;
    const tenancy = registryTenancy({ registryUrl: registry.url, cacheMs: 10_000, now: () => now });
    const game = registry.addGame('summary');
    assert.deepEqual(await context(tenancy.resolve({ clientKey: game.clientKey })), { gameId: game.gameId, visibility: 'summary' });
    const rotated = registry.rotateClientKey(game);
    now += 9_999;
    assert.deepEqual(await context(tenancy.resolve({ clientKey: game.clientKey })), { gameId: game.gameId, visibility: 'summary' }, 'cached');
    now += 1;
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey }), refusedWith('invalid_client_key'));
    assert.deepEqual(await context(tenancy.resolve({ clientKey: rotated.clientKey })), { gameId: game.gameId, visibility: 'summary' });
  });

  it('the client key and the pair resolve to the same context; both at once are ambiguous; none is no game', async () => {
    const tenancy = registryTenancy({ registryUrl: registry.url, cacheMs: 0 });
    const game = registry.addGame('full');
    assert.deepEqual(await context(tenancy.resolve({ clientKey: game.clientKey })), await context(tenancy.resolve({ key: game.key, secret: game.secret })));
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey, key: game.key, secret: game.secret }), refusedWith('ambiguous_game_credentials'));
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey, secret: game.secret }), refusedWith('ambiguous_game_credentials'));
    assert.deepEqual(await tenancy.resolve({}), { gameId: null, visibility: 'isolated' });
  });

  it('says which credential gave the context: the pair by its secret’s digest, or the client key; none without', async () => {
    const tenancy = registryTenancy({ registryUrl: registry.url, cacheMs: 10_000 });
    const game = registry.addGame('isolated');
    assert.deepEqual((await tenancy.resolve({ key: game.key, secret: game.secret })).credential, {
      gameId: game.gameId,
      kind: 'pair',
      apiKey: game.key,
      secretDigest: gameSecretDigest(game.secret),
      checkedAt: 0,
    });
    assert.deepEqual((await tenancy.resolve({ clientKey: game.clientKey })).credential, { gameId: game.gameId, kind: 'client', clientKey: game.clientKey, checkedAt: 0 });
    assert.equal((await tenancy.resolve({})).credential, undefined);
  });

  it('a notice drops the game’s cached resolutions (every credential of it, no other game’s) at once', async () => {
    const now = 1_000_000;
    const tenancy = registryTenancy({ registryUrl: registry.url, cacheMs: 10_000, now: () => now });
    const game = registry.addGame('summary');
    const other = registry.addGame('summary');
    for (const g of [game, other]) {
      await tenancy.resolve({ key: g.key, secret: g.secret });
      await tenancy.resolve({ clientKey: g.clientKey });
    }
    const calls = registry.calls;
    const rotated = registry.rotateClientKey(game);
    tenancy.forget(notice(game, 'client_key_replaced', { clientKey: game.clientKey }));
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey }), refusedWith('invalid_client_key'));
    await tenancy.resolve({ key: game.key, secret: game.secret });
    assert.equal(registry.calls, calls + 2, 'both of the game’s entries were dropped');
    await tenancy.resolve({ clientKey: rotated.clientKey });
    await tenancy.resolve({ key: other.key, secret: other.secret });
    await tenancy.resolve({ clientKey: other.clientKey });
    assert.equal(registry.calls, calls + 3, 'the other game stays cached');
  });

  it('an answer that raced a notice is used once and not cached; a context checked before a notice that revokes it is caught', async () => {
    const tenancy = registryTenancy({ registryUrl: registry.url, cacheMs: 10_000 });
    const game = registry.addGame('full');
    const before = tenancy.resolve({ key: game.key, secret: game.secret });
    const byKey = await tenancy.resolve({ clientKey: game.clientKey });
    // The notice arrives while the pair's lookup is under way.
    tenancy.forget(notice(game, 'secret_replaced', { revokedSecretDigest: gameSecretDigest(game.secret) }));
    const raced = await before;
    const calls = registry.calls;
    await tenancy.resolve({ key: game.key, secret: game.secret });
    assert.equal(registry.calls, calls + 1, 'not cached');
    assert.equal(tenancy.revokedSince(raced), true, 'checked before the notice that revokes it');
    assert.equal(tenancy.revokedSince(byKey), false, 'the notice revokes the secret, not the client key');
    assert.equal(tenancy.revokedSince(await tenancy.resolve({ key: game.key, secret: game.secret })), false, 'checked after the notice');
    assert.equal(tenancy.revokedSince(await tenancy.resolve({})), false, 'no credential');
    tenancy.forget(notice(game, 'visibility_changed', { clientKey: game.clientKey }));
    assert.equal(tenancy.revokedSince(byKey), false, 'a visibility change revokes nothing');
    tenancy.forget(notice(game, 'game_deleted', { clientKey: game.clientKey }));
    assert.equal(tenancy.revokedSince(byKey), true);
  });
});
