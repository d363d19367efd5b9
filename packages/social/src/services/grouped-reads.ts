/**
 * Reads that many operations running at the same moment make alike (one presence change per socket
 * frame, one socket registration per connect), grouped into one statement per batch with the kit's
 * createBatcher: every change arriving together costs one round trip to PostgreSQL instead of one each
 * (measured: bench ws-presence, docs/benchmarks.md). Each caller still gets exactly its own answer.
 */
import { createBatcher, onePer, type Queryable } from '@platform/kit';
import type { UserRow } from '../context.js';
import { unmutedFriendships } from '../queries/friends.js';
import { usersByIds } from '../queries/users.js';

export interface GroupedReads {
  /** The user row by internal id (undefined when it was deleted). */
  user(id: string): Promise<UserRow | undefined>;
  /** The owner's friends who did not mute the owner: who hears of the owner's presence. */
  unmutedFriends(ownerId: string): Promise<string[]>;
}

const distinct = (ids: string[]) => [...new Set(ids)];

export const groupedReads = onePer(
  (db: Queryable): GroupedReads => ({
    user: createBatcher<string, UserRow | undefined>(async (ids) => {
      const rows = await usersByIds(db, distinct(ids));
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id));
    }),
    unmutedFriends: createBatcher<string, string[]>(async (owners) => {
      const rows = await unmutedFriendships(db, distinct(owners));
      const byOwner = new Map<string, string[]>();
      for (const r of rows) {
        const list = byOwner.get(r.user_id);
        if (list) list.push(r.friend_id);
        else byOwner.set(r.user_id, [r.friend_id]);
      }
      // A fresh array per caller: callers own what they get.
      return owners.map((o) => [...(byOwner.get(o) ?? [])]);
    }),
  }),
);
