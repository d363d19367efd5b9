/** What every page uses: the status line, errors, the modal dialogs, navigation. */
import { PlatformError } from '@platform/client';
import { byId, h, replace, type Child } from './dom.js';
import { RegistryError } from './registry-api.js';
import type { ConsoleSessions } from './session.js';

export interface Ui {
  s: ConsoleSessions;
  /** The status line; `error` shows it in red. */
  say(message: string, error?: boolean): void;
  /** Runs an action, showing its failure on the status line (and answers undefined then). */
  attempt<T>(what: string, action: () => Promise<T>): Promise<T | undefined>;
  go(hash: string): void;
}

/** A failure as one line: the service's code and message (never a token: error bodies carry none). */
export function describe(e: unknown): string {
  if (e instanceof RegistryError || e instanceof PlatformError) return `${e.message} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}

export function say(message: string, error = false): void {
  const el = byId('status');
  el.textContent = message;
  el.className = error ? 'error' : '';
}

function openModal(...children: Child[]): HTMLElement {
  const modal = byId('modal');
  const dialog = h('div', { class: 'dialog', role: 'dialog', 'aria-modal': 'true' }, children);
  replace(modal, dialog);
  modal.hidden = false;
  return dialog;
}

function closeModal(): void {
  const modal = byId('modal');
  modal.replaceChildren(); // the dialog, and a secret in it, leave the page
  modal.hidden = true;
}

/**
 * Asks for confirmation. With `typeToConfirm`, the confirm button stays disabled until that exact text is typed
 * (deleting a game: its name).
 */
export function confirmDialog(o: { title: string; body: Child; confirm: string; typeToConfirm?: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      closeModal();
      resolve(v);
    };
    const ok = h('button', { class: 'danger', id: 'confirm-yes', onclick: () => done(true), disabled: o.typeToConfirm !== undefined }, o.confirm);
    const typed = o.typeToConfirm
      ? h('label', null, `Type “${o.typeToConfirm}” to confirm`, h('input', { id: 'confirm-text', oninput: (e: Event) => (ok.disabled = (e.target as HTMLInputElement).value !== o.typeToConfirm) }))
      : null;
    openModal(h('h2', null, o.title), h('div', null, o.body), typed, h('div', null, ok, ' ', h('button', { id: 'confirm-no', onclick: () => done(false) }, 'Cancel')));
  });
}

/** Shows a secret once: it is in the page only while this dialog is open, and nowhere else. */
export function showSecretOnce(title: string, label: string, secret: string, more: Child = null): Promise<void> {
  return new Promise((resolve) => {
    openModal(
      h('h2', null, title),
      h('p', null, `${label} — shown this once. Store it now (a secrets manager, your server's configuration): the platform keeps only its hash and cannot show it again.`),
      h('p', { class: 'secret mono', id: 'secret-value' }, secret),
      more,
      h(
        'div',
        null,
        h('button', { id: 'copy-secret', onclick: () => void navigator.clipboard?.writeText(secret).then(() => say('Copied to the clipboard.'), () => say('Copy it by hand: the clipboard is not available here.', true)) }, 'Copy'),
        ' ',
        h('button', { id: 'secret-done', onclick: () => (closeModal(), resolve()) }, 'I have stored it'),
      ),
    );
  });
}

export function makeUi(s: ConsoleSessions, go: (hash: string) => void): Ui {
  return {
    s,
    say,
    go,
    async attempt(what, action) {
      try {
        return await action();
      } catch (e) {
        say(`${what} failed: ${describe(e)}`, true);
        return undefined;
      }
    },
  };
}
