/**
 * Social as two node processes on one schema and one Redis: presence set
 * through one node reads identically through the other and lapses on both.
 * And presence through a Redis outage (private Redis): reads fail open
 * (offline), writes fail closed (503 state_unavailable), readiness says so.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOrCreateTls } from '@platform/kit';
import {
  ClusterClient,
  haproxyAvailable,
  sleep,
  startHaproxy,
  dropSchema,
  eventually,
  sharedStores,
  startPrivateRedis,
  startSocialCluster,
  uniqueSchema,
  type PrivateRedis,
  type SocialCluster,
  onSuiteStores,
  redisKinds,
} from '../src/index.js';

const stores = sharedStores();
const skip = 'skip' in stores ? stores.skip : false;

for (const kind of redisKinds()) describe(`social: two nodes agree on presence (${kind})`, { skip }, () => {
  let cluster: SocialCluster;
  let c: ClusterClient[];

  onSuiteStores('cl_social', 13, {
    async start(suite) {
      cluster = await startSocialCluster({
        nodes: 2,
        ...suite,
        env: { SOCIAL__PRESENCE__TTLSECONDS: '2' },
      });
      c = [cluster.client(0), cluster.client(1)];
    },
    async stop() {
      await cluster?.close();
    },
  }, kind);

  it('reads a presence set via node A identically on node B, and lapses on both', async () => {
    const h = cluster.headers(randomUUID(), 'nodeagree');
    const me = await c[0].get('/v1/me', { headers: h });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    const publicId = me.body.publicId;
    const set = await c[0].post('/v1/presence', { state: 'busy', richPresence: { activity: 'raiding' } }, { headers: h });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const views = await Promise.all(c.map((x) => x.get(`/v1/presence/${publicId}`, { headers: h })));
    for (const v of views) assert.equal(v.status, 200);
    assert.equal(views[0].body.state, 'busy');
    assert.deepEqual(views[1].body, views[0].body);
    // TTL 2 s, not refreshed: both nodes see it lapse.
    await eventually(
      async () => {
        const after = await Promise.all(c.map((x) => x.get(`/v1/presence/${publicId}`, { headers: h })));
        return after.every((v) => v.status === 200 && v.body.state === 'offline');
      },
      6000,
      'presence offline on both nodes',
    );
  });
});

describe('social behind HAProxy (TLS at the balancer, HTTP nodes): a node stopped mid-stream', { skip: skip || ((await haproxyAvailable()) ? false : 'haproxy is not installed') }, () => {
  let cluster: SocialCluster;
  const dir = mkdtempSync(path.join(tmpdir(), 'social-lb-'));

  onSuiteStores('cl_social_lb', 14, {
    async start(suite) {
      cluster = await startSocialCluster({ nodes: 2, ...suite });
    },
    async stop() {
      await cluster?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });

  it('keeps presence writes and reads answering while one node drains', async () => {
    const tls = await loadOrCreateTls({ dir });
    const lb = await startHaproxy({
      backends: cluster.nodes.map((n) => ({ name: n.name, host: '127.0.0.1', port: n.port })),
      backendTls: false,
      tls: { cert: tls.cert, key: readFileSync(path.join(dir, 'tls-key.pem'), 'utf8') },
      checkIntervalMs: 500,
    });
    try {
      await eventually(async () => Object.values(await lb.states()).every((st) => st === 'UP'), 10_000, 'both social nodes UP');
      const states = ['online', 'away', 'busy', 'dnd'] as const;
      const stopper = (async () => {
        await sleep(1500);
        await cluster.nodes[0].stop();
      })();
      const failures: string[] = [];
      await Promise.all(
        [0, 1].map(async (ci) => {
          const client = new ClusterClient({ baseUrl: lb.url, ca: tls.cert, attempts: 6 });
          const h = cluster.headers(randomUUID(), `lb${ci}`);
          try {
            const me = await client.get('/v1/me', { headers: h });
            for (let i = 0; i < 30; i++) {
              const want = states[i % states.length];
              const w = await client.post('/v1/presence', { state: want }, { headers: h });
              const r = await client.get(`/v1/presence/${me.body.publicId}`, { headers: h });
              if (w.status !== 200 || r.status !== 200 || r.body.state !== want) failures.push(`${w.status} ${r.status} ${r.body.state} ≠ ${want}`);
              await sleep(100);
            }
          } finally {
            client.close();
          }
        }),
      );
      await stopper;
      assert.deepEqual(failures, []);
      assert.ok((await lb.states())[cluster.nodes[0].name]?.startsWith('DOWN'));
    } finally {
      await lb.stop();
    }
  });
});

describe('social: presence through a Redis outage (private Redis)', { skip }, () => {
  let redis: PrivateRedis;
  let cluster: SocialCluster;
  let c: ClusterClient;
  const schema = uniqueSchema('cl_social_f');

  before(async () => {
    if ('skip' in stores) return;
    redis = await startPrivateRedis();
    cluster = await startSocialCluster({ nodes: 1, databaseUrl: stores.databaseUrl, redisUrl: redis.url, schema });
    const client = cluster.client(0);
    c = client;
  });

  after(async () => {
    if ('skip' in stores) return;
    await cluster?.close();
    await redis?.destroy();
    await dropSchema(stores.databaseUrl, schema);
  });

  it('reads presence as offline (fail open), refuses to set it (503), and recovers', async () => {
    const h = cluster.headers(randomUUID(), 'outage');
    const me = await c.get('/v1/me', { headers: h });
    const publicId = me.body.publicId;
    assert.equal((await c.post('/v1/presence', { state: 'online' }, { headers: h })).status, 200);
    await redis.stop();
    try {
      const r = await eventually(async () => {
        const x = await c.once('GET', '/readyz');
        return x.status === 503 ? x : undefined;
      }, 2500, '/readyz 503 after Redis stopped');
      assert.equal(r.body.checks.state, 'failing');
      const read = await c.once('GET', `/v1/presence/${publicId}`, undefined, { headers: h });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.body.state, 'offline');
      const write = await c.once('POST', '/v1/presence', { state: 'away' }, { headers: h });
      assert.equal(write.status, 503);
      assert.equal(write.body.code, 'state_unavailable');
      // The rest of the social graph (PostgreSQL) keeps working.
      assert.equal((await c.once('GET', '/v1/me', undefined, { headers: h })).status, 200);
    } finally {
      await redis.start();
    }
    await eventually(async () => (await c.once('GET', '/readyz')).status === 200, 5000, '/readyz 200 after Redis is back');
    const again = await c.post('/v1/presence', { state: 'away' }, { headers: h });
    assert.equal(again.status, 200);
    assert.equal((await c.get(`/v1/presence/${publicId}`, { headers: h })).body.state, 'away');
  });
});
