// The event logs of the state store (src/state/event-log.ts): one contract, run on the in-memory adapter
// always and on Redis when REDIS_URL is set (CI).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { compareLogIds, isLogId, type LogRetention } from '../src/index.js';
import { perSuite, testRedisTargets, testStateStore } from '../src/testing.js';

const adapters = testRedisTargets();

const keep: LogRetention = { maxEntries: 100, maxAgeMs: 60_000 };
const json = (n: number | string) => JSON.stringify({ type: 'e', data: n });

describe('log ids', () => {
  it('are <ms>-<n>, ordered by both numbers', () => {
    assert.ok(isLogId('1732431234567-0') && isLogId('0-0'));
    for (const bad of ['', '1', '1-', '-1', '1-1-1', 'a-1', '1-a', ' 1-1', '1-1 ', '1234567890123456-0', '1.5-0']) assert.equal(isLogId(bad), false, bad);
    assert.ok(compareLogIds('9-0', '10-0') < 0);
    assert.ok(compareLogIds('10-9', '10-10') < 0);
    assert.equal(compareLogIds('10-1', '10-1'), 0);
    assert.throws(() => compareLogIds('x', '1-0'));
  });
});

for (const [name, url] of adapters) {
  describe(`event log contract: ${name}`, () => {
    const t = perSuite(() => testStateStore(url), (store) => store.drop());
    /** An id from just before what a test appends (a read from 0-0 is never complete: logs vouch only for their age). */
    const mark = async () => (await t.state.logAppend([{ logs: ['mark'], entry: json(0) }], keep))[0];

    it('assigns ids that only grow, publishes each message with its id, in order, and reads a log after an id', async () => {
      const start = await mark();
      const got: string[] = [];
      const unsub = await t.state.subscribe('ch', (m) => got.push(m));
      const ids = await t.state.logAppend(
        [
          { logs: ['a'], entry: json(1), publish: { channel: 'ch' } },
          { logs: ['a', 'b'], entry: json(2), publish: { channel: 'ch', message: '{"type":"fan","n":2}' } },
          { logs: ['b'], entry: json(3) },
        ],
        keep,
      );
      const more = await t.state.logAppend([{ logs: ['a'], entry: json(4), publish: { channel: 'ch' } }], keep);
      const all = [...ids, ...more];
      assert.ok(all.every(isLogId));
      for (let i = 1; i < all.length; i++) assert.ok(compareLogIds(all[i - 1], all[i]) < 0, `${all[i - 1]} < ${all[i]}`);
      for (let i = 0; i < 50 && got.length < 3; i++) await sleep(10);
      await unsub();
      assert.deepEqual(got, [
        `{"id":"${all[0]}","type":"e","data":1}`,
        `{"id":"${all[1]}","type":"fan","n":2}`,
        `{"id":"${all[3]}","type":"e","data":4}`,
      ]);
      const r = await t.state.logRead(
        [
          { log: 'a', after: start },
          { log: 'b', after: all[1] },
          { log: 'a', after: all[3] },
        ],
        keep,
        10,
      );
      assert.equal(r.head, all[3]);
      assert.deepEqual(r.results, [
        {
          complete: true,
          entries: [
            { id: all[0], entry: json(1) },
            { id: all[1], entry: json(2) },
            { id: all[3], entry: json(4) },
          ],
        },
        { complete: true, entries: [{ id: all[2], entry: json(3) }] },
        { complete: true, entries: [] },
      ]);
    });

    it('before the first append, a read hands out a head of its own time: later appends exceed it, a read from it is complete', async () => {
      const fresh = await testStateStore(url);
      try {
        const before = Date.now();
        const first = await fresh.state.logRead([{ log: 'x', after: '0-0' }], keep, 10);
        assert.notEqual(first.head, '0-0');
        assert.ok(Number(first.head.split('-')[0]) >= before - 1000, first.head);
        const again = await fresh.state.logRead([{ log: 'x', after: first.head }], keep, 10);
        assert.equal(again.head, first.head);
        assert.deepEqual(again.results, [{ complete: true, entries: [] }]);
        const [id] = await fresh.state.logAppend([{ logs: ['x'], entry: json(1) }], keep);
        assert.ok(compareLogIds(id!, first.head) > 0, `${id} > ${first.head}`);
        const after = await fresh.state.logRead([{ log: 'x', after: first.head }], keep, 10);
        assert.deepEqual(after.results, [{ complete: true, entries: [{ id, entry: json(1) }] }]);
      } finally {
        await fresh.drop();
      }
    });

    it('keeps the last maxEntries of a log: a read from before them is not complete, one from within them is', async () => {
      const r3: LogRetention = { maxEntries: 3, maxAgeMs: 60_000 };
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(...(await t.state.logAppend([{ logs: ['cnt', `cnt-other-${i % 2}`], entry: json(i) }], r3)));
      const read = (after: string) => t.state.logRead([{ log: 'cnt', after }], r3, 10).then((x) => x.results[0]);
      // Kept: 2, 3, 4. After 1: complete (2, 3, 4). After 0: entry 1 is gone.
      assert.deepEqual(await read(ids[1]), { complete: true, entries: ids.slice(2).map((id, i) => ({ id, entry: json(i + 2) })) });
      assert.deepEqual(await read(ids[0]), { complete: false, entries: [] });
      assert.deepEqual(await read('0-0'), { complete: false, entries: [] });
      assert.deepEqual(await read(ids[4]), { complete: true, entries: [] });
    });

    it('reads at most `limit` entries: more after the id is not complete', async () => {
      const ids = await t.state.logAppend([1, 2, 3].map((n) => ({ logs: ['lim'], entry: json(n) })), keep);
      const read = (after: string, limit: number) => t.state.logRead([{ log: 'lim', after }], keep, limit).then((x) => x.results[0]);
      assert.equal((await read(ids[0], 2)).entries.length, 2);
      assert.deepEqual(await read('0-0', 2), { complete: false, entries: [] });
    });

    it('serves nothing older than maxAgeMs; a log nobody wrote to for that long expires', async () => {
      const short: LogRetention = { maxEntries: 100, maxAgeMs: 600 };
      const start = await mark();
      const [old] = await t.state.logAppend([{ logs: ['age'], entry: json('old') }], short);
      const first = await t.state.logRead([{ log: 'never', after: old }], short, 10);
      assert.deepEqual(first.results[0], { complete: true, entries: [] }, 'a log never written to, read from within the age');
      await sleep(400);
      const [mid] = await t.state.logAppend([{ logs: ['age'], entry: json('mid') }], short);
      await sleep(400);
      const r = await t.state.logRead([{ log: 'age', after: start }, { log: 'age', after: old }], short, 10);
      assert.deepEqual(r.results[0], { complete: false, entries: [] }, 'the old entry is past the age');
      assert.deepEqual(r.results[1], { complete: true, entries: [{ id: mid, entry: json('mid') }] });
      await sleep(700);
      const gone = await t.state.logRead([{ log: 'age', after: mid }], short, 10);
      assert.deepEqual(gone.results[0], { complete: false, entries: [] }, 'an expired log proves nothing about ids older than the age');
      const [again] = await t.state.logAppend([{ logs: ['age'], entry: json('again') }], short);
      const after = await t.state.logRead([{ log: 'age', after: mid }, { log: 'age', after: again }], short, 10);
      assert.deepEqual(after.results, [
        { complete: false, entries: [] },
        { complete: true, entries: [] },
      ], 'a log created anew does not vouch for what came before the age');
    });

    it('an entry written to several logs is stored once and read from each', async () => {
      const start = await mark();
      const [id] = await t.state.logAppend([{ logs: ['m1', 'm2', 'm3'], entry: json('shared') }], keep);
      const r = await t.state.logRead(['m1', 'm2', 'm3'].map((log) => ({ log, after: start })), keep, 10);
      for (const x of r.results) assert.deepEqual(x, { complete: true, entries: [{ id, entry: json('shared') }] });
    });

    it('refuses entries that are not JSON objects', async () => {
      await assert.rejects(t.state.logAppend([{ logs: ['x'], entry: 'plain' }], keep));
      await assert.rejects(t.state.logAppend([{ logs: [], entry: json(1) }], keep));
    });

    it('keeps the sequence across many appends arriving together', async () => {
      const start = await mark();
      const batches = await Promise.all(Array.from({ length: 20 }, (_, i) => t.state.logAppend([{ logs: ['par'], entry: json(i) }, { logs: ['par'], entry: json(i) }], keep)));
      const ids = batches.flat().sort(compareLogIds);
      assert.equal(new Set(ids).size, 40);
      const r = await t.state.logRead([{ log: 'par', after: start }], keep, 100);
      assert.deepEqual(r.results[0].entries.map((e) => e.id), ids);
    });
  });
}
