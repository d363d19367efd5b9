/** Staff: account search and lookup (identities, sessions, audit trail, sanctions), applying and lifting sanctions. */
import type { AccountLookup, RoleList, Sanction } from '@platform/client';
import { h, onSubmit, table, when } from '../dom.js';
import { confirmDialog, type Ui } from '../ui.js';
import { sanctionForm } from './sanction-form.js';

export async function accountsPage(ui: Ui, main: HTMLElement): Promise<void> {
  const q = new URLSearchParams(location.hash.split('?')[1] ?? '').get('q') ?? '';
  const form = h('form', { class: 'inline', id: 'account-search' }, h('label', null, 'Email, account id or name prefix', h('input', { name: 'q', required: true, value: q, maxLength: 254 })), h('button', { type: 'submit' }, 'Search'));
  onSubmit(form, (f) => ui.go(`accounts?q=${encodeURIComponent(f.q)}`));
  main.append(h('h1', null, 'Accounts'), h('section', { class: 'card' }, form));
  if (!q) return;
  const found = await ui.attempt('Searching', () => ui.s.staff!.client.moderation.searchAccounts(q, 50));
  main.append(
    h(
      'section',
      { class: 'card', id: 'accounts' },
      table(
        ['Name', 'Email', 'Status', 'Roles', 'Created'],
        (found?.accounts ?? []).map((a) => [h('a', { href: `#/accounts/${a.id}` }, a.display_name || a.id), a.email ?? '—', a.status, a.roles.join(', '), when(a.created_at)]),
        'No account matches.',
      ),
    ),
  );
}

function sanctionsTable(ui: Ui, sanctions: Sanction[], reload: () => void): HTMLElement {
  const lift = async (s: Sanction) => {
    if (!(await confirmDialog({ title: `Lift this ${s.type} sanction?`, body: `Reason given: ${s.reason}`, confirm: 'Lift' }))) return;
    if (await ui.attempt('Lifting', () => ui.s.staff!.client.moderation.liftSanction(s.id, 'lifted in the console'))) {
      ui.say('Sanction lifted.');
      reload();
    }
  };
  return table(
    ['Type', 'Reason', 'Set', 'Expires', 'State', ''],
    sanctions.map((s) => [
      h('span', { class: s.active ? 'tag active' : 'tag' }, s.type),
      s.reason,
      when(s.created_at),
      s.expires_at ? when(s.expires_at) : 'never',
      s.active ? 'active' : s.lifted_at ? `lifted ${when(s.lifted_at)}` : 'expired',
      s.active ? h('button', { class: 'lift', onclick: () => void lift(s) }, 'Lift') : '',
    ]),
    'No sanctions.',
  );
}

