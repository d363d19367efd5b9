/** Open parties: a leader lists the party in its game; players list those that would admit them (docs/social.md, "Open parties"). */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { listOpenParties, listParty, unlistParty } from '../services/party-listings.js';
import { IdParams } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, NoContent, VALIDATED } from './responses.js';

const Attribute = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 32, description }));

const ListingBody = Type.Object(
  {
    mode: Attribute('The game mode (1–32 letters, digits, "_", ".", ":" or "-")'),
    region: Attribute('The region (same characters)'),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 35, description: 'A language tag (en, pt-BR)' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Anything the game shows, at most 1 KiB as JSON' })),
  },
  { additionalProperties: false },
);

const Nullable = Type.Union([Type.String(), Type.Null()]);
const ListingFields = {
  mode: Nullable,
  region: Nullable,
  language: Nullable,
  metadata: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  listedAt: Type.String({ format: 'date-time' }),
};
export const PartyListingDto = Type.Object(ListingFields);

export const OpenPartyDto = Type.Object({
  partyId: Type.String(),
  leaderPublicId: Type.String(),
  leaderFullHandle: Type.String(),
  visibility: Type.Union([Type.Literal('Public'), Type.Literal('FriendsOnly')]),
  maxSize: Type.Integer(),
  memberCount: Type.Integer(),
  freeSlots: Type.Integer({ description: 'maxSize − memberCount (always ≥ 1: a full party is not listed)' }),
  ...ListingFields,
});

export function partyListingRoutes(app: App, ctx: Ctx): void {
  app.put(
    '/v1/parties/:id/listing',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'List the caller’s party in the game of the request (leader only; replaces an earlier listing)',
        params: IdParams,
        headers: CallerHeaders,
        body: ListingBody,
        response: { 200: PartyListingDto, ...errorResponses(CALLER, BODY, 'party_not_found', 'not_leader', 'invalid_language', 'metadata_too_large') },
      },
    },
    async (req) => listParty(ctx, req.user, req.game, req.params.id, req.body),
  );

  app.delete(
    '/v1/parties/:id/listing',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'Stop listing the caller’s party (leader only; 204 also when not listed)',
        params: IdParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, 'party_not_found', 'not_leader') },
      },
    },
    async (req, reply) => {
      await unlistParty(ctx, req.user, req.params.id);
      reply.status(204);
    },
  );

  app.get(
    '/v1/parties',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'Listed parties of the game that would admit the caller (not full, not Private), newest listing first',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            mode: Attribute('Only this mode (case-insensitive)'),
            region: Attribute('Only this region (case-insensitive)'),
            language: Type.Optional(Type.String({ minLength: 2, maxLength: 35, description: 'Only this language (case-insensitive)' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 20' })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ parties: Type.Array(OpenPartyDto), nextCursor: Nullable }), ...errorResponses(CALLER, VALIDATED, 'invalid_cursor') },
      },
    },
    async (req) => listOpenParties(ctx, req.user, req.game, req.query),
  );
}
