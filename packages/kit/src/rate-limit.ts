/** Sliding-window limits shared by every node through the state store (auth and registry use the same). */
import { sha256Hex } from './crypto.js';
import { tooManyRequests } from './errors.js';
import { groupedHits, type StateStore } from './state/index.js';

export interface Limit {
  /** What is limited, e.g. `login:ip`. */
  name: string;
  /** The caller's key within it (hashed: emails and fingerprints do not go into Redis in clear). */
  key: string;
  limit: number;
}

/** `onLimited`: called with the name of each limit that refused a request (metrics; never the caller's key). */
export function createRateLimiter(state: StateStore, windowSeconds: number, opts: { onLimited?: (limit: string) => void } = {}) {
  const windowMs = windowSeconds * 1000;
  // The hits of requests arriving together go out in one script call (group commit).
  const hitTogether = groupedHits(state);
  return {
    /** Records a hit on every limit; refuses with 429 rate_limited when any is exhausted. */
    async check(...limits: Limit[]): Promise<void> {
      let retryAfterMs = 0;
      // Every limit is hit either way, so the hits go out together: one script call, one round trip.
      const decisions = await hitTogether(limits.map((l) => ({ key: `rl:${l.name}:${sha256Hex(l.key).slice(0, 32)}`, limit: l.limit, windowMs })));
      decisions.forEach((d, i) => {
        if (d.allowed) return;
        retryAfterMs = Math.max(retryAfterMs, d.retryAfterMs);
        opts.onLimited?.(limits[i].name);
      });
      if (retryAfterMs > 0) throw tooManyRequests('rate_limited', 'Too many requests; retry later', retryAfterMs);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
