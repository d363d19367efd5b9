/**
 * Staff: the appeals queue (docs/auth.md, "Appeals"), each appeal beside its sanction and the report whose moderation
 * action set it (with the report's snapshot one click away), and the decision: uphold, shorten (a new, earlier end)
 * or lift, with the answer the player reads in the inbox.
 */
import type { AppealStatus, StaffAppeal } from '@platform/client';
import { h, onSubmit, table, when } from '../dom.js';
import { confirmDialog, type Ui } from '../ui.js';

const STATUSES: AppealStatus[] = ['open', 'upheld', 'shortened', 'lifted'];

export async function appealsPage(ui: Ui, main: HTMLElement): Promise<void> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const status = (params.get('status') ?? 'open') as AppealStatus;
  const cursor = params.get('cursor') ?? undefined;
  const m = ui.s.staff!.client.moderation;
  const page = await ui.attempt('Loading appeals', () => m.appeals({ status, limit: 50, ...(cursor ? { cursor } : {}) }));
  const filter = h('select', { id: 'appeal-status', onchange: (e: Event) => ui.go(`appeals?status=${(e.target as HTMLSelectElement).value}`) }, STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)));
  main.append(h('h1', null, 'Appeals'), h('p', null, h('label', null, 'Status ', filter)));
  const list = h('section', { class: 'card', id: 'appeals' });
  main.append(list);
  const appeals = page?.appeals ?? [];
  if (!appeals.length) list.append(h('p', null, `No ${status} appeals.`));
  for (const a of appeals) list.append(await appealCard(ui, a, () => ui.go(`appeals?status=${status}`)));
  if (page?.next_cursor) list.append(h('p', null, h('a', { id: 'appeals-more', href: `#/appeals?status=${status}&cursor=${encodeURIComponent(page.next_cursor)}` }, 'More →')));
}

async function appealCard(ui: Ui, a: StaffAppeal, reload: () => void): Promise<HTMLElement> {
  const m = ui.s.staff!.client.moderation;
  const s = a.sanction;
  // The report whose action set the sanction, when it came from the moderation queue (a sanction set on the account page has none).
  const reports = await m.reports({ sanctionId: a.sanction_id, limit: 1 }).catch(() => undefined);
  const report = reports?.reports[0];
  const card = h(
    'article',
    { class: 'appeal', 'data-appeal': a.id },
    h('h3', null, `${a.reason.replace(/_/g, ' ')} — appeal of a ${s?.type ?? 'sanction'}`),
    table(
      ['', ''],
      [
        ['Filed', when(a.created_at)],
        ['Account', h('a', { href: `#/accounts/${a.account_id}` }, a.account_id)],
        ['Player’s words', h('blockquote', { class: 'appeal-text' }, a.text)],
        ['Sanction', s ? `${s.type}: ${s.reason} (set ${when(s.created_at)}, ${s.expires_at ? `until ${when(s.expires_at)}` : 'permanent'}${s.active ? '' : ', no longer active'})` : '—'],
        ['Report', report ? h('a', { class: 'appeal-report', href: `#/reports/${report.reportId}` }, `${report.reason} report, ${when(report.createdAt)} (snapshot)`) : 'none (set on the account page)'],
        ['Status', a.status + (a.decided_at ? ` ${when(a.decided_at)}${a.response ? ` — “${a.response}”` : ''}` : '')],
      ],
      '',
    ),
  );
  if (a.status !== 'open') return card;
  const form = h(
    'form',
    { class: 'appeal-decision' },
    h(
      'label',
      null,
      'Decision ',
      h('select', { name: 'outcome', required: true }, h('option', { value: '', selected: true }, '— choose —'), h('option', { value: 'uphold' }, 'Uphold'), h('option', { value: 'shorten' }, 'Shorten'), h('option', { value: 'lift' }, 'Lift')),
    ),
    h('label', null, 'New length (shorten): hours from now ', h('input', { name: 'hours', type: 'number', min: '1', step: '1' })),
    h('label', null, 'Answer to the player ', h('textarea', { name: 'response', maxLength: 1000, rows: 2 })),
    h('button', { type: 'submit' }, 'Decide'),
  );
  onSubmit(form, (f) => {
    void (async () => {
      const outcome = f.outcome as 'uphold' | 'shorten' | 'lift';
      if (outcome === 'shorten' && !(Number(f.hours) > 0)) return ui.say('Give the new length in hours to shorten.', true);
      if (outcome === 'lift' && !(await confirmDialog({ title: 'Lift this sanction on appeal?', body: 'The player is told in their inbox.', confirm: 'Lift' }))) return;
      const decided = await ui.attempt('Deciding', () =>
        m.decideAppeal(a.id, {
          outcome,
          ...(f.response ? { response: f.response } : {}),
          ...(outcome === 'shorten' ? { duration_seconds: Math.round(Number(f.hours) * 3600) } : {}),
        }),
      );
      if (decided) {
        ui.say(`Appeal ${decided.status}.`);
        reload();
      }
    })();
  });
  card.append(form);
  return card;
}
