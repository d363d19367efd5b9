/**
 * Group commit: calls that arrive while earlier batches are in flight are gathered and handed to
 * `run` together (one statement for many callers), the way databases group commits. A call that
 * finds a free slot waits only for the end of the current event-loop turn (calls made in the same
 * turn join it), so a quiet node adds no delay and a busy one makes fewer, larger round trips.
 */
export interface BatcherOptions {
  /** Most items in one run (default 200). */
  maxBatch?: number;
  /** Runs in flight at once (default 2). */
  maxInFlight?: number;
}

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
  let queue: Waiting<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  const start = (batch: Waiting<I, O>[]) => {
    inFlight++;
    let outputs: Promise<O[]>;
    try {
      outputs = run(batch.map((w) => w.item));
    } catch (err) {
      outputs = Promise.reject(err);
    }
    outputs
      .then(
        (out) => {
          if (out.length !== batch.length) throw new Error(`batch run returned ${out.length} results for ${batch.length} items`);
          for (let i = 0; i < batch.length; i++) batch[i].resolve(out[i]);
        },
        (err) => {
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
