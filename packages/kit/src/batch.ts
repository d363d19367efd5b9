/**
 * Group commit: calls that arrive while earlier batches are in flight are gathered and handed to
 * `run` together (one statement for many callers), the way databases group commits. A call that
 * finds a free slot waits only for the end of the current event-loop turn (calls made in the same
 * turn join it), so a quiet node adds no delay and a busy one makes fewer, larger round trips.
 *
 * One caller's bad item never fails the others: when a run of several items fails, each item is run
 * again on its own (in call order), so every caller gets the outcome it would have had without grouping.
 */
import { AppError } from './errors.js';

export interface BatcherOptions {
  /** Most items in one run (default 200). */
  maxBatch?: number;
  /** Runs in flight at once (default 2). */
  maxInFlight?: number;
  /**
   * Whether a failed run of several items is retried one item at a time (default: yes, unless the
   * error is an outage, a 503 AppError such as database_unavailable, which every item would meet again).
   */
  retryAlone?: (err: unknown) => boolean;
}

/** The default of `retryAlone`: everything but an outage. */
export const retryUnlessUnavailable = (err: unknown): boolean => !(err instanceof AppError && err.status === 503);

interface Waiting<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (err: unknown) => void;
}

/**
 * One value per owner object, made on first use and dropped with the owner (a batcher per database or
 * per state store, shared by every caller that uses that owner).
 */
export function onePer<K extends object, V>(make: (owner: K) => V): (owner: K) => V {
  const made = new WeakMap<K, V>();
  return (owner) => {
    let v = made.get(owner);
    if (v === undefined) {
      v = make(owner);
      made.set(owner, v);
    }
    return v;
  };
}

/** `run` receives the items in call order and must return one output per item, in the same order. */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, opts: BatcherOptions = {}): (item: I) => Promise<O> {
  const maxBatch = opts.maxBatch ?? 200;
  const maxInFlight = opts.maxInFlight ?? 2;
  const retryAlone = opts.retryAlone ?? retryUnlessUnavailable;
  let queue: Waiting<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  const runSafely = (items: I[]): Promise<O[]> => {
    try {
      return run(items).then((out) => {
        if (out.length !== items.length) throw new WrongResultCount(`batch run returned ${out.length} results for ${items.length} items`);
        return out;
      });
    } catch (err) {
      return Promise.reject(err);
    }
  };
  /** Each item on its own, one after the other (keeps call order), each caller getting its own outcome. */
  const runAlone = async (batch: Waiting<I, O>[]) => {
    for (const w of batch) {
      await runSafely([w.item]).then(
        (out) => w.resolve(out[0]),
        (err) => w.reject(err),
      );
    }
  };
  const start = (batch: Waiting<I, O>[]) => {
    inFlight++;
    runSafely(batch.map((w) => w.item))
      .then(
        (out) => {
          for (let i = 0; i < batch.length; i++) batch[i].resolve(out[i]);
        },
        (err) => {
          if (batch.length > 1 && !(err instanceof WrongResultCount) && retryAlone(err)) return runAlone(batch);
          for (const w of batch) w.reject(err);
        },
      )
      .catch((err) => {
        for (const w of batch) w.reject(err);
      })
      .finally(() => {
        inFlight--;
        if (queue.length) schedule();
      });
  };
  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      start(batch);
    }
  };
  const schedule = () => {
    if (scheduled || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}

/** A run that broke its contract (a bug of the caller, not of one item): never retried item by item. */
class WrongResultCount extends Error {}
