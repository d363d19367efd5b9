/**
 * The developer's security settings: the authenticator app (docs/registry.md, "Second factor (TOTP)"). Adding shows
 * the otpauth:// URI and the secret as text (for the app to read or for typing), then asks for the current code and
 * shows the recovery codes once; removing takes a code or a recovery code. Both end the developer's other tokens.
 */
import { h, onSubmit } from '../dom.js';
import { showSecretOnce, type Ui } from '../ui.js';

export async function securityPage(ui: Ui, main: HTMLElement): Promise<void> {
  const s = ui.s;
  const status = await ui.attempt('Loading the second factor', () => s.registry.mfaStatus());
  main.append(h('h1', null, 'Security'));
  if (!status) return;
  const card = h('section', { class: 'card', id: 'mfa' }, h('h2', null, 'Authenticator app (second factor)'));
  main.append(card);
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
    return;
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
}