/** Admins: the account's roles as checkboxes (player is always kept). */
function rolesSection(ui: Ui, accountId: string, roles: string[], reload: () => void): HTMLElement | null {
  if (!ui.s.staff?.roles.includes('admin')) return null;
  const form = h(
    'form',
    { class: 'inline', id: 'account-roles' },
    ['moderator', 'admin'].map((r) => h('label', null, h('input', { type: 'checkbox', name: r, value: 'on', checked: roles.includes(r) }), r)),
    h('button', { type: 'submit' }, 'Save roles'),
  );
  onSubmit(form, (f) => {
    const wanted = ['player', ...(['moderator', 'admin'] as const).filter((r) => f[r] === 'on')];
    void ui.attempt('Saving roles', async () => {
      await ui.s.staff!.client.moderation.setRoles(accountId, wanted as RoleList);
      ui.say(`Roles saved: ${wanted.join(', ')} (from the account's next sign-in or token refresh).`);
      reload();
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Roles (admin)'), form);
}

/**
 * Admins: removes the account's authenticator app and passkeys for an owner who lost them (docs/auth.md, "Resetting
 * lost factors"). Asks for the support case and a confirmation; every session of the account ends, the owner is
 * emailed.
 */
function factorResetSection(ui: Ui, accountId: string, reload: () => void): HTMLElement | null {
  if (!ui.s.staff?.roles.includes('admin')) return null;
  const form = h(
    'form',
    { class: 'inline', id: 'account-factor-reset' },
    h('label', null, 'Support case (why; kept in the audit trail)', h('input', { name: 'reason', required: true, maxLength: 1000 })),
    h('button', { type: 'submit', class: 'danger' }, 'Reset second factors'),
  );
  onSubmit(form, (f) => {
    void ui.attempt('Resetting the second factors', async () => {
      const sure = await confirmDialog({
        title: 'Reset this account’s second factors?',
        body: 'Its authenticator app and every passkey are removed and every session ends; the owner is emailed. Do this only after checking who asks.',
        confirm: 'Reset',
      });
      if (!sure) return;
      const r = await ui.s.staff!.client.moderation.resetFactors(accountId, f.reason ?? '');
      ui.say(`Second factors reset: authenticator ${r.totp_removed ? 'removed' : 'none'}, ${r.passkeys_removed} passkey(s) removed, ${r.sessions_revoked} session(s) ended.`);
      reload();
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Lost second factors (admin)'), form);
}

const SUBJECTS: Record<string, string> = { account: 'this account', device: 'a device it signed in on', network: 'a network (/24 or /64)' };

/** Staff only: the guest abuse score and its reasons (never shown to the player; docs/auth.md, "Guest abuse score"). */
function guestScoreSection(score: AccountLookup['guest_score']): HTMLElement {
  const level = { normal: 'normal', slow: 'guest creation slowed', refuse: 'guest creation refused' }[score.level];
  return h(
    'section',
    { class: 'card', id: 'guest-score' },
    h('h2', null, 'Guest abuse score'),
    h('p', null, `Score ${score.score} · `, h('span', { class: score.level === 'normal' ? 'tag' : 'tag active' }, level)),
    table(
      ['Signal', 'Subject', 'Value now', 'Events', 'Last'],
      score.reasons.map((r) => [r.signal, SUBJECTS[r.subject] ?? r.subject, String(r.value), String(r.events), when(r.last_at)]),
      'No signal.',
    ),
  );
}

export async function accountPage(ui: Ui, main: HTMLElement, accountId: string): Promise<void> {
  const m = ui.s.staff!.client.moderation;
  const a = await ui.attempt('Loading the account', () => m.account(accountId));
  if (!a) return;
  const reload = () => ui.go(`accounts/${accountId}`);
  const apply = sanctionForm('account-sanction', 'Apply sanction', (c) => {
    void ui.attempt('Applying the sanction', async () => {
      await m.sanction(accountId, { type: c.type, reason: c.reason, ...(c.durationSeconds ? { duration_seconds: c.durationSeconds } : {}) });
      ui.say(`Sanction ${c.type} applied.`);
      reload();
    });
  });
  main.append(
    h('h1', null, a.account.display_name || a.account.id, ' ', h('span', { class: 'tag' }, a.account.status)),
    h('p', { class: 'muted' }, 'Account ', h('code', null, a.account.id), ` · roles ${a.account.roles.join(', ')} · created ${when(a.account.created_at)}${a.account.email ? ` · ${a.account.email}` : ''}`),
    h('div', { class: 'columns' }, h('section', { class: 'card', id: 'sanctions' }, h('h2', null, 'Sanctions'), sanctionsTable(ui, a.sanctions, reload)), h('section', { class: 'card' }, h('h2', null, 'New sanction'), apply)),
    rolesSection(ui, accountId, a.account.roles, reload) ?? '',
    factorResetSection(ui, accountId, reload) ?? '',
    guestScoreSection(a.guest_score),
    h('section', { class: 'card', id: 'identities' }, h('h2', null, 'Identities'), table(['Provider', 'User id', 'Email', 'Verified', 'Linked', 'Last sign-in'], a.identities.map((i) => [i.provider, h('code', null, i.provider_user_id), i.email ?? '—', i.verified ? 'yes' : 'no', when(i.linked_at), when(i.last_login_at)]))),
    h('section', { class: 'card', id: 'sessions' }, h('h2', null, 'Sessions (latest 50)'), table(['Method', 'Platform', 'Network', 'Started', 'Expires', 'Revoked'], a.sessions.map((s) => [s.auth_method, s.device_platform ?? '—', s.ip_cidr, when(s.created_at), when(s.expires_at), when(s.revoked_at)]))),
    h('section', { class: 'card', id: 'audit' }, h('h2', null, 'Audit trail (latest 50)'), table(['When', 'Event', 'Address', 'Detail'], a.audit.map((e) => [when(e.at), e.event, e.ip ?? '—', h('code', null, e.detail ? JSON.stringify(e.detail) : '')]))),
  );
}
