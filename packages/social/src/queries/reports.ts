/**
 * Reports to moderation and the moderation queue. Reports outlive erasure: the reporter and the target become
 * NULL (foreign keys), and the target's snapshot is cleared with them (clearTargetSnapshots).
 */
import type { Queryable } from '@platform/kit';

export type ReportState = 'received' | 'in_review' | 'actioned' | 'dismissed';

/** Who filed a report: a player (POST /v1/reports) or the text filter (mode flag; no reporter). */
export type ReportSource = 'player' | 'text_filter';

/** One move of a report: the state it moved to, the moderator's user id (null: gone), when, an optional note. */
export interface ReportMove {
  state: ReportState;
  by: string | null;
  at: string;
  note?: string;
  /** A moderation action's sanction (auth's id). */
  sanctionId?: string;
}

/** A repeated report merged into an open one: its reason, context and when it was filed. */
export interface ReportRepeat {
  reason: string;
  context: string | null;
  at: string;
}

/** How many of a report's merged repeats are kept (the newest); `repeat_count` counts them all. */
export const REPEATS_KEPT = 20;

export interface ReportRow {
  id: string;
  reason: string;
  context: string | null;
  game_id: string | null;
  state: ReportState;
  source: ReportSource;
  snapshot: unknown;
  history: ReportMove[];
  created_at: Date;
  updated_at: Date | null;
  /** Reports by the same reporter about the same target merged into this one (queries: fileOrMergeReport). */
  repeat_count: number;
  repeats: ReportRepeat[];
  last_reported_at: Date | null;
  reporter_public_id: string | null;
  reporter_handle: string | null;
  reporter_discriminator: string | null;
  target_public_id: string | null;
  target_handle: string | null;
  target_discriminator: string | null;
}

const SELECT_REPORT = `SELECT r.id, r.reason, r.context, r.game_id, r.state, r.source, r.snapshot, r.history, r.created_at, r.updated_at,
       r.repeat_count, r.repeats, r.last_reported_at,
       rep.public_id AS reporter_public_id, rep.display_name AS reporter_handle, rep.discriminator AS reporter_discriminator,
       tgt.public_id AS target_public_id, tgt.display_name AS target_handle, tgt.discriminator AS target_discriminator
  FROM reports r LEFT JOIN users rep ON rep.id = r.reporter LEFT JOIN users tgt ON tgt.id = r.target`;

/** A report: a player's (`reporter`), or one the text filter opens (mode flag: no reporter, source `text_filter`). */
export async function insertReport(
  db: Queryable,
  r: { reporter: string | null; target: string; reason: string; context: string | null; gameId: string | null; snapshot: unknown; at: Date; source?: 'player' | 'text_filter' },
): Promise<void> {
  await db.query('INSERT INTO reports (reporter, target, reason, context, game_id, snapshot, created_at, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
    r.reporter,
    r.target,
    r.reason,
    r.context,
    r.gameId,
    JSON.stringify(r.snapshot),
    r.at,
    r.source ?? 'player',
  ]);
}

/** Serialises the reports of one reporter about one target (inside a transaction). */
export async function lockReportPair(db: Queryable, reporter: string, target: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`report:${reporter}:${target}`]);
}

/**
 * Merges a repeat into the reporter's newest open report (received, in_review) about the target filed after
 * `since`: one more in `repeat_count`, the repeat appended to `repeats` (the oldest dropped past REPEATS_KEPT).
 * False when there is none (the caller files a new report).
 */
export async function mergeRepeat(db: Queryable, m: { reporter: string; target: string; since: Date; repeat: ReportRepeat }): Promise<boolean> {
  const r = await db.query(
    `UPDATE reports SET repeat_count = repeat_count + 1, last_reported_at = $4::timestamptz,
            repeats = (CASE WHEN jsonb_array_length(repeats) >= $5 THEN repeats - 0 ELSE repeats END) || jsonb_build_array($6::jsonb)
      WHERE id = (SELECT id FROM reports WHERE reporter = $1 AND target = $2 AND state IN ('received', 'in_review') AND created_at > $3
                   ORDER BY created_at DESC LIMIT 1)`,
    [m.reporter, m.target, m.since, m.repeat.at, REPEATS_KEPT, JSON.stringify(m.repeat)],
  );
  return r.rowCount > 0;
}

