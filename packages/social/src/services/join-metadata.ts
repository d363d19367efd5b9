/** Join metadata (lobby id and a small bag) that parties and invites carry for the game client. */
import type { JoinColumns } from '../queries/parties.js';
import { socialError } from './errors.js';

export interface JoinMetadata {
  lobbyId?: string;
  bag?: Record<string, unknown>;
}

const MAX_BAG_BYTES = 2048;

export function checkJoin(join: JoinMetadata | undefined): void {
  if (join?.bag !== undefined && Buffer.byteLength(JSON.stringify(join.bag)) > MAX_BAG_BYTES) {
    throw socialError('join_bag_too_large', 'join.bag must serialise to at most 2 KiB', { field: 'join.bag' });
  }
}

/** As stored: absent parts are null, the bag is JSON text. */
export const joinColumns = (join: JoinMetadata | undefined): JoinColumns => ({
  lobbyId: join?.lobbyId ?? null,
  bag: join?.bag ? JSON.stringify(join.bag) : null,
});

/** As answered: undefined when the row carries none. */
export const joinDto = (row: { has_join: boolean; join_lobby_id: string | null; join_bag: Record<string, unknown> | null }) =>
  row.has_join ? { ...(row.join_lobby_id !== null ? { lobbyId: row.join_lobby_id } : {}), ...(row.join_bag !== null ? { bag: row.join_bag } : {}) } : undefined;
