/**
 * The moderation queue (docs/social.md, "Moderation queue"): reports listed for moderators, one report with the
 * snapshot taken when it was filed, and its moves received -> in_review -> actioned | dismissed. Only accounts
 * whose token carries the `moderator` or `admin` role (auth's roles claim) reach it; players never see a report,
 * so no one learns who reported them.
 */
import { UUID_PATTERN } from '@platform/kit';
import type { Ctx, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { fullHandle } from './users.js';
import type { ReportSnapshot } from './reports.js';
import {
  listReports,
  moveReport,
  reportById,
  reportExists,
  reportTargetAccount,
  usersByIds,
  type ReportRow,
  type ReportState,
} from '../queries/reports.js';
import { userByPublicId } from '../queries/users.js';

export const REPORT_STATES = ['received', 'in_review', 'actioned', 'dismissed'] as const;
export const MODERATOR_ROLES: readonly string[] = ['moderator', 'admin'];

/** Where a report may move from each state; actioned and dismissed are final. */
const NEXT: Record<ReportState, readonly ReportState[]> = {
  received: ['in_review', 'actioned', 'dismissed'],
  in_review: ['actioned', 'dismissed'],
  actioned: [],
  dismissed: [],
};

export function assertModerator(roles: readonly string[] | undefined): void {
  if (!roles?.some((r) => MODERATOR_ROLES.includes(r))) throw socialError('moderator_required', 'The moderator or admin role is required');
}

const CURSOR_KIND = 'reports';

/** A sealed cursor (kit cursor.ts): the last report of the page (the list continues after it in the queue's order). */
const encodeCursor = (ctx: Ctx, id: string) => ctx.cursors.seal(CURSOR_KIND, id);

function decodeCursor(ctx: Ctx, cursor: string): string {
  const id = ctx.cursors.open(CURSOR_KIND, cursor);
  if (id === undefined || !UUID_PATTERN.test(id)) throw socialError('invalid_cursor', 'The cursor is not one this list gave', { field: 'cursor' });
  return id.toLowerCase();
}

type Named = { publicId: string; fullHandle: string } | null;

function reportView(r: ReportRow, moderators: Map<string, Named>) {
  const named = (publicId: string | null, handle: string | null, discriminator: string | null): Named =>
    publicId && handle && discriminator ? { publicId, fullHandle: fullHandle({ display_name: handle, discriminator }) } : null;
  return {
    reportId: r.id,
    state: r.state,
    source: r.source,
    reason: r.reason,
    context: r.context,
    gameId: r.game_id,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: r.updated_at ? new Date(r.updated_at).toISOString() : null,
    reporter: named(r.reporter_public_id, r.reporter_handle, r.reporter_discriminator),
    target: named(r.target_public_id, r.target_handle, r.target_discriminator),
    snapshot: (r.snapshot ?? null) as ReportSnapshot | null,
    repeatCount: r.repeat_count,
    lastReportedAt: r.last_reported_at ? new Date(r.last_reported_at).toISOString() : null,
    repeats: r.repeats,
    history: r.history.map((m) => ({
      state: m.state,
      at: m.at,
      by: m.by ? (moderators.get(m.by) ?? null) : null,
      ...(m.note ? { note: m.note } : {}),
      ...(m.sanctionId ? { sanctionId: m.sanctionId } : {}),
    })),
  };
}

/** The views of these rows, with the moderators of their histories looked up in one query. */
async function views(ctx: Ctx, rows: ReportRow[]) {
  const ids = [...new Set(rows.flatMap((r) => r.history.map((m) => m.by).filter((b): b is string => !!b)))];
  const moderators = new Map<string, Named>(
    (await usersByIds(ctx.db, ids)).map((u) => [u.id, { publicId: u.public_id, fullHandle: fullHandle(u) }]),
  );
  return rows.map((r) => reportView(r, moderators));
}

export async function listQueue(
  ctx: Ctx,
  q: { state?: ReportState; targetPublicId?: string; reason?: string; sanctionId?: string; cursor?: string; limit: number },
) {
  const after = q.cursor === undefined ? undefined : decodeCursor(ctx, q.cursor);
  if (after && !(await reportExists(ctx.db, after))) throw socialError('invalid_cursor', 'The cursor is not one this list gave', { field: 'cursor' });
  let target: string | undefined;
  if (q.targetPublicId !== undefined) {
    const t = await userByPublicId(ctx.db, q.targetPublicId);
    // No such user (or erased): no report names them as its target any more.
    if (!t) return { reports: [] };
    target = t.id;
  }
  // One more than the page: whether a next page exists, without a count.
  const rows = await listReports(ctx.db, { state: q.state, target, reason: q.reason, sanctionId: q.sanctionId?.toLowerCase(), after, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  return { reports: await views(ctx, page), ...(rows.length > q.limit ? { nextCursor: encodeCursor(ctx, page[page.length - 1].id) } : {}) };
}

const notFound = () => socialError('report_not_found', 'No such report');

export async function getReport(ctx: Ctx, id: string) {
  if (!UUID_PATTERN.test(id)) throw notFound();
  const row = await reportById(ctx.db, id.toLowerCase());
  if (!row) throw notFound();
  return (await views(ctx, [row]))[0];
}

/** One move of a report by a moderator; 409 invalid_transition from a state it cannot leave that way. */
export async function moveReportState(ctx: Ctx, moderator: UserRow, id: string, input: { state: ReportState; note?: string }) {
  if (!UUID_PATTERN.test(id)) throw notFound();
  const reportId = id.toLowerCase();
  const from = REPORT_STATES.filter((s) => NEXT[s].includes(input.state));
  const move = { state: input.state, by: moderator.id, at: ctx.now().toISOString(), ...(input.note ? { note: input.note } : {}) };
  if (!(await moveReport(ctx.db, { id: reportId, from, move }))) {
    const row = await reportById(ctx.db, reportId);
    if (!row) throw notFound();
    throw socialError('invalid_transition', `A report in state ${row.state} cannot move to ${input.state}`, { state: row.state });
  }
  return getReport(ctx, reportId);
}

export interface ReportAction {
  sanction: { type: string; reason: string; durationSeconds?: number };
  note?: string;
}

/**
 * A moderation action: a sanction of the report's target through auth (with the moderator's own token, so auth
 * decides who may sanction whom), then the report moves to actioned with the sanction id in its history. The
 * report is checked first (404, 409 from a final state, 404 user_not_found when its target was erased), so a
 * refused action sets no sanction; a concurrent move between the sanction and the report's move answers 409
 * invalid_transition with `sanctionId` (the sanction stands).
 */
export async function actOnReport(ctx: Ctx, moderator: UserRow, token: string, id: string, input: ReportAction) {
  if (!UUID_PATTERN.test(id)) throw notFound();
  const reportId = id.toLowerCase();
  const row = await reportTargetAccount(ctx.db, reportId);
  if (!row) throw notFound();
  if (!NEXT[row.state].includes('actioned')) throw socialError('invalid_transition', `A report in state ${row.state} cannot move to actioned`, { state: row.state });
  if (!row.account_id) throw socialError('user_not_found', 'The reported user was erased');
  const { type, reason, durationSeconds } = input.sanction;
  const s = await ctx.authAdmin.sanction(token, row.account_id, { type, reason, ...(durationSeconds !== undefined ? { duration_seconds: durationSeconds } : {}) });
  const move = { state: 'actioned' as const, by: moderator.id, at: ctx.now().toISOString(), ...(input.note ? { note: input.note } : {}), sanctionId: s.id };
  if (!(await moveReport(ctx.db, { id: reportId, from: ['received', 'in_review'], move }))) {
    throw socialError('invalid_transition', 'The report was moved meanwhile; the sanction stands', { sanctionId: s.id });
  }
  return {
    report: await getReport(ctx, reportId),
    sanction: { id: s.id, type: s.type, reason: s.reason, createdAt: s.created_at, expiresAt: s.expires_at, active: s.active },
  };
}
