/** Retention, run on every node on the purge interval: purge of deleted accounts, removal of idle guests. */
import type { AuthContext } from '../context.js';
import { accountsDueForPurge, deleteGuest, idleGuests, purgeAccountData } from '../queries/retention.js';
import { purgeDecayedSignals } from '../queries/guest-signals.js';

/** Hard-deletes personal data of accounts deleted longer than the grace window ago. The account row (sub) stays. */
export async function purgeDeletedAccounts(ctx: AuthContext, now: Date = new Date()): Promise<number> {
  const { config, db } = ctx;
  const due = await accountsDueForPurge(db, now, config.deletionGraceHours);
  for (const id of due) await db.transaction((tx) => purgeAccountData(tx, id));
  return due.length;
}

/**
 * Removes guest accounts (never upgraded) without any sign-in or refresh for
 * AUTH_GUEST_IDLE_DAYS: the account and everything hanging off it.
 */
export async function pruneIdleGuests(ctx: AuthContext, now: Date = new Date()): Promise<number> {
  const { config, db } = ctx;
  const idle = await idleGuests(db, now, config.guestIdleDays);
  for (const id of idle) await db.transaction((tx) => deleteGuest(tx, id));
  return idle.length;
}

/** Drops the guest abuse signals decayed to nothing (queries/guest-signals.ts). */
export async function purgeDecayedGuestSignals(ctx: AuthContext): Promise<number> {
  return purgeDecayedSignals(ctx.db, ctx.config.guestScoreHalfLifeHours * 3600);
}
