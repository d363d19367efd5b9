/** Private notes about other users. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import { deleteNote, getNote, NOTE_MAX, putNote } from '../services/notes.js';
import { NoteResponse, PublicIdParams } from './schemas.js';

export function noteRoutes(app: App, ctx: Ctx): void {
  app.get('/v1/notes/:publicId', { schema: { tags: ['notes'], params: PublicIdParams, response: { 200: NoteResponse } } }, async (req) => getNote(ctx, req.user, req.params.publicId));

  app.put(
    '/v1/notes/:publicId',
    {
      schema: {
        tags: ['notes'],
        params: PublicIdParams,
        body: Type.Object({ text: Type.String({ maxLength: NOTE_MAX }) }, { additionalProperties: false }),
        response: { 200: NoteResponse, 204: Type.Null({ description: 'The note was cleared' }) },
      },
    },
    async (req, reply) => {
      const note = await putNote(ctx, req.user, req.params.publicId, req.body.text);
      if (!note) return reply.status(204).send(null);
      return note;
    },
  );

  app.delete('/v1/notes/:publicId', { schema: { tags: ['notes'], params: PublicIdParams } }, async (req, reply) => {
    await deleteNote(ctx, req.user, req.params.publicId);
    return reply.status(204).send();
  });
}
