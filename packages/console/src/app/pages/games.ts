/** The developer's games (a super-admin sees every game) and the form that creates one. */
import { h, onSubmit, table, when } from '../dom.js';
import { showSecretOnce, type Ui } from '../ui.js';

export async function gamesPage(ui: Ui, main: HTMLElement): Promise<void> {
  const r = ui.s.registry;
  const games = (await ui.attempt('Loading games', () => r.games())) ?? [];
  const form = h(
    'form',
    { class: 'inline', id: 'create-game' },
    h('label', null, 'Name', h('input', { name: 'name', required: true, maxLength: 100 })),
    h('label', null, 'Launch command (optional)', h('input', { name: 'launch', maxLength: 1000 })),
    h('button', { type: 'submit' }, 'Create game'),
  );
  onSubmit(form, (f) => {
    void ui.attempt('Creating the game', async () => {
      const created = await r.createGame(f.name, f.launch || undefined);
      ui.say(`Created ${created.Game.DisplayName}.`);
      await showSecretOnce('Game created', `The API secret of ${created.Game.DisplayName}`, created.ApiSecret, h('p', null, 'API key: ', h('code', null, created.Game.ApiKey)));
      ui.go(`games/${created.Game.GameId}`);
    });
  });
  main.append(
    h('h1', null, ui.s.developer?.role === 'super-admin' ? 'Every game' : 'Your games'),
    h('section', { class: 'card' }, h('h2', null, 'New game'), form),
    h(
      'section',
      { class: 'card' },
      table(
        ['Name', 'Game id', 'Visibility', 'Created'],
        games.map((g) => [h('a', { href: `#/games/${g.GameId}` }, g.DisplayName), h('code', null, g.GameId), g.CrossGameVisibility, when(g.CreatedAt)]),
        'No games yet: create one above.',
      ),
    ),
  );
}
