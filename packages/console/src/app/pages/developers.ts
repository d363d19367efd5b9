/** Super-admin: every developer account. */
import { h, table, when } from '../dom.js';
import type { Ui } from '../ui.js';

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
  );
}
