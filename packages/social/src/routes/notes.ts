/** Private notes about other users. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { deleteNote, getNote, NOTE_MAX, putNote } from '../services/notes.js';
import { NoteResponse, PublicIdParams } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, NoContent, VALIDATED } from './responses.js';

export function noteRoutes(app: App, ctx: Ctx): void {
  app.get('/v1/notes/:publicId', {
    config: { caller: 'player' },
      schema: {
        tags: ['notes'],
        summary: 'The caller’s note about a user',
        params: PublicIdParams,
        headers: CallerHeaders,
        // An unknown user, or one who blocked the caller, reads as no note.
        response: { 200: NoteResponse, ...errorResponses(CALLER, VALIDATED, 'no_note') },
      },
    }, async (req) => getNote(ctx, req.user, req.params.publicId));

  app.put(
    '/v1/notes/:publicId',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['notes'],
        summary: 'Write a note (a blank text clears it)',
        params: PublicIdParams,
        headers: CallerHeaders,
        body: Type.Object({ text: Type.String({ maxLength: NOTE_MAX }) }, { additionalProperties: false }),
        response: {
          200: NoteResponse,
          204: Type.Null({ description: 'The note was cleared' }),
          ...errorResponses(CALLER, BODY, 'user_not_found', 'cannot_note_self'),
        },
      },
    },
    async (req, reply) => {
      const note = await putNote(ctx, req.user, req.params.publicId, req.body.text);
      if (!note) return reply.status(204).send(null);
      return note;
    },
  );

  app.delete('/v1/notes/:publicId', {
    config: { caller: 'player' },
      schema: {
        tags: ['notes'],
        summary: 'Delete a note (idempotent)',
        params: PublicIdParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, 'user_not_found') },
      },
    }, async (req, reply) => {
    await deleteNote(ctx, req.user, req.params.publicId);
    return reply.status(204).send(null);
  });
}
