/**
 * The guest_signals table (migration 0008): the guest abuse score's decayed signals per subject. Every value is
 * decayed in SQL with the caller's half-life (seconds), so a row is one number: value · 2^(-elapsed / half-life).
 */
import type { Queryable } from '@platform/kit';

export type SignalSubjectKind = 'account' | 'device' | 'network';

export interface SignalEvent {
  kind: SignalSubjectKind;
  subject: string;
  signal: string;
  weight: number;
}

export interface SignalRow {
  subject_kind: SignalSubjectKind;
  subject: string;
  signal: string;
  /** Decayed to now. */
  value: number;
  events: number;
  as_of: Date;
}

const DECAYED = (halfLife: string) => `value * power(0.5, GREATEST(0, EXTRACT(EPOCH FROM (now() - as_of))) / ${halfLife})`;

/** Adds each event's weight to its subject's signal (the stored value decayed first), in one statement. */
export async function recordSignals(db: Queryable, events: SignalEvent[], halfLifeSeconds: number): Promise<void> {
  if (!events.length) return;
  await db.query(
    `INSERT INTO guest_signals AS g (subject_kind, subject, signal, value)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[])
     ON CONFLICT (subject_kind, subject, signal) DO UPDATE SET
       value = g.value * power(0.5, GREATEST(0, EXTRACT(EPOCH FROM (now() - g.as_of))) / $5::float8) + EXCLUDED.value,
       events = g.events + 1,
       as_of = now()`,
    [events.map((e) => e.kind), events.map((e) => e.subject), events.map((e) => e.signal), events.map((e) => e.weight), halfLifeSeconds],
  );
}

/** The signals of these subjects, decayed to now (rows decayed below 0.01 are left out). */
export async function signalsOf(db: Queryable, subjects: { kind: SignalSubjectKind; subject: string }[], halfLifeSeconds: number): Promise<SignalRow[]> {
  if (!subjects.length) return [];
  const r = await db.query<SignalRow>(
    `SELECT subject_kind, subject, signal, ${DECAYED('$3::float8')} AS value, events, as_of FROM guest_signals
      WHERE (subject_kind, subject) IN (SELECT * FROM unnest($1::text[], $2::text[]))
        AND ${DECAYED('$3::float8')} >= 0.01
      ORDER BY subject_kind, signal`,
    [subjects.map((s) => s.kind), subjects.map((s) => s.subject), halfLifeSeconds],
  );
  return r.rows.map((row) => ({ ...row, value: Number(row.value) }));
}

/** The fingerprint hashes of the devices an account last signed in on. */
export async function deviceHashesOf(db: Queryable, accountId: string): Promise<string[]> {
  const r = await db.query<{ fingerprint_hash: string }>(`SELECT fingerprint_hash FROM devices WHERE account_id = $1`, [accountId]);
  return r.rows.map((x) => x.fingerprint_hash);
}

/** Deletes the rows decayed below 0.01 (a row not touched for about 6.6 half-lives per unit of value). */
export async function purgeDecayedSignals(db: Queryable, halfLifeSeconds: number): Promise<number> {
  const r = await db.query(`DELETE FROM guest_signals WHERE ${DECAYED('$1::float8')} < 0.01`, [halfLifeSeconds]);
  return r.rowCount ?? 0;
}
