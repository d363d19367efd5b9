// Group commit: gathering concurrent calls into batches, results and errors per caller, in-flight bound.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBatcher, onePer } from '../src/batch.js';

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
