/** Moderators: the report queue, one report with its snapshot and history, and acting on it. */
import type { ReportState, ReportView } from '@platform/client';
import { h, onSubmit, table, type Child, when } from '../dom.js';
import { confirmDialog, type Ui } from '../ui.js';
import { sanctionForm } from './sanction-form.js';
import { groupOfContext } from './groups.js';

const STATES: ReportState[] = ['received', 'in_review', 'actioned', 'dismissed'];
const named = (n: { fullHandle: string } | null) => n?.fullHandle ?? '(erased)';
/** Who filed it: a player, or the game's text filter (mode flag), which has no reporter. */
const reporterOf = (r: Pick<ReportView, 'source' | 'reporter'>) => (r.source === 'text_filter' ? 'Text filter' : named(r.reporter));

/** The queue by state, 100 a page: `cursor` (the page before's nextCursor) pages past the first 100. */
export async function reportsPage(ui: Ui, main: HTMLElement): Promise<void> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const state = (params.get('state') ?? 'received') as ReportState;
  const cursor = params.get('cursor') ?? undefined;
  const page = await ui.attempt('Loading reports', () => ui.s.staff!.client.moderation.reports({ state, limit: 100, ...(cursor ? { cursor } : {}) }));
  const paging = h(
    'p',
    { id: 'reports-paging' },
    cursor ? h('a', { href: `#/reports?state=${state}`, id: 'reports-newest' }, '← Newest reports') : null,
    cursor && page?.nextCursor ? ' · ' : null,
    page?.nextCursor ? h('a', { href: `#/reports?state=${state}&cursor=${encodeURIComponent(page.nextCursor)}`, id: 'reports-older' }, 'Older reports →') : null,
  );
  const filter = h('select', { id: 'report-state', onchange: (e: Event) => ui.go(`reports?state=${(e.target as HTMLSelectElement).value}`) }, STATES.map((s) => h('option', { value: s, selected: s === state }, s)));
  main.append(
    h('h1', null, 'Report queue'),
    h('p', null, h('label', null, 'State ', filter)),
    h(
      'section',
      { class: 'card', id: 'reports' },
      table(
        ['Filed', 'Reason', 'Target', 'Reporter', 'Context', 'Repeats', 'State'],
        (page?.reports ?? []).map((r) => [h('a', { href: `#/reports/${r.reportId}` }, when(r.createdAt)), r.reason, named(r.target), reporterOf(r), r.context ?? '—', r.repeatCount ? `×${r.repeatCount}` : '', r.state]),
        `No ${state} reports.`,
      ),
      paging,
    ),
  );
}

function snapshot(r: ReportView): Child {
  const s = r.snapshot;
  if (!s) return h('p', { class: 'muted' }, 'No snapshot (the target was erased, or the report predates snapshots).');
  return [
    h('p', null, `Taken ${when(s.takenAt)}: `, h('strong', null, s.target.fullHandle), ` (display name “${s.target.displayName}”${s.target.status ? `, status “${s.target.status}”` : ''})`),
    s.group ? h('p', { id: 'snapshot-group' }, 'The group named: ', h('strong', null, s.group.name), ` [${s.group.tag}]`, s.group.description ? ` — “${s.group.description}”` : '') : null,
    s.channel
      ? [h('p', null, `Their last messages in the ${s.channel.kind} channel, newest first:`), h('div', { id: 'snapshot-messages' }, s.channel.messages.map((m) => h('blockquote', null, h('span', { class: 'muted' }, when(m.sentAt)), ' ', m.body)))]
      : h('p', { class: 'muted' }, 'No channel copied.'),
    // A report naming a match (context match:<id>): who played in it, as when the report was filed.
    s.match
      ? [
          h('p', null, `Match ${s.match.matchId}, ended ${when(s.match.endedAt)}; its players:`),
          h('ul', { id: 'snapshot-roster' }, s.match.roster.map((p) => h('li', null, p.fullHandle))),
        ]
      : null,
  ];
}

function actions(ui: Ui, r: ReportView): HTMLElement {
  const m = ui.s.staff!.client.moderation;
  const reload = () => ui.go(`reports/${r.reportId}`);
  const act = sanctionForm('report-action', 'Sanction the player', (c) => {
    void (async () => {
      const yes = await confirmDialog({ title: `${c.type === 'ban' ? 'Ban' : 'Restrict'} ${named(r.target)}?`, body: `Reason: ${c.reason}`, confirm: 'Apply' });
      if (!yes) return;
      const done = await ui.attempt('The action', () => m.actOnReport(r.reportId, { sanction: { type: c.type, reason: c.reason, ...(c.durationSeconds ? { durationSeconds: c.durationSeconds } : {}) }, ...(c.note ? { note: c.note } : {}) }));
      if (done) {
        ui.say(`Sanction ${done.sanction.type} applied; the report is ${done.report.state}.`);
        reload();
      }
    })();
  }, true);
  const move = h(
    'form',
    { class: 'inline', id: 'report-move' },
    h('label', null, 'Move to', h('select', { name: 'state' }, ['in_review', 'dismissed', 'actioned'].map((s) => h('option', { value: s }, s)))),
    h('label', null, 'Note', h('input', { name: 'note', maxLength: 2000 })),
    h('button', { type: 'submit' }, 'Move'),
  );
  onSubmit(move, (f) => {
    void ui.attempt('Moving the report', async () => {
      await m.moveReport(r.reportId, { state: f.state as 'in_review', ...(f.note ? { note: f.note } : {}) });
      ui.say(`The report is ${f.state}.`);
      reload();
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Act'), act, h('h2', null, 'Or only move it'), move);
}

export async function reportPage(ui: Ui, main: HTMLElement, reportId: string): Promise<void> {
  const r = await ui.attempt('Loading the report', () => ui.s.staff!.client.moderation.report(reportId));
  if (!r) return;
  const final = r.state === 'actioned' || r.state === 'dismissed';
  main.append(
    h('h1', null, `Report: ${r.reason}`, ' ', h('span', { class: 'tag', id: 'report-state-now' }, r.state)),
    h('p', null, `Filed ${when(r.createdAt)} by ${reporterOf(r)} about `, h('strong', null, named(r.target)), r.context ? ` — “${r.context}”` : ''),
    ...(groupOfContext(r.context) ? [h('p', null, h('a', { id: 'report-group', href: `#/groups/${groupOfContext(r.context)}` }, 'Open the group this report names'))] : []),
    ...(r.repeatCount
      ? [h('p', { id: 'report-repeats' }, `Reported again ${r.repeatCount} time(s) by the same reporter, last ${when(r.lastReportedAt!)} (merged): `, r.repeats.map((x) => `${x.reason}${x.context ? ` “${x.context}”` : ''}`).join('; '))]
      : []),
    h('div', { class: 'columns' }, h('section', { class: 'card', id: 'snapshot' }, h('h2', null, 'Snapshot'), snapshot(r)), final ? null : actions(ui, r)),
    h(
      'section',
      { class: 'card', id: 'history' },
      h('h2', null, 'History'),
      table(['When', 'State', 'By', 'Note'], r.history.map((e) => [when(e.at), e.state, named(e.by), e.note ?? ''])),
    ),
  );
}
