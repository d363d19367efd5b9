/** One game: settings, cross-game visibility and platform friends, guest restrictions, group limits, credentials (rotation), text filter, module builds, players, deletion. */
import { GAME_GUEST_FEATURES } from '@platform/client';
import { h, onSubmit, replace, table, when } from '../dom.js';
import type { GameView, TextFilter, Visibility } from '../registry-api.js';
import { confirmDialog, showSecretOnce, type Ui } from '../ui.js';
import { modulesSection } from './modules.js';

const VISIBILITIES: { value: Visibility; label: string }[] = [
  { value: 'isolated', label: 'isolated — friends in other games see no rich presence from this game' },
  { value: 'summary', label: 'summary — other games see the activity summary' },
  { value: 'full', label: 'full — other games see all of it' },
];

type PlatformFriends = GameView['PlatformFriends'];
const PLATFORM_FRIENDS: { value: PlatformFriends; label: string }[] = [
  { value: 'off', label: 'off — platform friends are not imported' },
  { value: 'suggest', label: 'suggest — platform friends who play appear in suggestions' },
  { value: 'befriend', label: 'befriend — platform friends who play become friends at once' },
];

function settingsSection(ui: Ui, game: GameView, reload: () => void): HTMLElement {
  const form = h(
    'form',
    { class: 'stack', id: 'game-settings' },
    h('label', null, 'Name', h('input', { name: 'name', required: true, maxLength: 100, value: game.DisplayName })),
    h('label', null, 'Launch command', h('input', { name: 'launch', maxLength: 1000, value: game.LaunchCommand ?? '' })),
    h(
      'label',
      null,
      'Cross-game visibility',
      h('select', { name: 'visibility' }, VISIBILITIES.map((v) => h('option', { value: v.value, selected: v.value === game.CrossGameVisibility }, v.label))),
    ),
    h(
      'label',
      null,
      'Platform friends (Steam friends who play this game)',
      h('select', { name: 'platformFriends' }, PLATFORM_FRIENDS.map((v) => h('option', { value: v.value, selected: v.value === game.PlatformFriends }, v.label))),
    ),
    h('label', null, 'Settings (a JSON object, at most 16 KiB)', h('textarea', { name: 'settings', value: JSON.stringify(game.Settings, null, 2) })),
    h('button', { type: 'submit' }, 'Save settings'),
  );
  onSubmit(form, (f) => {
    let settings: Record<string, unknown>;
    try {
      settings = JSON.parse(f.settings) as Record<string, unknown>;
    } catch {
      return ui.say('Settings must be a JSON object.', true);
    }
    void ui.attempt('Saving', async () => {
      await ui.s.registry.updateGame(game.GameId, {
        DisplayName: f.name,
        LaunchCommand: f.launch,
        CrossGameVisibility: f.visibility as Visibility,
        PlatformFriends: f.platformFriends as PlatformFriends,
        Settings: settings,
      });
      ui.say('Settings saved.');
      reload();
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Settings'), form);
}

const FILTER_MODES: { value: TextFilter['Mode']; label: string }[] = [
  { value: 'off', label: 'off — player text is not filtered' },
  { value: 'mask', label: 'mask — matches become * (a rude display name is refused)' },
  { value: 'reject', label: 'reject — the text is refused (text_filtered)' },
  { value: 'flag', label: 'flag — delivered, and a report is opened for moderators' },
];

/** One word a line: what the lists look like in a textarea, and back. */
const lines = (words: readonly string[]) => words.join('\n');
const words = (text: string) => text.split('\n').map((w) => w.trim()).filter(Boolean);

/** The game's text filter (docs/registry.md, "Text filter"): mode and the game's own allow and deny words. */
async function textFilterSection(ui: Ui, game: GameView): Promise<HTMLElement> {
  const section = h('section', { class: 'card', id: 'text-filter' }, h('h2', null, 'Text filter'));
  const current = await ui.attempt('Loading the text filter', () => ui.s.registry.textFilter(game.GameId));
  if (!current) return section;
  const version = h('p', { class: 'muted', id: 'text-filter-version' }, `Version ${current.Version}`);
  const form = h(
    'form',
    { class: 'stack', id: 'text-filter-form' },
    h('p', { class: 'muted' }, 'Applies to chat, display names and status texts of players writing from this game (English word list, with look-alike letters and leetspeak).'),
    h('label', null, 'Mode', h('select', { name: 'mode' }, FILTER_MODES.map((m) => h('option', { value: m.value, selected: m.value === current.Mode }, m.label)))),
    h('label', null, 'Deny list (one word a line, at most 1000, each at most 64 characters)', h('textarea', { name: 'deny', value: lines(current.DenyList) })),
    h('label', null, 'Allow list (never filtered, e.g. “cockpit”; one a line)', h('textarea', { name: 'allow', value: lines(current.AllowList) })),
    h('button', { type: 'submit' }, 'Save text filter'),
  );
  onSubmit(form, (f) => {
    void ui.attempt('Saving the text filter', async () => {
      const saved = await ui.s.registry.setTextFilter(game.GameId, { Mode: f.mode as TextFilter['Mode'], AllowList: words(f.allow), DenyList: words(f.deny) });
      (form.querySelector('[name=deny]') as HTMLTextAreaElement).value = lines(saved.DenyList);
      (form.querySelector('[name=allow]') as HTMLTextAreaElement).value = lines(saved.AllowList);
      version.textContent = `Version ${saved.Version}`;
      ui.say('Text filter saved.');
    });
  });
  section.append(form, version);
  return section;
}

/** The features refused to guests in this game (GuestRestricted): the platform's list, or the game's own. */
function guestSection(ui: Ui, game: GameView, reload: () => void): HTMLElement {
  const own = game.GuestRestricted;
  const form = h(
    'form',
    { class: 'stack', id: 'guest-restrictions' },
    h('label', null, h('input', { type: 'checkbox', name: 'platform', value: 'on', checked: own === null }), 'Use the platform’s list (SOCIAL_GUEST_RESTRICTED)'),
    h('p', { class: 'muted' }, 'Otherwise, refused to guest accounts in this game until they upgrade:'),
    GAME_GUEST_FEATURES.map((f) =>
      h('label', null, h('input', { type: 'checkbox', name: f.feature, value: 'on', checked: own?.includes(f.feature) ?? false }), `${f.feature} — upgrading unlocks: ${f.unlocks}`),
    ),
    h('button', { type: 'submit' }, 'Save guest restrictions'),
  );
  onSubmit(form, (f) => {
    const list = f.platform === 'on' ? null : GAME_GUEST_FEATURES.filter((x) => f[x.feature] === 'on').map((x) => x.feature);
    void ui.attempt('Saving', async () => {
      await ui.s.registry.updateGame(game.GameId, { GuestRestricted: list });
      ui.say(list === null ? 'Guest restrictions: the platform’s list.' : `Guest restrictions saved: ${list.join(', ') || 'none'}.`);
      reload();
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Guest restrictions'), form);
}

const GROUP_LIMITS = [
  ['PerPlayer', 'Groups a player may belong to (1: one clan per player)'],
  ['CreatedPerDay', 'Groups a player may create per day (0: none)'],
  ['DefaultMemberLimit', 'Member limit of a new group'],
  ['MaxMemberLimit', 'Highest member limit of a group'],
] as const;

/** Limits of the game's groups (GroupLimits): each one the game's own, or the platform's when left empty. */
function groupLimitsSection(ui: Ui, game: GameView, reload: () => void): HTMLElement {
  const own = game.GroupLimits ?? {};
  const form = h(
    'form',
    { class: 'stack', id: 'group-limits' },
    h('p', { class: 'muted' }, 'Empty: the platform’s setting (SOCIAL_GROUPS_*).'),
    GROUP_LIMITS.map(([name, label]) => h('label', null, label, h('input', { name, type: 'number', min: 0, max: 5000, step: 1, value: own[name] === undefined ? '' : String(own[name]) }))),
    h('button', { type: 'submit' }, 'Save group limits'),
  );
  onSubmit(form, (f) => {
    const limits: Partial<Record<(typeof GROUP_LIMITS)[number][0], number>> = {};
    for (const [name] of GROUP_LIMITS) if (f[name].trim() !== '') limits[name] = Number(f[name]);
    const set = Object.keys(limits).length ? limits : null;
    void ui.attempt('Saving', async () => {
      await ui.s.registry.updateGame(game.GameId, { GroupLimits: set });
      ui.say(set ? `Group limits saved: ${Object.entries(set).map(([k, v]) => `${k} ${v}`).join(', ')}.` : 'Group limits: the platform’s.');
      reload();
    });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Group limits'), form);
}

function credentialsSection(ui: Ui, game: GameView, reload: () => void): HTMLElement {
  const r = ui.s.registry;
  const rotateSecret = async () => {
    const yes = await confirmDialog({
      title: 'Rotate the API secret?',
      body: 'A new secret is made and the current one stops working at once, on every node: game servers using it are refused until they get the new one.',
      confirm: 'Rotate the secret',
    });
    if (!yes) return;
    await ui.attempt('Rotating the secret', async () => {
      const rotated = await r.regenerateKey(game.GameId);
      ui.say('The API secret was replaced.');
      await showSecretOnce('New API secret', `The new API secret of ${rotated.Game.DisplayName}`, rotated.ApiSecret);
    });
  };
  const rotateClientKey = async () => {
    const yes = await confirmDialog({
      title: 'Rotate the client key?',
      body: 'Every client build shipping the current key stops working at once, and open sockets using it are closed (docs/client-key.md).',
      confirm: 'Rotate the client key',
    });
    if (yes && (await ui.attempt('Rotating the client key', () => r.regenerateClientKey(game.GameId)))) {
      ui.say('The client key was replaced.');
      reload();
    }
  };
  return h(
    'section',
    { class: 'card', id: 'credentials' },
    h('h2', null, 'Credentials'),
    h('p', null, 'API key (server side, with the secret): ', h('code', { id: 'api-key' }, game.ApiKey)),
    h('p', null, 'API secret: ', h('span', { class: 'muted' }, 'shown only when made; the platform keeps its hash.')),
    h('button', { id: 'rotate-secret', onclick: () => void rotateSecret() }, 'Rotate API secret'),
    h('p', null, 'Client key (public, shipped in game clients): ', h('code', { id: 'client-key' }, game.ClientKey)),
    h('button', { id: 'rotate-client-key', onclick: () => void rotateClientKey() }, 'Rotate client key'),
  );
}

async function playersSection(ui: Ui, game: GameView): Promise<HTMLElement> {
  const players = (await ui.attempt('Loading players', () => ui.s.registry.players(game.GameId))) ?? [];
  return h(
    'section',
    { class: 'card', id: 'players' },
    h('h2', null, `Registered players (${players.length})`),
    table(['Display name', 'Account id', 'Registered'], players.map((p) => [p.DisplayName ?? '—', h('code', null, p.UserId), when(p.RegisteredAt)]), 'No player registered yet.'),
  );
}

function dangerSection(ui: Ui, game: GameView): HTMLElement {
  const remove = async () => {
    const yes = await confirmDialog({
      title: `Delete ${game.DisplayName}?`,
      body: 'The game, its credentials, module builds and player registrations are deleted. This cannot be undone.',
      confirm: 'Delete the game',
      typeToConfirm: game.DisplayName,
    });
    if (yes && (await ui.attempt('Deleting', async () => (await ui.s.registry.deleteGame(game.GameId), true)))) {
      ui.say(`Deleted ${game.DisplayName}.`);
      ui.go('games');
    }
  };
  return h('section', { class: 'card' }, h('h2', null, 'Delete'), h('button', { class: 'danger', id: 'delete-game', onclick: () => void remove() }, 'Delete this game…'));
}

export async function gamePage(ui: Ui, main: HTMLElement, gameId: string): Promise<void> {
  const game = await ui.attempt('Loading the game', () => ui.s.registry.game(gameId));
  if (!game) return void main.append(h('p', null, h('a', { href: '#/games' }, 'Back to the games')));
  const reload = () => ui.go(`games/${game.GameId}`);
  const body = h('div');
  main.append(h('h1', { id: 'game-title' }, game.DisplayName), h('p', { class: 'muted' }, 'Game id ', h('code', null, game.GameId), ` · updated ${when(game.UpdatedAt)}`), body);
  replace(
    body,
    h('div', { class: 'columns' }, settingsSection(ui, game, reload), credentialsSection(ui, game, reload)),
    await textFilterSection(ui, game),
    guestSection(ui, game, reload),
    groupLimitsSection(ui, game, reload),
    await modulesSection(ui, game),
    await playersSection(ui, game),
    dangerSection(ui, game),
  );
}
