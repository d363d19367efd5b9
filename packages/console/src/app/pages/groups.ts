/**
 * Staff: a group of any game (social's /v1/moderation/groups): its text, members and the staff actions on it;
 * rename it, clear its description or disband it, always with a reason (docs/social.md, "Groups", moderation).
 * Reached by a group's id, or from a report whose context names `group:<id>`.
 */
import type { StaffGroupView } from '@platform/client';
import { h, onSubmit, table, when } from '../dom.js';
import { confirmDialog, type Ui } from '../ui.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The group a report's context names (`group:<id> …`), if any. */
export function groupOfContext(context: string | null | undefined): string | undefined {
  const id = context?.match(/^group:([^\s]+)/)?.[1];
  return id && UUID.test(id) ? id : undefined;
}

/** `#/groups`: look a group up by its id. */
export function groupsLookupPage(ui: Ui, main: HTMLElement): void {
  const form = h('form', { class: 'inline', id: 'group-lookup' }, h('label', null, 'Group id', h('input', { name: 'id', required: true, size: 40 })), h('button', { type: 'submit' }, 'Open'));
  onSubmit(form, (f) => {
    const id = f.id.trim();
    if (!UUID.test(id)) return ui.say('A group id is a UUID (the group’s groupId, or the id in a report’s group: context).', true);
    ui.go(`groups/${id}`);
  });
  main.append(h('h1', null, 'Groups'), h('section', { class: 'card' }, form));
}

function details(v: StaffGroupView): HTMLElement {
  const g = v.group;
  if (!g) return h('section', { class: 'card', id: 'group-details' }, h('h2', null, 'Disbanded'), h('p', { class: 'muted' }, 'The group is gone; its staff actions are kept below.'));
  return h(
    'section',
    { class: 'card', id: 'group-details' },
    h('h2', null, g.name, ' ', h('span', { class: 'tag' }, g.tag)),
    h('p', { id: 'group-description' }, g.description || h('span', { class: 'muted' }, 'No description.')),
    table(
      ['Game', 'Members', 'Joining', 'Language', 'Created'],
      [[g.gameId ?? '(no game)', `${g.memberCount} / ${g.memberLimit}`, g.joinPolicy, g.language ?? '—', when(g.createdAt)]],
    ),
  );
}

function actionForm(ui: Ui, v: StaffGroupView, reload: () => void): HTMLElement {
  const form = h(
    'form',
    { class: 'stack', id: 'group-action' },
    h(
      'label',
      null,
      'Action',
      h('select', { name: 'action' }, h('option', { value: '' }, 'Choose…'), h('option', { value: 'rename' }, 'Rename'), h('option', { value: 'clear_description' }, 'Clear the description'), h('option', { value: 'disband' }, 'Disband')),
    ),
    h('label', null, 'New name (rename only)', h('input', { name: 'name', maxLength: 32 })),
    h('label', null, 'Reason', h('input', { name: 'reason', required: true, maxLength: 500 })),
    h('button', { type: 'submit' }, 'Apply'),
  );
  onSubmit(form, (f) => {
    if (!f.action) return ui.say('Choose an action.', true);
    const g = v.group!;
    void (async () => {
      if (f.action === 'disband') {
        const yes = await confirmDialog({ title: `Disband ${g.name}?`, body: `Every member leaves and the group is gone for good. Reason: ${f.reason}`, confirm: 'Disband' });
        if (!yes) return;
      }
      const action = f.action === 'rename' ? { action: 'rename' as const, name: f.name, reason: f.reason } : { action: f.action as 'clear_description' | 'disband', reason: f.reason };
      const done = await ui.attempt('The action', () => ui.s.staff!.client.moderation.actOnGroup(g.groupId, action));
      if (done) {
        ui.say(f.action === 'disband' ? 'The group is disbanded.' : f.action === 'rename' ? `Renamed to ${done.group?.name}.` : 'The description is cleared.');
        reload();
      }
    })();
  });
  return h('section', { class: 'card' }, h('h2', null, 'Act'), form);
}

/** `#/groups/<id>`: the group, the actions on it, and acting on it. */
export async function groupPage(ui: Ui, main: HTMLElement, groupId: string): Promise<void> {
  const v = await ui.attempt('Loading the group', () => ui.s.staff!.client.moderation.group(groupId));
  if (!v) return;
  main.append(
    h('h1', null, 'Group ', h('code', null, groupId)),
    h('div', { class: 'columns' }, details(v), v.group ? actionForm(ui, v, () => ui.go(`groups/${groupId}`)) : null),
    h(
      'section',
      { class: 'card', id: 'group-actions' },
      h('h2', null, 'Staff actions'),
      table(
        ['When', 'Action', 'By', 'Reason', 'Before → after'],
        v.actions.map((a) => [when(a.at), a.action, a.moderatorPublicId ?? '(erased)', a.reason, `${JSON.stringify(a.before)} → ${JSON.stringify(a.after)}`]),
        'No staff action yet.',
      ),
    ),
  );
}
