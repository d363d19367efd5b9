/** What every service function needs: stores, settings, events and a clock. */
import type { Database, StateStore } from '@platform/kit';
import type { SocialConfig } from '../config.js';
import type { EventPublisher } from './events.js';

export interface Ctx {
  db: Database;
  state: StateStore;
  config: SocialConfig;
  events: EventPublisher;
  now(): Date;
}

export type CrossGameVisibility = 'isolated' | 'summary' | 'full';

/** The game a request is made from (tenancy headers); gameId null = no game context. */
export interface GameContext {
  gameId: string | null;
  visibility: CrossGameVisibility;
}

export const NO_GAME: GameContext = { gameId: null, visibility: 'isolated' };

/** The acting user (internal row; account_id never leaves the service). */
export interface UserRow {
  id: string;
  account_id: string;
  public_id: string;
  display_name: string;
  name_key: string;
  discriminator: string;
  avatar_url: string | null;
  status: string | null;
  visibility: ProfileVisibility;
  invisible: boolean;
  created_at: Date;
}

export type ProfileVisibility = 'public' | 'friends' | 'private';
