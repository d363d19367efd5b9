/** What every service function needs: stores, settings, events and a clock. */
import type { CursorSealer, Database, GameCredentialRef, GroupLimits, GuestFeature, PlatformFriendsMode, StateStore, TextFilters, TextFilterSettings } from '@platform/kit';
import type { SocialConfig } from './config.js';
import type { EventPublisher } from './services/events.js';
import type { SocialMetrics } from './adapters/metrics.js';
import type { Sanctions } from './services/sanctions.js';
import type { AuthAdmin } from './adapters/auth-client.js';

export interface Ctx {
  db: Database;
  state: StateStore;
  config: SocialConfig;
  events: EventPublisher;
  metrics: SocialMetrics;
  /** Chat sanctions announced by auth (services/sanctions.ts). */
  sanctions: Sanctions;
  /** The auth service's staff API (moderation actions). */
  authAdmin: AuthAdmin;
  /** Seals and opens the paging cursors (kit cursor.ts), with the key every node shares. */
  cursors: CursorSealer;
  /** The games' compiled text filters (kit text-filter.ts), and the newest settings heard of per game. */
  textFilters: TextFilters;
  now(): Date;
}

export type CrossGameVisibility = 'isolated' | 'summary' | 'full';

/** The game a request is made from (tenancy headers); gameId null = no game context. */
export interface GameContext {
  gameId: string | null;
  visibility: CrossGameVisibility;
  /** The game's guest restrictions (registry GuestRestricted); absent or null: the deployment's SOCIAL_GUEST_RESTRICTED. */
  guestRestricted?: readonly GuestFeature[] | null;
  /**
   * The credential that gave this context (none without one), and `checkedAt`: the tenancy's count of registry
   * notices when it was checked, so a socket whose check raced a revocation is caught (adapters/registry-client.ts).
   */
  credential?: GameCredentialRef & { checkedAt: number };
  /** The game's group limits (registry GroupLimits); a limit absent here, or null, is the deployment's. */
  groupLimits?: GroupLimits | null;
  /** What the game does with a player's platform friends (registry PlatformFriends); absent: the default, suggest. */
  platformFriends?: PlatformFriendsMode;
  /** The game's text filter as the registry answered it (absent: off; services/text-filter.ts takes newer ones). */
  textFilter?: TextFilterSettings;
}

export const NO_GAME: GameContext = { gameId: null, visibility: 'isolated' };

/** The acting user (internal row; account_id never leaves the service). */
export type { ProfileVisibility, UserRow } from './queries/users.js';
