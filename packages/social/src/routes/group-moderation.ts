/** Staff on groups (docs/social.md, "Groups"): read a group of any game with its staff actions; rename, clear, disband. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { moderateGroup, staffGroupView } from '../services/group-moderation.js';
import { assertModerator } from '../services/moderation.js';
import { IdParams } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, VALIDATED } from './responses.js';
import { GroupDto, Nullable, Str } from './group-schemas.js';

const MODERATOR = [...CALLER, 'moderator_required'] as const;
const Shown = Type.Object({ name: Str, tag: Str, description: Str });
const StaffGroupView = Type.Object({
  group: Type.Union([Type.Object({ ...GroupDto.properties, gameId: Nullable(Str) }), Type.Null()], { description: 'null: disbanded' }),
  actions: Type.Array(
    Type.Object({
      action: Type.Union([Type.Literal('rename'), Type.Literal('clear_description'), Type.Literal('disband')]),
      moderatorPublicId: Nullable(Str),
      reason: Str,
      before: Shown,
      after: Type.Union([Shown, Type.Null()]),
      at: Str,
    }),
  ),
});
const Reason = Type.String({ minLength: 1, maxLength: 1000, description: 'Kept with the action (staff only)' });

export function groupModerationRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/moderation/groups/:id',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['moderation'],
        summary: 'A group of any game with every staff action on it (moderators); a disbanded one by its actions',
        params: IdParams,
        headers: CallerHeaders,
        response: { 200: StaffGroupView, ...errorResponses(MODERATOR, VALIDATED, 'group_not_found') },
      },
    },
    async (req) => {
      assertModerator(req.principal.roles);
      return staffGroupView(ctx, req.params.id);
    },
  );
  app.post(
    '/v1/moderation/groups/:id/actions',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['moderation'],
        summary: 'Rename a group, clear its description or disband it, with a reason (moderators); the action is kept',
        params: IdParams,
        headers: CallerHeaders,
        body: Type.Union([
          Type.Object({ action: Type.Literal('rename'), name: Type.String({ maxLength: 200 }), reason: Reason }, { additionalProperties: false }),
          Type.Object({ action: Type.Union([Type.Literal('clear_description'), Type.Literal('disband')]), reason: Reason }, { additionalProperties: false }),
        ]),
        response: { 200: StaffGroupView, ...errorResponses(MODERATOR, BODY, 'group_not_found', 'invalid_group_name', 'group_name_taken') },
      },
    },
    async (req) => {
      assertModerator(req.principal.roles);
      return moderateGroup(ctx, req.user, req.params.id, req.body);
    },
  );
}
