/**
 * The guest abuse score (docs/auth.md, "Guest abuse score"; docs/decisions/0022-guest-safety.md). Signals, each a
 * weight added to a subject and halving every AUTH_GUEST_SCORE_HALF_LIFE_HOURS:
 *
 *   guest_created    a guest made on a device (1) and from a network, /24 or /64 (0.02: a NAT or a carrier is many players)
 *   restore_failed   a wrong guest secret from a device (2) and a network (0.5); the account tried is not scored
 *                    (it is the victim of the guessing, not its author)
 *   sanctioned       a sanction against an account (ban 25, any other 10), on the account and its devices
 *
 * Guest creation is scored by its device plus its network: from AUTH_GUEST_SCORE_SLOW it is rate-limited harder
 * (AUTH_RATE_GUEST_SCORED per window), from AUTH_GUEST_SCORE_REFUSE refused (403 guest_creation_refused). Staff
 * see a score with its reasons (GET /admin/accounts/:id); the player never does, and nothing here is on the path
 * of an upgrade (linking an email or a platform identity).
 */
import type { Queryable } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { deviceHashesOf, recordSignals, signalsOf, type SignalEvent, type SignalRow, type SignalSubjectKind } from '../queries/guest-signals.js';
import { ipCidr } from './tokens.js';

export const SIGNAL_WEIGHTS = {
  guest_created: { device: 1, network: 0.02 },
  restore_failed: { device: 2, network: 0.5 },
  sanctioned: { ban: 25, other: 10 },
} as const;

export type ScoreLevel = 'normal' | 'slow' | 'refuse';

export interface GuestScore {
  /** Rounded to 2 decimals. */
  score: number;
  level: ScoreLevel;
  reasons: { subject: SignalSubjectKind; signal: string; value: number; events: number; last_at: string }[];
}

/** The database (or the caller's transaction) and the settings. */
type ScoreContext = { db: Queryable; config: AuthConfig };

const halfLife = (ctx: ScoreContext) => ctx.config.guestScoreHalfLifeHours * 3600;

const round = (n: number) => Math.round(n * 100) / 100;

function levelOf(ctx: ScoreContext, score: number): ScoreLevel {
  if (score >= ctx.config.guestScoreRefuse) return 'refuse';
  return score >= ctx.config.guestScoreSlow ? 'slow' : 'normal';
}

function scoreOf(ctx: ScoreContext, rows: SignalRow[]): GuestScore {
  const score = round(rows.reduce((sum, r) => sum + r.value, 0));
  return {
    score,
    level: levelOf(ctx, score),
    reasons: rows.map((r) => ({ subject: r.subject_kind, signal: r.signal, value: round(r.value), events: r.events, last_at: new Date(r.as_of).toISOString() })),
  };
}

/** The subjects of a guest creation or restore: the device (its fingerprint's hash) and the network of the address. */
function origin(fingerprintHash: string, ip: string | undefined): { kind: SignalSubjectKind; subject: string }[] {
  const network = ipCidr(ip);
  return [{ kind: 'device', subject: fingerprintHash }, ...(network ? [{ kind: 'network' as const, subject: network }] : [])];
}

/**
 * Before a guest is created: refused from AUTH_GUEST_SCORE_REFUSE, limited to AUTH_RATE_GUEST_SCORED per window
 * from AUTH_GUEST_SCORE_SLOW (per device, and per network when the network alone is that high).
 */
export async function assertGuestCreationAllowed(ctx: AuthContext, fingerprintHash: string, ip: string | undefined): Promise<void> {
  const subjects = origin(fingerprintHash, ip);
  const rows = await signalsOf(ctx.db, subjects, halfLife(ctx));
  const { level } = scoreOf(ctx, rows);
  if (level === 'refuse') throw fail('guest_creation_refused', 'Guest accounts cannot be created here; sign in or create an account with an email address');
  if (level === 'slow') {
    const networkScore = rows.filter((r) => r.subject_kind === 'network').reduce((s, r) => s + r.value, 0);
    await ctx.limiter.check(
      { name: 'guest:scored_device', key: fingerprintHash, limit: ctx.config.rateGuestScored },
      ...(networkScore >= ctx.config.guestScoreSlow && subjects[1] ? [{ name: 'guest:scored_network', key: subjects[1].subject, limit: ctx.config.rateGuestScored }] : []),
    );
  }
}

const eventsAt = (subjects: { kind: SignalSubjectKind; subject: string }[], signal: keyof typeof SIGNAL_WEIGHTS, weights: Partial<Record<SignalSubjectKind, number>>): SignalEvent[] =>
  subjects.filter((s) => weights[s.kind] !== undefined).map((s) => ({ ...s, signal, weight: weights[s.kind]! }));

export async function recordGuestCreated(ctx: ScoreContext, fingerprintHash: string, ip: string | undefined): Promise<void> {
  await recordSignals(ctx.db, eventsAt(origin(fingerprintHash, ip), 'guest_created', SIGNAL_WEIGHTS.guest_created), halfLife(ctx));
}

export async function recordRestoreFailed(ctx: ScoreContext, fingerprintHash: string, ip: string | undefined): Promise<void> {
  await recordSignals(ctx.db, eventsAt(origin(fingerprintHash, ip), 'restore_failed', SIGNAL_WEIGHTS.restore_failed), halfLife(ctx));
}

/** A sanction against the account: scored on the account and on the devices it last signed in on. */
export async function recordSanctioned(ctx: ScoreContext, accountId: string, type: string): Promise<void> {
  const weight = type === 'ban' ? SIGNAL_WEIGHTS.sanctioned.ban : SIGNAL_WEIGHTS.sanctioned.other;
  const devices = await deviceHashesOf(ctx.db, accountId);
  await recordSignals(
    ctx.db,
    [{ kind: 'account', subject: accountId, signal: 'sanctioned', weight }, ...devices.map((d) => ({ kind: 'device' as const, subject: d, signal: 'sanctioned', weight }))],
    halfLife(ctx),
  );
}

/** Staff: an account's score (its own signals and its devices'), with the reasons. */
export async function accountScore(ctx: ScoreContext, accountId: string): Promise<GuestScore> {
  const devices = await deviceHashesOf(ctx.db, accountId);
  const rows = await signalsOf(ctx.db, [{ kind: 'account', subject: accountId }, ...devices.map((d) => ({ kind: 'device' as const, subject: d }))], halfLife(ctx));
  return scoreOf(ctx, rows);
}
