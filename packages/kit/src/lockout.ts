/**
 * Brute-force lockout per (source, credential), in the shared state store (every node counts together).
 * Failures from one source lock that source out of that credential, with exponential backoff; a source with
 * no recent failures — the owner, elsewhere — is never refused because of someone else's guesses. The
 * trade-off against a lock of the credential itself: a distributed guesser gets `threshold` tries per source
 * and lock period (bounded further by the per-address rate limits and the password hash's cost), in exchange
 * for no stranger being able to keep the owner out.
 */
import { sha256Hex } from './crypto.js';
import type { StateStore } from './state/index.js';

export interface LockoutSettings {
  /** Failures from one source before it is locked out of the credential. */
  threshold: number;
  /** First lock; each further failure past the threshold doubles it. */
  baseSeconds: number;
  maxSeconds: number;
}

/** The source of a sign-in attempt: the address, IPv6 by its /64 (one host usually holds a whole /64). */
export function lockoutSource(ip: string | null | undefined): string {
  if (!ip) return 'unknown';
  if (!ip.includes(':') || ip.startsWith('::ffff:')) return ip.replace(/^::ffff:/, '');
  const [head] = ip.split('::');
  const groups = head.split(':').filter(Boolean);
  return (groups.length >= 4 ? groups.slice(0, 4) : [...groups, ...Array(4 - groups.length).fill('0')]).join(':') + '::/64';
}

/** Told when a source is locked out, and when an attempt finds its source locked (metrics; nothing identifying). */
export interface LockoutHooks {
  onLock?(lockedSeconds: number): void;
  onLockedOut?(): void;
}

export function createSourceLockout(state: StateStore, name: string, s: LockoutSettings, hooks: LockoutHooks = {}) {
  const keyOf = (credential: string, source: string) => `lk:${name}:${sha256Hex(`${credential}\u0000${source}`).slice(0, 32)}`;
  // The failure count outlives any lock, so backoff keeps doubling for a source that keeps guessing.
  const memoryMs = Math.max(s.maxSeconds, 24 * 3600) * 1000;
  const lockSeconds = (failures: number) => Math.min(s.maxSeconds, s.baseSeconds * 2 ** Math.max(0, failures - s.threshold));
  return {
    lockSeconds,
    /** Milliseconds this source stays locked out of the credential (0: not locked). */
    async lockedForMs(credential: string, source: string): Promise<number> {
      const ms = await state.ttl(`${keyOf(credential, source)}:lock`);
      const locked = ms > 0 ? ms : ms === -1 ? s.maxSeconds * 1000 : 0;
      if (locked > 0) hooks.onLockedOut?.();
      return locked;
    },
    /** Counts a failure; returns the failures of this source and the lock it now has (0 when none). */
    async failure(credential: string, source: string): Promise<{ failures: number; lockedSeconds: number }> {
      const k = keyOf(credential, source);
      const failures = await state.incr(`${k}:n`, memoryMs);
      if (failures < s.threshold) return { failures, lockedSeconds: 0 };
      const lockedSeconds = lockSeconds(failures);
      await state.set(`${k}:lock`, '1', lockedSeconds * 1000);
      hooks.onLock?.(lockedSeconds);
      return { failures, lockedSeconds };
    },
    /** A proof of possession from this source clears its count. */
    async success(credential: string, source: string): Promise<void> {
      const k = keyOf(credential, source);
      await Promise.all([state.del(`${k}:n`), state.del(`${k}:lock`)]);
    },
  };
}

export type SourceLockout = ReturnType<typeof createSourceLockout>;
