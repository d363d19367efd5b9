/**
 * Staff actions on groups (docs/social.md, "Groups"): a moderator or admin renames a group, clears its description or
 * disbands it, from any game, with a reason; each action is kept with the group as it was and became
 * (group_moderation). Members hear a disband as groupDisbanded, which names no one.
 */
import { isUniqueViolation, UUID_PATTERN as UUID } from '@platform/kit';
import type { Ctx, UserRow } from '../context.js';
import {
  clearDescription,
  deleteGroup,
  groupById,
  groupModeration,
  insertGroupModeration,
  lockGroup,
  memberIds,
  renameGroup,
  type GroupRow,
} from '../queries/groups.js';
import { socialError } from './errors.js';
import { groupDto, groupEvent } from './group-access.js';

export type GroupStaffAction = { action: 'rename'; name: string; reason: string } | { action: 'clear_description' | 'disband'; reason: string };

const notFound = () => socialError('group_not_found', 'No such group');
const shown = (g: GroupRow) => ({ name: g.name, tag: g.tag, description: g.description });

/** The group as staff see it (any game), with every staff action on it; a disbanded group's actions stay readable. */
export async function staffGroupView(ctx: Ctx, id: string) {
  if (!UUID.test(id)) throw notFound();
  const g = await groupById(ctx.db, id);
  const actions = await groupModeration(ctx.db, id.toLowerCase());
  if (!g && !actions.length) throw notFound();
  return {
    group: g ? { ...groupDto(g), gameId: g.game_id || null } : null,
    actions: actions.map((a) => ({
      action: a.action,
      moderatorPublicId: a.moderator_public_id,
      reason: a.reason,
      before: a.before,
      after: a.after,
      at: new Date(a.created_at).toISOString(),
    })),
  };
}

export async function moderateGroup(ctx: Ctx, moderator: UserRow, id: string, input: GroupStaffAction) {
  let name: string | undefined;
  if (input.action === 'rename') {
    name = input.name.trim();
    if ([...name].length < 3 || [...name].length > 32) throw socialError('invalid_group_name', 'A group name is 3 to 32 characters', { field: 'name' });
  }
  const out = await ctx.db
    .transaction(async (tx) => {
      const g = await lockGroup(tx, id);
      if (!g) throw notFound();
      const entry = { groupId: g.id, gameId: g.game_id, action: input.action, moderator: moderator.id, reason: input.reason, before: shown(g) };
      if (input.action === 'disband') {
        const members = await memberIds(tx, g.id);
        await deleteGroup(tx, g.id);
        await insertGroupModeration(tx, { ...entry, after: null });
        return { g, members, disbanded: true };
      }
      if (name !== undefined) await renameGroup(tx, g.id, name);
      else await clearDescription(tx, g.id);
      const after = (await groupById(tx, g.id))!;
      await insertGroupModeration(tx, { ...entry, after: shown(after) });
      return { g: after, members: [], disbanded: false };
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw socialError('group_name_taken', 'Another group of this game has that name', { field: 'name' });
      throw err;
    });
  if (out.disbanded) await groupEvent(ctx, out.members, 'groupDisbanded', { groupId: out.g.id, name: out.g.name });
  return staffGroupView(ctx, out.g.id);
}
