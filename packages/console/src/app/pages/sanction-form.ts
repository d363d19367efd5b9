/** The fields of a sanction (type, reason, duration), shared by the report action and the account page. */
import { h, onSubmit } from '../dom.js';

export const DURATIONS: { seconds: number | undefined; label: string }[] = [
  { seconds: undefined, label: 'permanent' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 30 * 86_400, label: '30 days' },
];

export interface SanctionChoice {
  type: string;
  reason: string;
  durationSeconds?: number;
  note?: string;
}

/** A form whose submit hands the choice to `onChoice`; `withNote` adds the report note field. */
export function sanctionForm(id: string, submitLabel: string, onChoice: (c: SanctionChoice) => void, withNote = false): HTMLFormElement {
  const form = h(
    'form',
    { class: 'stack', id },
    h(
      'label',
      null,
      'Sanction',
      h('select', { name: 'type' }, h('option', { value: 'ban' }, 'ban — signed out everywhere, cannot sign in'), h('option', { value: 'chat' }, 'chat — cannot send chat messages')),
    ),
    h('label', null, 'Duration', h('select', { name: 'duration' }, DURATIONS.map((d, i) => h('option', { value: String(i) }, d.label)))),
    h('label', null, 'Reason (the player is told)', h('input', { name: 'reason', required: true, maxLength: 500 })),
    withNote ? h('label', null, 'Note for the report history (optional)', h('input', { name: 'note', maxLength: 2000 })) : null,
    h('button', { type: 'submit', class: 'danger' }, submitLabel),
  );
  onSubmit(form, (f) => {
    const seconds = DURATIONS[Number(f.duration)]?.seconds;
    onChoice({ type: f.type, reason: f.reason, ...(seconds ? { durationSeconds: seconds } : {}), ...(f.note ? { note: f.note } : {}) });
  });
  return form;
}
