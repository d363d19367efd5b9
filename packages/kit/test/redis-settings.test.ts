// The Redis settings every service reads (kit config.ts commonVars → state/store.ts stateStoreOptions): one Redis, a
// cluster or Sentinel, never two at once; a key prefix that cannot become a Redis Cluster hash tag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, commonVars, openStateStore, readConfig, stateStoreOptions, sharesState } from '../src/index.js';

const settings = (env: Record<string, string>) => stateStoreOptions(readConfig(commonVars, env));

describe('Redis settings', () => {
  it('read a cluster seed list and a sentinel list as lists, and the sentinel name with its default', () => {
    const cluster = settings({ REDIS_CLUSTER_NODES: '10.0.0.1:6379, 10.0.0.2:6379,,redis://u:p@10.0.0.3:6380' });
    assert.deepEqual(cluster.clusterNodes, ['10.0.0.1:6379', '10.0.0.2:6379', 'redis://u:p@10.0.0.3:6380']);
    assert.equal(cluster.url, undefined);
    const sentinel = settings({ REDIS_SENTINELS: 's1:26379,s2:26379' });
    assert.deepEqual(sentinel.sentinels, ['s1:26379', 's2:26379']);
    assert.equal(sentinel.sentinelName, 'mymaster');
    assert.equal(settings({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'game' }).sentinelName, 'game');
    assert.equal(settings({ REDIS_URL: 'redis://r:6379', REDIS_KEY_PREFIX: 'staging:' }).prefix, 'staging:');
  });

  it('say whether the state is shared (any Redis) or in memory', () => {
    assert.equal(sharesState(readConfig(commonVars, {})), false);
    for (const env of [{ REDIS_URL: 'redis://r:6379' }, { REDIS_CLUSTER_NODES: 'a:1' }, { REDIS_SENTINELS: 's:26379' }]) {
      assert.equal(sharesState(readConfig(commonVars, env)), true, JSON.stringify(env));
    }
  });

  it('refuse two Redis deployments at once, naming both settings, before connecting to either', async () => {
    for (const env of <Record<string, string>[]>[
      { REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: '127.0.0.1:2' },
      { REDIS_URL: 'redis://127.0.0.1:1', REDIS_SENTINELS: '127.0.0.1:3' },
      { REDIS_CLUSTER_NODES: '127.0.0.1:2', REDIS_SENTINELS: '127.0.0.1:3' },
    ]) {
      await assert.rejects(openStateStore(settings(env)), (err: Error) => {
        assert.ok(err instanceof ConfigError, err.message);
        for (const name of Object.keys(env)) assert.match(err.message, new RegExp(name));
        return true;
      });
    }
  });

  it('refuse a key prefix with a brace (it would make a hash tag on a cluster)', async () => {
    for (const prefix of ['{a}', 'x{', 'y}']) {
      await assert.rejects(openStateStore({ prefix }), (err: Error) => err instanceof ConfigError && /REDIS_KEY_PREFIX/.test(err.message));
    }
    const ok = await openStateStore({ prefix: 'plain:' });
    assert.equal(ok.kind, 'memory');
    await ok.close();
  });
});