export interface ReportFilter {
  state?: ReportState;
  target?: string;
  reason?: string;
  /** The report whose moderation action set this sanction (a move in its history names it). */
  sanctionId?: string;
  /** Keyset: the reports after this one in the order (older, or as old with a smaller id). */
  after?: string;
  limit: number;
}

/** A page of the queue, newest first (created_at, id descending), filtered. */
export async function listReports(db: Queryable, f: ReportFilter): Promise<ReportRow[]> {
  const r = await db.query<ReportRow>(
    `${SELECT_REPORT}
      WHERE ($1::text IS NULL OR r.state = $1) AND ($2::uuid IS NULL OR r.target = $2) AND ($3::text IS NULL OR r.reason = $3)
        AND ($4::uuid IS NULL OR (r.created_at, r.id) < (SELECT c.created_at, c.id FROM reports c WHERE c.id = $4))
        AND ($6::text IS NULL OR r.history @> jsonb_build_array(jsonb_build_object('sanctionId', $6::text)))
      ORDER BY r.created_at DESC, r.id DESC LIMIT $5`,
    [f.state ?? null, f.target ?? null, f.reason ?? null, f.after ?? null, f.limit, f.sanctionId ?? null],
  );
  return r.rows;
}

export async function reportExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM reports WHERE id = $1', [id])).rowCount > 0;
}

/** Public id and handle parts of these users (the moderators named in report histories). */
export async function usersByIds(db: Queryable, ids: readonly string[]): Promise<{ id: string; public_id: string; display_name: string; discriminator: string }[]> {
  if (!ids.length) return [];
  const r = await db.query<{ id: string; public_id: string; display_name: string; discriminator: string }>(
    'SELECT id, public_id, display_name, discriminator FROM users WHERE id = ANY($1::uuid[])',
    [[...ids]],
  );
  return r.rows;
}

export async function reportById(db: Queryable, id: string): Promise<ReportRow | undefined> {
  return (await db.query<ReportRow>(`${SELECT_REPORT} WHERE r.id = $1`, [id])).rows[0];
}

/**
 * Moves a report from one of `from` to `to`, appending the move to its history, in one statement (two
 * moderators acting at once: one wins, the other finds the state moved). Returns false when the report is
 * not in one of `from` (any more).
 */
export async function moveReport(db: Queryable, m: { id: string; from: readonly ReportState[]; move: ReportMove }): Promise<boolean> {
  const r = await db.query(
    `UPDATE reports SET state = $2, updated_at = $3, history = history || jsonb_build_array($4::jsonb)
      WHERE id = $1 AND state = ANY($5::text[])`,
    [m.id, m.move.state, m.move.at, JSON.stringify(m.move), [...m.from]],
  );
  return r.rowCount > 0;
}

/** A report's state and its target's account id (null: the target was erased); undefined: no such report. */
export async function reportTargetAccount(db: Queryable, id: string): Promise<{ state: ReportState; account_id: string | null } | undefined> {
  const r = await db.query<{ state: ReportState; account_id: string | null }>(
    'SELECT r.state, u.account_id FROM reports r LEFT JOIN users u ON u.id = r.target WHERE r.id = $1',
    [id],
  );
  return r.rows[0];
}

/** Erasure of a user: the snapshots taken of them go (their profile and messages are personal data). */
export async function clearTargetSnapshots(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE reports SET snapshot = NULL WHERE target = $1', [userId]);
}

/** The last messages of `author` in one channel, newest first (a report's snapshot). */
export async function lastMessagesOf(
  db: Queryable,
  q: { kind: 'dm' | 'party' | 'group'; channelId: string; author: string; limit: number },
): Promise<{ id: string; body: string; sent_at: Date }[]> {
  const r = await db.query<{ id: string; body: string; sent_at: Date }>(
    `SELECT id, body, sent_at FROM chat_messages WHERE channel = $1 AND channel_id = $2 AND from_user = $3
      ORDER BY sent_at DESC, seq DESC LIMIT $4`,
    [q.kind, q.channelId, q.author, q.limit],
  );
  return r.rows;
}
