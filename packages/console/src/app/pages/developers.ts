/** Super-admin: every developer account, and platform staff made without stopping anything. */
import { h, onSubmit, table, when } from '../dom.js';
import { confirmDialog, type Ui } from '../ui.js';

/** Grant or take away moderator or admin on a player account at auth (registry POST /admin/staff-roles). */
function staffRoleForm(ui: Ui): HTMLElement {
  const form = h(
    'form',
    { class: 'inline', id: 'staff-roles' },
    h('label', null, 'Player account (email or id)', h('input', { name: 'account', required: true, maxLength: 254 })),
    h('label', null, 'Role', h('select', { name: 'role' }, h('option', { value: 'moderator' }, 'moderator'), h('option', { value: 'admin' }, 'admin'))),
    h('label', null, 'Change', h('select', { name: 'granted' }, h('option', { value: 'grant' }, 'grant'), h('option', { value: 'remove' }, 'take away'))),
    h('button', { type: 'submit' }, 'Apply'),
  );
  onSubmit(form, (f) => {
    const role = f.role === 'admin' ? 'admin' : 'moderator';
    void ui.attempt('Changing staff roles', async () => {
      const r = await ui.s.registry.staffRole(f.account, role, f.granted === 'grant');
      ui.say(`Roles of ${r.AccountId}: ${r.Roles.join(', ')} (from the account's next sign-in or token refresh).`);
    });
  });
  return form;
}

/** A developer who lost every second factor: the authenticator and passkeys go, every token of theirs ends. */
function factorResetForm(ui: Ui): HTMLElement {
  const form = h(
    'form',
    { class: 'inline', id: 'developer-factor-reset' },
    h('label', null, 'Developer id', h('input', { name: 'id', required: true, maxLength: 64 })),
    h('label', null, 'Reason (logged)', h('input', { name: 'reason', required: true, maxLength: 1000 })),
    h('button', { type: 'submit', class: 'danger' }, 'Reset second factors'),
  );
  onSubmit(form, (f) => {
    void ui.attempt('Resetting the developer’s second factors', async () => {
      const sure = await confirmDialog({ title: 'Reset this developer’s second factors?', body: 'Their authenticator and every passkey are removed and every token of theirs stops working. Do this only after checking who asks.', confirm: 'Reset' });
      if (!sure) return;
      const r = await ui.s.registry.resetDeveloperFactors(f.id.trim(), f.reason ?? '');
      ui.say(`Second factors reset: authenticator ${r.TotpRemoved ? 'removed' : 'none'}, ${r.PasskeysRemoved} passkey(s) removed.`);
    });
  });
  return form;
}

export async function developersPage(ui: Ui, main: HTMLElement): Promise<void> {
  const developers = (await ui.attempt('Loading developers', () => ui.s.registry.developers())) ?? [];
  main.append(
    h('h1', null, 'Developers'),
    h(
      'section',
      { class: 'card', id: 'developers' },
      table(
        ['Name', 'Email', 'Role', 'Id', 'Registered'],
        developers.map((d) => [d.DisplayName, d.Email, d.Role, h('code', null, d.Id), when(d.CreatedAt)]),
      ),
    ),
    h('section', { class: 'card' }, h('h2', null, 'Platform staff'), staffRoleForm(ui)),
    h('section', { class: 'card' }, h('h2', null, 'Lost second factors'), factorResetForm(ui)),
  );
}
