/** Private notes of a user about another. */
import type { Ctx, UserRow } from '../context.js';
import { fullHandle, requireAddressableUser } from './users.js';
import { socialError } from './errors.js';
import { deleteNote as deleteNoteRow, noteOf, upsertNote } from '../queries/notes.js';

export const NOTE_MAX = 1000;

export async function getNote(ctx: Ctx, me: UserRow, publicId: string) {
  const subject = await requireAddressableUser(ctx.db, me, publicId).catch(() => {
    throw socialError('no_note', 'No note about this user');
  });
  const n = await noteOf(ctx.db, me.id, subject.id);
  if (!n) throw socialError('no_note', 'No note about this user');
  return { subjectPublicId: subject.public_id, subjectFullHandle: fullHandle(subject), text: n.text, updatedAt: new Date(n.updated_at).toISOString() };
}

/** Sets a note; an empty (blank) text clears it and answers null (204). */
export async function putNote(ctx: Ctx, me: UserRow, publicId: string, text: string) {
  const subject = await requireAddressableUser(ctx.db, me, publicId);
  if (subject.id === me.id) throw socialError('cannot_note_self', 'Notes are about other users');
  const t = text.trim();
  if (!t) {
    await deleteNoteRow(ctx.db, me.id, subject.id);
    return null;
  }
  const n = await upsertNote(ctx.db, me.id, subject.id, t, ctx.now());
  return { subjectPublicId: subject.public_id, subjectFullHandle: fullHandle(subject), text: n.text, updatedAt: new Date(n.updated_at).toISOString() };
}

/** Idempotent: deleting an absent note is fine; an unknown user is 404 user_not_found. */
export async function deleteNote(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const subject = await requireAddressableUser(ctx.db, me, publicId);
  await deleteNoteRow(ctx.db, me.id, subject.id);
}
