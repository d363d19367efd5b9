/**
 * Presence as data (presence.ts reads and writes it; events.ts carries a PresenceSource to the realtime layer). Its
 * own module with no import of the services, so that the event publisher's types need not import presence.ts.
 */
import type { CROSS_GAME_VISIBILITY } from '../config.js';

type CrossGameVisibility = (typeof CROSS_GAME_VISIBILITY)[number];

export type PresenceState = 'online' | 'away' | 'busy' | 'dnd' | 'invisible';
export type VisibleState = Exclude<PresenceState, 'invisible'> | 'offline';

export interface RichPresence {
  gameId?: string;
  activity?: string;
  partyId?: string;
  joinable?: boolean;
  sessionHandle?: string;
  extra?: Record<string, unknown>;
  join?: { lobbyId?: string; bag?: Record<string, unknown> };
}

/** Rich presence as a viewer sees it. */
export type RichPresenceView = Partial<RichPresence> & { joinable: boolean; originGameId?: string };

export interface StoredPresence {
  state: PresenceState;
  richPresence: RichPresence | null;
  originGameId: string | null;
  originVisibility: CrossGameVisibility;
  updatedAt: string;
}

/**
 * friendPresenceChanged as the domain publishes it: the owner's presence as any friend may see it (offline
 * when invisible), before the game context of the receiving socket is applied. The realtime layer turns it
 * into each socket's payload (`friendPresenceData`); it never reaches a client as it is.
 */
export interface PresenceSource {
  publicId: string;
  state: VisibleState;
  richPresence?: RichPresence;
  originGameId?: string;
  originVisibility?: CrossGameVisibility;
}
