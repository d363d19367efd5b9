/**
 * The developer's security settings: the authenticator app (docs/registry.md, "Second factor (TOTP)") and passkeys
 * ("Passkeys"). Adding an authenticator shows the otpauth:// URI and the secret as text (for the app to read or for
 * typing), then asks for the current code and shows the recovery codes once; removing takes a code or a recovery
 * code. Passkeys are listed, added (the browser's prompt) and removed. Every change ends the developer's other tokens.
 */
import { h, onSubmit } from '../dom.js';
import { showSecretOnce, type Ui } from '../ui.js';
import type { MfaStatus, Passkey } from '../registry-api.js';

export async function securityPage(ui: Ui, main: HTMLElement): Promise<void> {
  const s = ui.s;
  const status = await ui.attempt('Loading the second factor', () => s.registry.mfaStatus());
  const passkeys = await ui.attempt('Loading the passkeys', () => s.registry.passkeys());
  main.append(h('h1', null, 'Security'));
  if (status) main.append(totpCard(ui, status));
  if (passkeys) main.append(passkeyCard(ui, passkeys));
}

/** The developer's passkeys: a sign-in of their own and a second factor after the password. */
function passkeyCard(ui: Ui, passkeys: Passkey[]): HTMLElement {
  const s = ui.s;
  const rows = passkeys.map((p) => {
    const remove = h('button', { class: 'danger', 'data-passkey': p.Id }, 'Remove');
    remove.addEventListener('click', () => {
      void ui.attempt('Removing the passkey', async () => {
        s.developerTokenReplaced(await s.registry.removePasskey(p.Id));
        ui.say(`The passkey ${p.Name} is removed; your other sessions were signed out.`);
        ui.go('security');
      });
    });
    const used = p.LastUsedAt ? `last used ${new Date(p.LastUsedAt).toLocaleString()}` : 'never used';
    return h('li', { class: 'passkey' }, h('strong', null, p.Name), ` added ${new Date(p.CreatedAt).toLocaleString()}, ${used} `, remove);
  });
  const add = h(
    'form',
    { class: 'inline', id: 'passkey-add' },
    h('label', null, 'Name', h('input', { name: 'name', maxLength: 64, placeholder: 'Passkey' })),
    h('button', { type: 'submit' }, 'Add a passkey'),
  );
  onSubmit(add, (f) => {
    void ui.attempt('Adding a passkey', async () => {
      s.developerTokenReplaced(await s.registry.addPasskey(f.name ?? ''));
      ui.say('The passkey is added; your other sessions were signed out.');
      ui.go('security');
    });
  });
  return h(
    'section',
    { class: 'card', id: 'passkeys' },
    h('h2', null, 'Passkeys'),
    h('p', { class: 'muted' }, 'A passkey signs you in on its own, and confirms a password sign-in as a second factor. A passkey has no recovery codes: add a second one, or an authenticator app, in case a device is lost.'),
    passkeys.length ? h('ul', { id: 'passkey-list' }, ...rows) : h('p', { id: 'passkey-list' }, 'None.'),
    add,
  );
}

/** The authenticator app: on (remove with a code) or off (enrol). */
function totpCard(ui: Ui, status: MfaStatus): HTMLElement {
  const s = ui.s;
  const card = h('section', { class: 'card', id: 'mfa' }, h('h2', null, 'Authenticator app (second factor)'));
  if (status.Totp) {
    const remove = h(
      'form',
      { class: 'inline', id: 'mfa-remove' },
      h('label', null, 'Current code or a recovery code', h('input', { name: 'code', required: true, autocomplete: 'one-time-code', maxLength: 64 })),
      h('button', { type: 'submit', class: 'danger' }, 'Remove the authenticator'),
    );
    onSubmit(remove, (f) => {
      void ui.attempt('Removing the authenticator', async () => {
        s.developerTokenReplaced(await s.registry.removeTotp(f.code));
        ui.say('The authenticator is removed; your other sessions were signed out.');
        ui.go('security');
      });
    });
    card.append(h('p', { id: 'mfa-state' }, `On. Recovery codes left: ${status.RecoveryCodesLeft}.`), remove);
    return card;
  }
  const start = h('button', { id: 'mfa-start' }, 'Add an authenticator app');
  const enrol = h('div', { id: 'mfa-enrol' });
  start.addEventListener('click', () => {
    void ui.attempt('Adding an authenticator', async () => {
      const t = await s.registry.startTotp();
      const confirm = h(
        'form',
        { class: 'inline', id: 'mfa-confirm' },
        h('label', null, 'The code the app shows now', h('input', { name: 'code', required: true, autocomplete: 'one-time-code', inputMode: 'numeric', maxLength: 6 })),
        h('button', { type: 'submit' }, 'Turn on'),
      );
      onSubmit(confirm, (f) => {
        void ui.attempt('Turning the authenticator on', async () => {
          const { recoveryCodes, expiresAt } = await s.registry.confirmTotp(f.code);
          s.developerTokenReplaced(expiresAt);
          await showSecretOnce('Recovery codes', 'Ten recovery codes, each works once in place of a code', recoveryCodes.join(' '));
          ui.say('The authenticator is on; your other sessions were signed out.');
          ui.go('security');
        });
      });
      enrol.replaceChildren(
        h('p', null, 'Add this to your authenticator app (it reads the otpauth link; or type the secret):'),
        h('p', { class: 'secret mono', id: 'mfa-uri' }, t.OtpauthUri),
        h('p', null, 'Secret: ', h('code', { id: 'mfa-secret' }, t.Secret)),
        confirm,
      );
    });
  });
  card.append(h('p', { id: 'mfa-state' }, status.Pending ? 'Off (an unfinished enrolment is waiting: start again).' : 'Off.'), start, enrol);
  return card;
}
