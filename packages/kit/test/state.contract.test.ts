// One contract, run on the in-memory adapter always, on Redis when REDIS_URL is set and on a Redis Cluster when
// REDIS_CLUSTER_NODES is set (CI): every adapter must behave the same.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { perSuite, testRedisTargets, testStateStore } from '../src/testing.js';

const adapters = testRedisTargets();

for (const [name, url] of adapters) {
  describe(`state store contract: ${name}`, () => {
    const t = perSuite(() => testStateStore(url), (store) => store.drop());

    it('reports its kind', () => {
      assert.equal(t.state.kind, name === 'memory' ? 'memory' : 'redis');
    });

    it('gets, sets and deletes values', async () => {
      assert.equal(await t.state.get('a'), null);
      await t.state.set('a', 'one');
      assert.equal(await t.state.get('a'), 'one');
      assert.equal(await t.state.ttl('a'), -1);
      await t.state.del('a');
      assert.equal(await t.state.get('a'), null);
      assert.equal(await t.state.ttl('a'), -2);
    });

    it('expires values', async () => {
      // Generous times: the suite shares two cores with everything else.
      await t.state.set('short', 'x', 400);
      const ttl = await t.state.ttl('short');
      assert.ok(ttl > 0 && ttl <= 400, `ttl ${ttl}`);
      await sleep(500);
      assert.equal(await t.state.get('short'), null);
    });

    it('sets only when absent', async () => {
      assert.equal(await t.state.setIfAbsent('once', '1', 1000), true);
      assert.equal(await t.state.setIfAbsent('once', '2', 1000), false);
      assert.equal(await t.state.get('once'), '1');
    });

    it('counts with an expiry fixed at creation', async () => {
      assert.equal(await t.state.incr('c', 500), 1);
      assert.equal(await t.state.incr('c', 500), 2);
      assert.equal(await t.state.incr('c', 500), 3);
      await sleep(650);
      assert.equal(await t.state.incr('c', 500), 1);
    });

    it('counts concurrent increments exactly', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, () => t.state.incr('par', 5000)));
      assert.deepEqual([...results].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it('limits hits in a sliding window and tells when to retry', async () => {
      for (let i = 1; i <= 3; i++) {
        const d = await t.state.hit('w', 3, 1000);
        assert.deepEqual([d.allowed, d.count], [true, i]);
      }
      const refused = await t.state.hit('w', 3, 1000);
      assert.equal(refused.allowed, false);
      assert.equal(refused.count, 3);
      assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 1000, `retry ${refused.retryAfterMs}`);
      await sleep(refused.retryAfterMs + 50);
      assert.equal((await t.state.hit('w', 3, 1000)).allowed, true);
    });

    it('admits exactly the limit under concurrent hits', async () => {
      const ds = await Promise.all(Array.from({ length: 30 }, () => t.state.hit('wpar', 10, 5000)));
      assert.equal(ds.filter((d) => d.allowed).length, 10);
    });

    it('reads several values at once, in order, null where absent or expired', async () => {
      assert.deepEqual(await t.state.getMany([]), []);
      await t.state.set('many-1', 'one');
      await t.state.set('many-3', 'three');
      await t.state.set('many-gone', 'x', 100);
      await sleep(200);
      assert.deepEqual(await t.state.getMany(['many-1', 'many-2', 'many-3', 'many-gone']), ['one', null, 'three', null]);
    });

    it('hits several windows at once, each deciding on its own, in order', async () => {
      assert.deepEqual(await t.state.hitAll([]), []);
      await t.state.hit('full', 1, 5000);
      const [a, full, b] = await t.state.hitAll([
        { key: 'open-a', limit: 5, windowMs: 5000 },
        { key: 'full', limit: 1, windowMs: 5000 },
        { key: 'open-b', limit: 2, windowMs: 5000 },
      ]);
      assert.deepEqual([a.allowed, a.count, a.retryAfterMs], [true, 1, 0]);
      assert.equal(full.allowed, false);
      assert.equal(full.count, 1, 'a refused window records nothing');
      assert.ok(full.retryAfterMs > 0 && full.retryAfterMs <= 5000);
      assert.deepEqual([b.allowed, b.count], [true, 1]);
      // The hits are the same as single hits: the windows carry on from here.
      assert.equal((await t.state.hit('open-a', 5, 5000)).count, 2);
      assert.equal((await t.state.hit('open-b', 2, 5000)).count, 2);
      assert.equal((await t.state.hit('open-b', 2, 5000)).allowed, false);
    });

    it('counts a window listed twice in one call twice (hits of several requests grouped together)', async () => {
      const w = { key: 'rl:twice', limit: 3, windowMs: 60_000 };
      assert.deepEqual(
        (await t.state.hitAll([w, w])).map((d) => [d.allowed, d.count]),
        [
          [true, 1],
          [true, 2],
        ],
      );
      assert.deepEqual(
        (await t.state.hitAll([w, w])).map((d) => [d.allowed, d.count]),
        [
          [true, 3],
          [false, 3],
        ],
      );
    });

    it('admits exactly the limit when several windows are hit concurrently', async () => {
      const ds = await Promise.all(
        Array.from({ length: 30 }, () =>
          t.state.hitAll([
            { key: 'par-x', limit: 7, windowMs: 5000 },
            { key: 'par-y', limit: 12, windowMs: 5000 },
          ]),
        ),
      );
      assert.equal(ds.filter(([x]) => x.allowed).length, 7);
      assert.equal(ds.filter(([, y]) => y.allowed).length, 12);
    });

    it('keeps set members with individual expiry', async () => {
      await t.state.setAdd('deny', 'sid-1', 5000);
      await t.state.setAdd('deny', 'sid-2', 400);
      assert.equal(await t.state.setHas('deny', 'sid-1'), true);
      assert.equal(await t.state.setHas('deny', 'sid-2'), true);
      assert.equal(await t.state.setHas('deny', 'sid-3'), false);
      await sleep(500);
      assert.equal(await t.state.setHas('deny', 'sid-2'), false);
      assert.deepEqual(await t.state.setMembers('deny'), ['sid-1']);
      await t.state.setRemove('deny', 'sid-1');
      assert.equal(await t.state.setHas('deny', 'sid-1'), false);
    });

    it('publishes to subscribers until they unsubscribe', async () => {
      const got: string[] = [];
      const unsubscribe = await t.state.subscribe('ch', (m) => got.push(m));
      const other: string[] = [];
      const unsubscribeOther = await t.state.subscribe('ch', (m) => other.push(m));
      await t.state.publish('ch', 'hello');
      await t.state.publish('elsewhere', 'nope');
      for (let i = 0; i < 50 && got.length < 1; i++) await sleep(10);
      assert.deepEqual(got, ['hello']);
      assert.deepEqual(other, ['hello']);
      await unsubscribe();
      await t.state.publish('ch', 'again');
      for (let i = 0; i < 50 && other.length < 2; i++) await sleep(10);
      assert.deepEqual(got, ['hello']);
      assert.deepEqual(other, ['hello', 'again']);
      await unsubscribeOther();
    });

    it('publishes several messages at once, in order, each to its channel', async () => {
      const a: string[] = [];
      const b: string[] = [];
      const offA = await t.state.subscribe('many-a', (m) => a.push(m));
      const offB = await t.state.subscribe('many-b', (m) => b.push(m));
      await t.state.publishAll([]);
      await t.state.publishAll([
        { channel: 'many-a', message: '1' },
        { channel: 'many-b', message: 'x' },
        { channel: 'many-a', message: '2' },
        { channel: 'many-a', message: '3' },
      ]);
      for (let i = 0; i < 50 && (a.length < 3 || b.length < 1); i++) await sleep(10);
      assert.deepEqual(a, ['1', '2', '3']);
      assert.deepEqual(b, ['x']);
      await offA();
      await offB();
    });

    it('answers every command of one event-loop turn with its own reply, in order (one write on Redis)', async () => {
      // Issued without awaiting in between: on Redis they leave in one corked write.
      const ops: Promise<unknown>[] = [];
      for (let i = 0; i < 200; i++) {
        ops.push(t.state.set(`turn:${i}`, `v${i}`, 10_000));
        ops.push(t.state.get(`turn:${i}`));
        ops.push(t.state.incr('turn:count', 10_000));
      }
      const results = await Promise.all(ops);
      for (let i = 0; i < 200; i++) {
        assert.equal(results[3 * i + 1], `v${i}`);
        assert.equal(results[3 * i + 2], i + 1);
      }
      // A command after the turn is not held back.
      assert.equal(await t.state.get('turn:199'), 'v199');
    });

    it('answers ping', async () => {
      await t.state.ping();
    });
  });
}

if (process.env.REDIS_URL) {
  describe('state store on an unreachable Redis', () => {
    it('fails fast with a 503 AppError instead of hanging', async () => {
      const { openStateStore } = await import('../src/state/index.js');
      await assert.rejects(openStateStore({ url: 'redis://127.0.0.1:1' }));
    });
  });
}
