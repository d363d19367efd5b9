/**
 * The web console (docs/console.md): a page per hash route, rendered with plain DOM calls. The registry serves
 * it at /console with config.json (where auth and social are, the idle limit).
 */
import { byId, h, replace } from './dom.js';
import { ConsoleSessions, type ConsoleConfig } from './session.js';
import { makeUi, say, type Ui } from './ui.js';
import { signInPage } from './pages/sign-in.js';
import { gamesPage } from './pages/games.js';
import { gamePage } from './pages/game.js';
import { developersPage } from './pages/developers.js';
import { securityPage } from './pages/security.js';
import { reportsPage, reportPage } from './pages/reports.js';
import { accountsPage, accountPage } from './pages/accounts.js';
import { appealsPage } from './pages/appeals.js';
import { groupPage, groupsLookupPage } from './pages/groups.js';

type Page = (ui: Ui, main: HTMLElement, arg: string) => Promise<void> | void;

/** Routes: `#/games/<id>` → gamePage(…, '<id>'). `needs` names the session a page requires. */
const ROUTES: Record<string, { page: Page; needs?: 'developer' | 'super-admin' | 'staff' }> = {
  signin: { page: signInPage },
  games: { page: (ui, main, id) => (id ? gamePage(ui, main, id) : gamesPage(ui, main)), needs: 'developer' },
  developers: { page: developersPage, needs: 'super-admin' },
  security: { page: securityPage, needs: 'developer' },
  reports: { page: (ui, main, id) => (id ? reportPage(ui, main, id) : reportsPage(ui, main)), needs: 'staff' },
  accounts: { page: (ui, main, id) => (id ? accountPage(ui, main, id) : accountsPage(ui, main)), needs: 'staff' },
  appeals: { page: appealsPage, needs: 'staff' },
  groups: { page: (ui, main, id) => (id ? groupPage(ui, main, id) : groupsLookupPage(ui, main)), needs: 'staff' },
};

function allowed(s: ConsoleSessions, needs: string | undefined): boolean {
  if (needs === 'developer') return s.developer !== undefined;
  if (needs === 'super-admin') return s.developer?.role === 'super-admin';
  if (needs === 'staff') return s.staff !== undefined;
  return true;
}

function renderNav(ui: Ui, current: string): void {
  const s = ui.s;
  const link = (route: string, label: string) => h('a', { href: `#/${route}`, class: current === route ? 'active' : '' }, label);
  replace(
    byId('nav'),
    s.developer ? link('games', 'Games') : null,
    s.developer?.role === 'super-admin' ? link('developers', 'Developers') : null,
    s.developer ? link('security', 'Security') : null,
    s.staff ? [link('reports', 'Reports'), link('appeals', 'Appeals'), link('accounts', 'Accounts'), link('groups', 'Groups')] : null,
    link('signin', s.any ? 'Sessions' : 'Sign in'),
  );
  const who = [s.developer ? `${s.developer.email} (${s.developer.role})` : null, s.staff ? `${s.staff.name} (${s.staff.roles.join(', ')})` : null].filter(Boolean);
  replace(byId('who'), who.join(' · '), s.any ? h('button', { id: 'sign-out', onclick: () => void s.signOut('Signed out.') }, 'Sign out') : null);
}

async function render(ui: Ui): Promise<void> {
  const [route = '', arg = ''] = location.hash.replace(/^#\/?/, '').split('?')[0].split('/').map(decodeURIComponent);
  const entry = ROUTES[route];
  if (!entry || !allowed(ui.s, entry.needs)) {
    const home = ui.s.developer ? 'games' : ui.s.staff ? 'reports' : 'signin';
    if (route !== home) return ui.go(home);
  }
  const target = ROUTES[route] ?? ROUTES.signin;
  renderNav(ui, route);
  const main = byId('app');
  main.replaceChildren();
  await target.page(ui, main, arg);
}

async function start(): Promise<void> {
  const res = await fetch('/console/config.json', { credentials: 'omit' });
  const config = (await res.json()) as ConsoleConfig;
  let ui: Ui | undefined;
  const sessions = new ConsoleSessions(config, (why) => {
    if (why) say(why);
    if (ui) void render(ui);
  });
  const go = (hash: string) => {
    if (location.hash === `#/${hash}`) void render(ui!);
    else location.hash = `#/${hash}`;
  };
  ui = makeUi(sessions, go);
  addEventListener('hashchange', () => void render(ui!));
  await render(ui);
}

start().catch((e: unknown) => say(`The console could not start: ${(e as Error).message}`, true));
