/**
 * In-process cache for /auth/validate-key: ApiKey → what validation needs.
 * Entries live `ttlMs` at most. Changes made on this node drop the entry at
 * once; changes made on other nodes arrive through the state store's
 * `registry:game-invalidated` channel.
 */
import type { PlatformFriendsMode } from '@platform/kit';
import { defineWire, type StateStore, type TextFilterSettings, type Unsubscribe } from '@platform/kit';
import type { CrossGameVisibility, GroupLimitsView } from '../queries/games.js';

export const INVALIDATION_CHANNEL = 'registry:game-invalidated';

/**
 * INVALIDATION_CHANNEL's message (docs/decisions/0020-versioned-messages.md). Version 1 is the cache key as plain
 * text (no room for a version); version 2 is `{"v":2,"key":...}`. This release reads both and writes version 1,
 * which the release before reads (it takes the whole text for the key); the release after writes version 2.
 */
export const INVALIDATION_WIRE = defineWire<{ key: string }>({
  name: 'registry.invalidation',
  plainV1: true,
  read: {
    1: (m) => (typeof m.text === 'string' && m.text ? { key: m.text } : undefined),
    2: (m) => (typeof m.key === 'string' && m.key ? { key: m.key } : undefined),
  },
  writes: 1,
  write: ({ key }) => ({ text: key }),
});

/** The cache entry of a client key (the cache holds both; a client key never has a secret). */
export const clientCacheKey = (clientKey: string) => `client:${clientKey}`;

export interface CachedKey {
  gameId: string;
  secretHash: string;
  visibility: CrossGameVisibility;
  /** The game's text filter, handed to social with the game context (a change drops the entry, like visibility's). */
  textFilter: TextFilterSettings;
  guestRestricted: string[] | null;
  groupLimits: GroupLimitsView | null;
  platformFriends: PlatformFriendsMode;
}

export class ApiKeyCache {
  private entries = new Map<string, CachedKey & { expiresAt: number }>();
  /** Bumped on every invalidation: a lookup that raced one is not cached. */
  private generation = 0;
  private unsubscribe?: Unsubscribe;

  constructor(
    private readonly state: StateStore,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.state.subscribe(INVALIDATION_CHANNEL, (raw) => {
      const read = INVALIDATION_WIRE.decode(raw);
      // Not understood: everything goes (a lookup costs less than a replaced secret working on).
      if (read.ok) this.drop(read.value.key);
      else this.dropAll();
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** Looks up through the cache; `load` runs on a miss. */
  async get(apiKey: string, load: () => Promise<CachedKey | undefined>): Promise<CachedKey | undefined> {
    const hit = this.entries.get(apiKey);
    if (hit && hit.expiresAt > Date.now()) return hit;
    if (hit) this.entries.delete(apiKey);
    const generation = this.generation;
    const loaded = await load();
    // Unknown keys are not cached: a flood of random keys cannot grow memory.
    if (loaded && this.ttlMs > 0 && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(apiKey, { ...loaded, expiresAt: Date.now() + this.ttlMs });
    }
    return loaded;
  }

  drop(apiKey: string): void {
    this.generation++;
    this.entries.delete(apiKey);
  }

  /** Drops every entry (an invalidation this node cannot read). */
  dropAll(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Drops locally, then tells the other nodes. */
  async invalidate(apiKey: string): Promise<void> {
    this.drop(apiKey);
    await this.state.publish(INVALIDATION_CHANNEL, INVALIDATION_WIRE.encode({ key: apiKey }));
  }
}
