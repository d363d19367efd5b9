// The tenancy resolver on its own, with a clock: how long a cached client key (or key + secret) keeps
// working after the registry replaced it (Social:Registry:CacheSeconds), without waiting for it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '@platform/kit';
import { registryTenancy } from '../src/services/tenancy.js';
import { startRegistry } from './support.js';

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
    assert.deepEqual(await tenancy.resolve({ clientKey: game.clientKey }), { gameId: game.gameId, visibility: 'summary' });
    const rotated = registry.rotateClientKey(game);
    now += 9_999;
    assert.deepEqual(await tenancy.resolve({ clientKey: game.clientKey }), { gameId: game.gameId, visibility: 'summary' }, 'cached');
    now += 1;
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey }), refusedWith('invalid_client_key'));
    assert.deepEqual(await tenancy.resolve({ clientKey: rotated.clientKey }), { gameId: game.gameId, visibility: 'summary' });
  });

  it('the client key and the pair resolve to the same context; both at once are ambiguous; none is no game', async () => {
    const tenancy = registryTenancy({ registryUrl: registry.url, cacheMs: 0 });
    const game = registry.addGame('full');
    assert.deepEqual(await tenancy.resolve({ clientKey: game.clientKey }), await tenancy.resolve({ key: game.key, secret: game.secret }));
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey, key: game.key, secret: game.secret }), refusedWith('ambiguous_game_credentials'));
    await assert.rejects(tenancy.resolve({ clientKey: game.clientKey, secret: game.secret }), refusedWith('ambiguous_game_credentials'));
    assert.deepEqual(await tenancy.resolve({}), { gameId: null, visibility: 'isolated' });
  });
});
