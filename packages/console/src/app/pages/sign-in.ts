/** Sign-in: a developer account (registry) and a staff account (auth, moderator or admin role); both may be open. */
import { h, onSubmit } from '../dom.js';
import type { Ui } from '../ui.js';

/** An email and password form (`id`) sent by a button saying `action`: the developer's and the staff sign-in. */
function signInForm(id: string, action: string) {
  return h(
    'form',
    { class: 'stack', id },
    h('label', null, 'Email', h('input', { name: 'email', type: 'email', required: true, autocomplete: 'username' })),
    h('label', null, 'Password', h('input', { name: 'password', type: 'password', required: true, autocomplete: 'current-password' })),
    h('button', { type: 'submit' }, action),
  );
}

function developerForms(ui: Ui): HTMLElement {
  const s = ui.s;
  if (s.developer) return h('section', { class: 'card' }, h('h2', null, 'Developer'), h('p', null, `Signed in as ${s.developer.email} (${s.developer.role}).`));
  if (s.pendingMfa) return mfaForm(ui);
  const signIn = signInForm('dev-signin', 'Sign in as developer');
  onSubmit(signIn, (f) => {
    void ui.attempt('Developer sign-in', async () => {
      if ((await s.developerSignIn(f.email, f.password)) === 'mfa') {
        ui.say(s.pendingMfa?.factors.includes('totp') ? 'Enter the code of your authenticator app (or a recovery code), or use a passkey.' : 'Confirm with your passkey.');
        ui.go('signin');
        return;
      }
      ui.say(`Signed in as ${f.email}.`);
      ui.go('games');
    });
  });
  const register = h(
    'form',
    { class: 'stack', id: 'dev-register' },
    h('label', null, 'Display name', h('input', { name: 'name', required: true, maxLength: 100 })),
    h('label', null, 'Email', h('input', { name: 'email', type: 'email', required: true, autocomplete: 'username' })),
    h('label', null, 'Password (10 characters or more)', h('input', { name: 'password', type: 'password', required: true, minLength: 10, autocomplete: 'new-password' })),
    h('button', { type: 'submit' }, 'Create a developer account'),
  );
  onSubmit(register, (f) => {
    void ui.attempt('Registration', async () => {
      await s.developerRegister(f.email, f.password, f.name);
      ui.say(`Welcome, ${f.name}.`);
      ui.go('games');
    });
  });
  // A passkey alone signs in (user-verified: no password, no second step; docs/registry.md, "Passkeys").
  const withPasskey = h('button', { type: 'button', id: 'dev-passkey-signin' }, 'Sign in with a passkey');
  withPasskey.addEventListener('click', () => {
    void ui.attempt('Passkey sign-in', async () => {
      await s.developerSignInWithPasskey();
      ui.say(`Signed in as ${s.developer?.email}.`);
      ui.go('games');
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Developer (registry)'), signIn, withPasskey, h('h2', null, 'New developer'), register);
}

/** The second step of a developer sign-in: the registry answered mfa_required; its Factors say what to offer. */
function mfaForm(ui: Ui): HTMLElement {
  const s = ui.s;
  const factors = s.pendingMfa?.factors ?? [];
  const done = () => {
    ui.say(`Signed in as ${s.developer?.email}.`);
    ui.go('games');
  };
  const card = h('section', { class: 'card' }, h('h2', null, 'Developer: second step'));
  if (factors.includes('passkey')) {
    const usePasskey = h('button', { type: 'button', id: 'dev-mfa-passkey' }, 'Use a passkey');
    usePasskey.addEventListener('click', () => void ui.attempt('Verifying the passkey', async () => (await s.developerSignInMfa('passkey'), done())));
    card.append(h('p', null, `${s.pendingMfa?.email} has a passkey.`), usePasskey);
  }
  if (factors.includes('totp')) {
    const form = h(
      'form',
      { class: 'stack', id: 'dev-mfa' },
      h('label', null, 'Authenticator code (or a recovery code)', h('input', { name: 'code', required: true, autocomplete: 'one-time-code', maxLength: 64 })),
      h('button', { type: 'submit' }, 'Verify'),
    );
    onSubmit(form, (f) => void ui.attempt('Verifying the code', async () => (await s.developerSignInMfa(f.code), done())));
    card.append(h('p', null, `${s.pendingMfa?.email} has an authenticator app.`), form);
  }
  const cancel = h('button', { id: 'dev-mfa-cancel', onclick: () => ((s.pendingMfa = undefined), ui.go('signin')) }, 'Start over');
  card.append(cancel);
  return card;
}

function staffForm(ui: Ui): HTMLElement {
  const s = ui.s;
  if (s.staff) return h('section', { class: 'card' }, h('h2', null, 'Staff'), h('p', null, `Signed in as ${s.staff.name} (${s.staff.roles.join(', ')}).`));
  const form = signInForm('staff-signin', 'Sign in as moderator');
  // The second factor of an account with an authenticator (left empty otherwise).
  form.insertBefore(
    h('label', null, 'Authenticator code (if on) ', h('input', { name: 'code', autocomplete: 'one-time-code', inputMode: 'numeric', maxLength: 64 })),
    form.querySelector('button'),
  );
  onSubmit(form, (f) => {
    void ui.attempt('Staff sign-in', async () => {
      await s.staffSignIn(f.email, f.password, f.code);
      ui.say(`Signed in as ${s.staff?.name}.`);
      ui.go('reports');
    });
  });
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'Moderator or admin (platform account)'),
    h('p', { class: 'muted' }, 'A player account holding the moderator or admin role: the report queue, account lookup and sanctions.'),
    form,
  );
}

export function signInPage(ui: Ui, main: HTMLElement): void {
  main.append(
    h('h1', null, 'Sign in'),
    h('p', { class: 'muted' }, `Sessions live in this tab's memory only: a reload or a closed tab signs out, and so do ${ui.s.config.idleMinutes} idle minutes.`),
    h('div', { class: 'columns' }, developerForms(ui), staffForm(ui)),
  );
}
