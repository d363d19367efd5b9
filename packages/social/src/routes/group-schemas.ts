/** The schemas of the group routes (routes/groups.ts, group-members.ts, group-roles.ts). */
import { Type, type Static } from 'typebox';
import { GROUP_PERMISSIONS } from '../services/group-access.js';
import { IdParams } from './schemas.js';

export const Str = Type.String();
export const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
export const JoinPolicySchema = Type.Union([Type.Literal('open'), Type.Literal('request'), Type.Literal('invite')]);
export const PermissionSchema = Type.Union([
  Type.Literal('invite'),
  Type.Literal('accept_requests'),
  Type.Literal('kick'),
  Type.Literal('ban'),
  Type.Literal('edit'),
  Type.Literal('moderate_chat'),
  Type.Literal('manage_roles'),
]);
// The schema names every permission the service knows, and only those.
const permissionsMatch: (typeof GROUP_PERMISSIONS)[number] extends Static<typeof PermissionSchema> ? true : never = true;
void permissionsMatch;
export const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Bounded game data (at most 2 KiB as JSON)' });

export const GroupDto = Type.Object({
  groupId: Str,
  name: Str,
  tag: Str,
  description: Str,
  language: Nullable(Str),
  avatarUrl: Nullable(Str),
  metadata: Type.Union([Metadata, Type.Null()]),
  joinPolicy: JoinPolicySchema,
  memberLimit: Type.Integer(),
  memberCount: Type.Integer(),
  createdAt: Str,
  myRole: Type.Optional(Type.String({ description: 'The caller’s role, when a member' })),
});
export const GroupMemberDto = Type.Object({ publicId: Str, fullHandle: Str, displayName: Str, role: Str, joinedAt: Str });
/** A member as the member pages list them: with whether the member is online (never more of their presence). */
export const GroupMemberListed = Type.Object({ ...GroupMemberDto.properties, online: Type.Boolean({ description: 'Online now (any state but offline and invisible); nothing else of the presence' }) });
export const GroupRoleDto = Type.Object({ name: Str, rank: Type.Integer(), permissions: Type.Array(PermissionSchema), builtIn: Type.Boolean() });
export const GroupInviteDto = Type.Object({ inviteId: Str, groupId: Str, groupName: Str, groupTag: Str, fromPublicId: Str, expiresAt: Str });
export const JoinResult = Type.Object({ state: Type.Union([Type.Literal('joined'), Type.Literal('requested')]), group: GroupDto });

export const fields = {
  name: Type.String({ maxLength: 200, description: '3–32 characters after trimming; unique in the game, case-insensitive' }),
  tag: Type.String({ maxLength: 20, description: '2–5 letters or digits' }),
  description: Type.Optional(Type.String({ maxLength: 2000, description: 'At most 500 characters' })),
  language: Type.Optional(Type.Union([Type.String({ maxLength: 64, description: 'A language tag: en, pt-BR' }), Type.Null()])),
  avatarUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048, description: 'An https URL' }), Type.Null()])),
  metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
  joinPolicy: Type.Optional(JoinPolicySchema),
  memberLimit: Type.Optional(Type.Integer({ description: '2 … Social:Groups:MaxMemberLimit (default Social:Groups:DefaultMemberLimit)' })),
};
export const FIELD_CODES = ['invalid_group_name', 'invalid_group_tag', 'invalid_language', 'invalid_avatar_url', 'metadata_too_large', 'invalid_member_limit', 'text_filtered'] as const;

export const GroupMemberParams = Type.Object({ id: IdParams.properties.id, publicId: Type.String({ minLength: 1, maxLength: 64 }) });
export const RoleParams = Type.Object({ id: IdParams.properties.id, name: Type.String({ minLength: 1, maxLength: 64 }) });
export const InviteParams = Type.Object({ inviteId: Type.String({ minLength: 1, maxLength: 64 }) });
export const Page = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page' })),
};

/** The group of the path, as its member with a permission (services/groups.ts, authority and demand). */
export const AS_MEMBER = ['group_not_found', 'group_permission_denied'] as const;
