// Group commit: gathering concurrent calls into batches, results and errors per caller, in-flight bound.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBatcher, onePer } from '../src/batch.js';
import { AppError } from '../src/errors.js';
import { testDatabase } from '../src/testing.js';

describe('createBatcher', () => {
  it('runs a lone call by itself and returns its own result', async () => {
    const runs: number[][] = [];
    const double = createBatcher(async (xs: number[]) => {
      runs.push(xs);
      return xs.map((x) => x * 2);
    });
    assert.equal(await double(21), 42);
    assert.deepEqual(runs, [[21]]);
  });

  it('gathers calls that arrive while batches are in flight, keeping order and per-caller results', async () => {
    const runs: number[][] = [];
    let inFlight = 0;
    let maxSeen = 0;
    const square = createBatcher(
      async (xs: number[]) => {
        inFlight++;
        maxSeen = Math.max(maxSeen, inFlight);
        runs.push(xs);
        await sleep(20);
        inFlight--;
        return xs.map((x) => x * x);
      },
      { maxInFlight: 2, maxBatch: 50 },
    );
    const first = square(1);
    await sleep(1); // the first batch is in flight
    const rest = Array.from({ length: 99 }, (_, i) => square(i + 2));
    const all = await Promise.all([first, ...rest]);
    assert.deepEqual(all, Array.from({ length: 100 }, (_, i) => (i + 1) ** 2));
    assert.ok(maxSeen <= 2, `at most two runs in flight (saw ${maxSeen})`);
    assert.ok(runs.length < 10, `100 calls in a few batches (${runs.length})`);
    assert.ok(runs.every((r) => r.length <= 50));
    assert.deepEqual(runs.flat(), Array.from({ length: 100 }, (_, i) => i + 1), 'every item once, in call order');
  });

  it('rejects every caller of a failed batch and keeps serving later ones', async () => {
    let fail = true;
    const f = createBatcher(async (xs: string[]) => {
      if (fail) throw new Error('database down');
      return xs.map((x) => x.toUpperCase());
    });
    const results = await Promise.allSettled([f('a'), f('b')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    fail = false;
    assert.equal(await f('c'), 'C');
  });

  it("fails only the bad item's caller: a failed batch is run again item by item, in call order", async () => {
    const runs: string[][] = [];
    const f = createBatcher(async (xs: string[]) => {
      runs.push(xs);
      if (xs.includes('bad')) throw new Error(`refused ${xs.length}`);
      return xs.map((x) => x.toUpperCase());
    });
    const results = await Promise.allSettled([f('a'), f('bad'), f('c')]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['A', 'refused 1', 'C'],
    );
    assert.deepEqual(runs, [['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('does not retry item by item when the store is unavailable (every item would meet the outage again)', async () => {
    let runs = 0;
    const f = createBatcher(async () => {
      runs++;
      throw new AppError(503, 'database_unavailable', 'down');
    });
    const results = await Promise.allSettled([f(1), f(2), f(3)]);
    assert.ok(results.every((r) => r.status === 'rejected' && (r.reason as AppError).code === 'database_unavailable'));
    assert.equal(runs, 1);
  });

  it('on a real database: one row PostgreSQL refuses (NUL) fails alone, the rows batched with it are stored', async () => {
    const t = await testDatabase('kit_batch');
    try {
      await t.db.exec('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)');
      const insert = createBatcher(async (rows: { id: number; body: string }[]) => {
        const r = await t.db.query<{ id: number }>('INSERT INTO notes (id, body) SELECT * FROM unnest($1::int[], $2::text[]) RETURNING id', [
          rows.map((x) => x.id),
          rows.map((x) => x.body),
        ]);
        return rows.map((x) => r.rows.some((y) => y.id === x.id));
      });
      const results = await Promise.allSettled([insert({ id: 1, body: 'one' }), insert({ id: 2, body: 'x\u0000y' }), insert({ id: 3, body: 'three' })]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual((await t.db.query('SELECT id, body FROM notes ORDER BY id')).rows, [
        { id: 1, body: 'one' },
        { id: 3, body: 'three' },
      ]);
    } finally {
      await t.drop();
    }
  });

  it('rejects when the run answers the wrong number of results', async () => {
    const f = createBatcher(async (xs: number[]) => xs.slice(1));
    await assert.rejects(Promise.all([f(1), f(2)]), /returned 1 results for 2 items/);
  });
});

describe('onePer', () => {
  it('makes one value per owner object, on first use', () => {
    let made = 0;
    const per = onePer((owner: { name: string }) => ({ owner: owner.name, n: ++made }));
    const a = { name: 'a' };
    const b = { name: 'b' };
    assert.equal(per(a), per(a));
    assert.notEqual(per(a), per(b));
    assert.deepEqual([per(a).owner, per(b).owner, made], ['a', 'b', 2]);
  });
});
