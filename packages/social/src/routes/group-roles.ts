/** Running a group (docs/social.md, "Groups"): kicks, bans, roles, ownership. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { banFromGroup, kickMember, listRoles, putRole, removeRole, setRole, transferOwnership, unbanFromGroup } from '../services/group-roles.js';
import { IdParams } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, NoContent, VALIDATED } from './responses.js';
import { AS_MEMBER, GroupDto, GroupMemberDto, GroupMemberParams, GroupRoleDto, PermissionSchema, RoleParams } from './group-schemas.js';

export function groupRoleRoutes(app: App, ctx: Ctx): void {
  memberActionRoutes(app, ctx);
  roleRoutes(app, ctx);
}

/** Kicks, bans, a member’s role, ownership. */
function memberActionRoutes(app: App, ctx: Ctx): void {
  const memberAction = (summary: string, permission: string) => ({
    config: { caller: 'player' as const },
    schema: {
      tags: ['groups'],
      summary: `${summary} (permission ${permission}; only members of lower rank)`,
      params: GroupMemberParams,
      headers: CallerHeaders,
      response: { 204: NoContent, ...errorResponses(CALLER, BODY, AS_MEMBER, 'group_member_not_found', 'user_not_found', 'rank_too_low') },
    },
  });
  app.post('/v1/groups/:id/members/:publicId/kick', memberAction('Remove a member; they and the members get groupMemberLeft', 'kick'), async (req, reply) => {
    await kickMember(ctx, req.user, req.game, req.params.id, req.params.publicId);
    reply.status(204);
  });
  app.put('/v1/groups/:id/bans/:publicId', memberAction('Ban a player from the group (a member is removed)', 'ban'), async (req, reply) => {
    await banFromGroup(ctx, req.user, req.game, req.params.id, req.params.publicId);
    reply.status(204);
  });
  app.delete(
    '/v1/groups/:id/bans/:publicId',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Lift a ban (permission ban)',
        params: GroupMemberParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, AS_MEMBER, 'ban_not_found') },
      },
    },
    async (req, reply) => {
      await unbanFromGroup(ctx, req.user, req.game, req.params.id, req.params.publicId);
      reply.status(204);
    },
  );
  app.put(
    '/v1/groups/:id/members/:publicId/role',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Give a member a role below the caller’s rank (permission manage_roles); the members get groupRoleChanged',
        params: GroupMemberParams,
        headers: CallerHeaders,
        body: Type.Object({ role: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
        response: { 200: GroupMemberDto, ...errorResponses(CALLER, BODY, AS_MEMBER, 'group_member_not_found', 'role_not_found', 'invalid_role', 'rank_too_low') },
      },
    },
    async (req) => setRole(ctx, req.user, req.game, req.params.id, req.params.publicId, req.body.role),
  );
  app.post(
    '/v1/groups/:id/owner',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Hand the group to another member (the owner, who becomes an admin)',
        params: IdParams,
        headers: CallerHeaders,
        body: Type.Object({ publicId: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
        response: { 200: GroupDto, ...errorResponses(CALLER, BODY, AS_MEMBER, 'group_member_not_found', 'rank_too_low') },
      },
    },
    async (req) => transferOwnership(ctx, req.user, req.game, req.params.id, req.body.publicId),
  );
}

/** The roles a group defines. */
function roleRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/groups/:id/roles',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'The group’s roles, highest rank first: the built-in owner, admin and member, and those it defines',
        params: IdParams,
        headers: CallerHeaders,
        response: { 200: Type.Object({ roles: Type.Array(GroupRoleDto) }), ...errorResponses(CALLER, VALIDATED, 'group_not_found') },
      },
    },
    async (req) => listRoles(ctx, req.user, req.game, req.params.id),
  );
  app.put(
    '/v1/groups/:id/roles/:name',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Define or change a role below the caller’s rank, with permissions the caller holds (permission manage_roles)',
        params: RoleParams,
        headers: CallerHeaders,
        body: Type.Object({ rank: Type.Integer(), permissions: Type.Array(PermissionSchema, { maxItems: 16 }) }, { additionalProperties: false }),
        response: { 200: GroupRoleDto, ...errorResponses(CALLER, BODY, AS_MEMBER, 'invalid_role', 'rank_too_low', 'too_many_roles') },
      },
    },
    async (req) => putRole(ctx, req.user, req.game, req.params.id, req.params.name, req.body),
  );
  app.delete(
    '/v1/groups/:id/roles/:name',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Remove a role the group defined (permission manage_roles); its holders become members',
        params: RoleParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, AS_MEMBER, 'role_not_found', 'rank_too_low') },
      },
    },
    async (req, reply) => {
      await removeRole(ctx, req.user, req.game, req.params.id, req.params.name);
      reply.status(204);
    },
  );
}

