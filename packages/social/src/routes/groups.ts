/** Groups (docs/social.md, "Groups"): create, find, read, edit, disband; the group routes of group-members.ts and group-roles.ts. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { createGroup, disbandGroup, editGroup, getGroup, myGroups, searchGameGroups } from '../services/groups.js';
import { IdParams } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, LIMITED, NoContent, VALIDATED } from './responses.js';
import { AS_MEMBER, FIELD_CODES, fields, GroupDto, Nullable, Page, Str } from './group-schemas.js';
import { groupMemberRoutes } from './group-members.js';
import { groupRoleRoutes } from './group-roles.js';
import { groupModerationRoutes } from './group-moderation.js';

export function groupRoutes(app: App, ctx: Ctx): void {
  createAndFindRoutes(app, ctx);
  readAndEditRoutes(app, ctx);
  groupMemberRoutes(app, ctx);
  groupRoleRoutes(app, ctx);
  groupModerationRoutes(app, ctx);
}

/** Create, search, the caller’s groups. */
function createAndFindRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/groups',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Create a group in the caller’s game, owned by the caller',
        headers: CallerHeaders,
        body: Type.Object(fields, { additionalProperties: false }),
        response: { 201: GroupDto, ...errorResponses(CALLER, BODY, LIMITED, FIELD_CODES, 'group_name_taken', 'group_limit_reached', 'guest_restricted') },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return createGroup(ctx, req.user, req.body, { principal: req.principal, game: req.game });
    },
  );
  app.get(
    '/v1/groups',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Find groups of the caller’s game in name order: by name prefix, tag, language, open ones only',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            prefix: Type.Optional(Type.String({ maxLength: 32 })),
            tag: Type.Optional(Type.String({ maxLength: 5 })),
            language: Type.Optional(Type.String({ maxLength: 35 })),
            open: Type.Optional(Type.Boolean({ description: 'Only groups anyone may join at once' })),
            ...Page,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ groups: Type.Array(GroupDto), nextCursor: Nullable(Str) }), ...errorResponses(CALLER, VALIDATED, LIMITED, 'invalid_cursor') },
      },
    },
    async (req) => searchGameGroups(ctx, req.user, req.game, req.query),
  );
  app.get(
    '/v1/me/groups',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'The caller’s groups in their game, with their role',
        headers: CallerHeaders,
        response: { 200: Type.Object({ groups: Type.Array(GroupDto) }), ...errorResponses(CALLER) },
      },
    },
    async (req) => myGroups(ctx, req.user, req.game),
  );
}

/** Read, edit, disband. */
function readAndEditRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/groups/:id',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'A group (its game’s, or another game’s when the caller’s game sees others in full)',
        params: IdParams,
        headers: CallerHeaders,
        response: { 200: GroupDto, ...errorResponses(CALLER, VALIDATED, 'group_not_found') },
      },
    },
    async (req) => getGroup(ctx, req.user, req.game, req.params.id),
  );
  app.patch(
    '/v1/groups/:id',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Edit the group (permission edit); absent fields stay',
        params: IdParams,
        headers: CallerHeaders,
        body: Type.Object({ ...fields, name: Type.Optional(fields.name), tag: Type.Optional(fields.tag) }, { additionalProperties: false }),
        response: { 200: GroupDto, ...errorResponses(CALLER, BODY, AS_MEMBER, FIELD_CODES, 'group_name_taken') },
      },
    },
    async (req) => editGroup(ctx, req.user, req.game, req.params.id, req.body),
  );
  app.delete(
    '/v1/groups/:id',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Disband the group (the owner); every member gets groupDisbanded',
        params: IdParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, AS_MEMBER) },
      },
    },
    async (req, reply) => {
      await disbandGroup(ctx, req.user, req.game, req.params.id);
      reply.status(204);
    },
  );
}

