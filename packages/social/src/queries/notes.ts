/** Private notes of one user about another. */
import type { Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

export interface NoteRow {
  text: string;
  updated_at: Date;
}

export async function noteOf(db: Queryable, author: string, subject: string): Promise<NoteRow | undefined> {
  return (await db.query<NoteRow>('SELECT text, updated_at FROM notes WHERE author = $1 AND subject = $2', [author, subject])).rows[0];
}

export async function upsertNote(db: Queryable, author: string, subject: string, text: string, at: Date): Promise<NoteRow> {
  const r = await db.query<NoteRow>(
    `INSERT INTO notes (author, subject, text, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (author, subject) DO UPDATE SET text = EXCLUDED.text, updated_at = EXCLUDED.updated_at RETURNING text, updated_at`,
    [author, subject, text, at],
  );
  return r.rows[0];
}

/** Idempotent. */
export async function deleteNote(db: Queryable, author: string, subject: string): Promise<void> {
  await db.query('DELETE FROM notes WHERE author = $1 AND subject = $2', [author, subject]);
}

/** Every note of the author, with the subject's row (privacy export). */
export async function notesBy(db: Queryable, author: string): Promise<(UserRow & NoteRow)[]> {
  return (await db.query<UserRow & NoteRow>('SELECT u.*, n.text, n.updated_at FROM notes n JOIN users u ON u.id = n.subject WHERE n.author = $1', [author])).rows;
}
