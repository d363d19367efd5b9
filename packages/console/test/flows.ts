/**
 * What the browser tests do, step by step, shared with the screenshot script (`snap` is called at each main
 * page; the tests pass none). Each flow asserts as it goes, through what the page shows and through the
 * services' APIs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { PlatformClient } from '@platform/client';
import { ADMIN_EMAIL, ADMIN_PASSWORD, GAME_SERVER_WAT, wat2wasm } from '@platform/e2e';
import { PASSWORD, shows, unique, type ConsoleRig, type ConsoleTab } from './support.js';

export type Snap = (name: string) => Promise<void>;
const none: Snap = async () => {};

const FORBIDDEN_WAT = `(module
  (import "platform" "log" (func (param i32 i32)))
  (import "env" "system" (func (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32))))`;

/** Reads the secret of the open "shown once" dialog, closes it and checks that it left the page. */
async function takeSecret(tab: ConsoleTab, snap: Snap, name?: string): Promise<string> {
  const secret = (await tab.page.locator('#secret-value').textContent()) ?? '';
  assert.match(secret, /^gs_[A-Za-z0-9_-]{43}$/);
  if (name) await snap(name);
  await tab.page.click('#secret-done');
  assert.equal(await tab.page.locator('#modal').isHidden(), true);
  assert.ok(!(await tab.page.content()).includes(secret), 'the secret is gone from the page once the dialog is closed');
  return secret;
}

/**
 * A developer signs up, creates a game (its secret shown once), edits its settings and visibility, uploads an
 * admitted module and a refused one, rotates the secret (the old one refused at once), sees a registered player
 * and deletes the game after typing its name.
 */
export async function developerFlow(rig: ConsoleRig, tab: ConsoleTab, snap: Snap = none): Promise<{ gameName: string; email: string }> {
  const { page } = tab;
  const registry = rig.platform.registry;
  await snap('sign-in');
  const email = `${unique('dev')}@console.test`;
  await page.fill('#dev-register [name=name]', 'Moonbase Studio');
  await page.fill('#dev-register [name=email]', email);
  await page.fill('#dev-register [name=password]', PASSWORD);
  await page.click('#dev-register button');
  await shows(page, 'h1', 'Your games');

  const gameName = unique('Moon Lander');
  await page.fill('#create-game [name=name]', gameName);
  await page.fill('#create-game [name=launch]', './moonlander --server');
  await page.click('#create-game button');
  const firstSecret = await takeSecret(tab, snap, 'game-created');
  await shows(page, '#game-title', gameName);
  const apiKey = (await page.locator('#api-key').textContent()) ?? '';
  assert.equal((await registry.call('POST', '/auth/validate-key', { body: { ApiKey: apiKey, ApiSecret: firstSecret } })).status, 200);

  // Settings and cross-game visibility.
  await page.selectOption('#game-settings [name=visibility]', 'full');
  await page.selectOption('#game-settings [name=platformFriends]', 'befriend');
  await page.fill('#game-settings [name=settings]', '{"maxPlayers": 8, "region": "eu"}');
  await page.click('#game-settings button');
  await shows(page, '#status', 'Settings saved.');
  const gameId = page.url().split('/').pop() ?? '';
  const dev = await registry.call('POST', '/developers/login', { body: { Email: email, Password: PASSWORD } });
  const game = await registry.call('GET', `/games/${gameId}`, { token: dev.body.Token });
  assert.equal(game.body.CrossGameVisibility, 'full');
  assert.equal(game.body.PlatformFriends, 'befriend');
  assert.deepEqual(game.body.Settings, { maxPlayers: 8, region: 'eu' });
  // Not JSON: refused in the page, nothing sent.
  await page.fill('#game-settings [name=settings]', '{not json');
  await page.click('#game-settings button');
  await shows(page, '#status.error', 'Settings must be a JSON object.');
  await page.fill('#game-settings [name=settings]', '{"maxPlayers": 8, "region": "eu"}');

  // A module the allowlist admits, then one it refuses (nothing stored).
  const good = await wat2wasm(GAME_SERVER_WAT);
  await page.fill('#upload-module [name=version]', '1.0.0');
  await page.setInputFiles('#upload-module [name=file]', { name: 'server.wasm', mimeType: 'application/wasm', buffer: good });
  await page.click('#upload-module button');
  await shows(page, '#upload-result', 'Admitted 1.0.0');
  const sha = createHashHex(good);
  await shows(page, '#upload-result', sha);
  await shows(page, '#builds', 'platform.broadcast');
  await page.fill('#upload-module [name=version]', '1.0.1');
  await page.setInputFiles('#upload-module [name=file]', { name: 'evil.wasm', mimeType: 'application/wasm', buffer: await wat2wasm(FORBIDDEN_WAT) });
  await page.click('#upload-module button');
  await shows(page, '#upload-result', 'imports_not_allowed');
  assert.deepEqual(await page.locator('#offending li').allTextContents(), ['env.system', 'wasi_snapshot_preview1.path_open']);
  await snap('game');
  const builds = await registry.call('GET', `/games/${gameId}/modules`, { token: dev.body.Token });
  assert.deepEqual(builds.body.map((b: { Version: string }) => b.Version), ['1.0.0'], 'the refused build was not stored');

  // Rotate the secret: confirmed, shown once; the old one is refused at once.
  await page.click('#rotate-secret');
  await page.click('#confirm-yes');
  const secondSecret = await takeSecret(tab, none);
  assert.notEqual(secondSecret, firstSecret);
  assert.equal((await registry.call('POST', '/auth/validate-key', { body: { ApiKey: apiKey, ApiSecret: firstSecret } })).status, 401);
  assert.equal((await registry.call('POST', '/auth/validate-key', { body: { ApiKey: apiKey, ApiSecret: secondSecret } })).status, 200);

  // A player registered by the game server shows in the list.
  const reg = await registry.call('POST', '/games/register-user', {
    headers: { 'x-platform-api-key': apiKey, 'x-platform-api-secret': secondSecret },
    body: { Email: `${unique('pilot')}@console.test`, Password: PASSWORD, DisplayName: 'Pilot One' },
  });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  await page.reload().catch(() => {}); // a reload signs out: the session was in memory only
  await page.locator('#dev-signin').waitFor();
  await page.fill('#dev-signin [name=email]', email);
  await page.fill('#dev-signin [name=password]', PASSWORD);
  await page.click('#dev-signin button');
  await shows(page, '#app a', gameName);
  await snap('games');
  await page.click(`#app a:has-text("${gameName}")`);
  await shows(page, '#players', 'Pilot One');

  // Delete: the button stays disabled until the name is typed.
  await page.click('#delete-game');
  assert.equal(await page.locator('#confirm-yes').isDisabled(), true);
  await page.fill('#confirm-text', 'wrong name');
  assert.equal(await page.locator('#confirm-yes').isDisabled(), true);
  await page.fill('#confirm-text', gameName);
  await page.click('#confirm-yes');
  await shows(page, '#status', `Deleted ${gameName}.`);
  assert.equal((await registry.call('GET', `/games/${gameId}`, { token: dev.body.Token })).status, 404);
  return { gameName, email };
}

function createHashHex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A staff account: registered through the SDK, the role granted in SQL (as an operator's grant-role would). */
export async function staffAccount(rig: ConsoleRig, roles: string[]): Promise<{ email: string; id: string }> {
  const c = rig.player();
  const email = `${unique('mod')}@console.test`;
  const { accountId } = await c.auth.register({ email, password: PASSWORD, display_name: 'Mia Moderator' });
  await rig.platform.authDb.query('UPDATE accounts SET roles = $2::text[] WHERE id = $1', [accountId, ['player', ...roles]]);
  await c.auth.signOut();
  return { email, id: accountId! };
}

export async function staffSignIn(tab: ConsoleTab, email: string): Promise<void> {
  await tab.page.fill('#staff-signin [name=email]', email);
  await tab.page.fill('#staff-signin [name=password]', PASSWORD);
  await tab.page.click('#staff-signin button');
  await shows(tab.page, 'h1', 'Report queue');
}

/** A player with an email account and a social handle. */
export async function newPlayer(
  rig: ConsoleRig,
  name: string,
  opts: { clientKey?: string } = {},
): Promise<{ client: PlatformClient; email: string; accountId: string; publicId: string; fullHandle: string }> {
  const client = rig.player(opts);
  const email = `${unique(name.toLowerCase())}@console.test`;
  const { accountId } = await client.auth.register({ email, password: PASSWORD, display_name: name });
  const me = await client.social.changeName(name);
  return { client, email, accountId: accountId!, publicId: me.publicId, fullHandle: me.fullHandle };
}

/**
 * A player reports another for threats in their party's chat; a moderator signs in to the console, opens the
 * report with its snapshot and bans the player from it: the player's open socket closes (4003) and signing in
 * is refused.
 */
export async function moderatorFlow(rig: ConsoleRig, tab: ConsoleTab, snap: Snap = none): Promise<void> {
  const { page } = tab;
  const vera = await newPlayer(rig, 'Vera');
  const brutus = await newPlayer(rig, 'Brutus');
  const rt = brutus.client.realtime();
  const closed = new Promise<{ code: number }>((resolve) => rt.on('close', resolve));
  await rt.connect();
  try {
    const party = await vera.client.social.createParty({ visibility: 'Public' });
    await brutus.client.social.joinParty(party.partyId);
    await brutus.client.social.sendChat('party', party.partyId, 'hand over your password or else');
    await vera.client.social.report({ targetPublicId: brutus.publicId, reason: 'harassment', context: `party:${party.partyId} in the lobby` });

    const mod = await staffAccount(rig, ['moderator']);
    await staffSignIn(tab, mod.email);
    await shows(page, '#reports', brutus.fullHandle);
    await snap('reports');
    await page.locator('#reports tr', { hasText: brutus.fullHandle }).first().locator('a').click();
    await shows(page, '#snapshot-messages', 'hand over your password or else');
    await shows(page, '#snapshot', brutus.fullHandle);
    await snap('report');
    await page.selectOption('#report-action [name=type]', 'ban');
    await page.fill('#report-action [name=reason]', 'Threats in party chat');
    await page.fill('#report-action [name=note]', 'Clear threat; permanent ban');
    await page.click('#report-action button');
    await page.click('#confirm-yes');
    await shows(page, '#status', 'Sanction ban applied');
    await shows(page, '#report-state-now', 'actioned');
    await shows(page, '#history', 'Clear threat; permanent ban');
    assert.equal((await closed).code, 4003, 'the banned player\'s socket is closed');
  } finally {
    rt.close();
  }
  const again = rig.player();
  await assert.rejects(again.auth.signInWithEmail({ email: brutus.email, password: PASSWORD }), (e: { status: number; code: string }) => e.status === 403 && e.code === 'account_banned');
}

/**
 * Account lookup: a player account is no staff (refused at staff sign-in); an admin finds a player by email, sees
 * identities, sessions and the audit trail, applies a chat sanction and lifts it, and grants the moderator role.
 */
export async function accountFlow(rig: ConsoleRig, tab: ConsoleTab, snap: Snap = none): Promise<void> {
  const { page } = tab;
  const pat = await newPlayer(rig, 'Pat');
  await page.fill('#staff-signin [name=email]', pat.email);
  await page.fill('#staff-signin [name=password]', PASSWORD);
  await page.click('#staff-signin button');
  await shows(page, '#status.error', 'neither the moderator nor the admin role');

  const admin = await staffAccount(rig, ['admin']);
  await staffSignIn(tab, admin.email);
  await page.click('#nav a:has-text("Accounts")');
  await page.fill('#account-search [name=q]', pat.email);
  await page.click('#account-search button');
  await shows(page, '#accounts', pat.email);
  await page.locator('#accounts a').first().click();
  await shows(page, '#identities', pat.email);
  assert.ok((await page.locator('#sessions tbody tr').count()) >= 1, 'the sign-up session is listed');
  await shows(page, '#audit', 'login');

  await page.selectOption('#account-sanction [name=type]', 'chat');
  await page.selectOption('#account-sanction [name=duration]', { label: '1 day' });
  await page.fill('#account-sanction [name=reason]', 'Spam in global chat');
  await page.click('#account-sanction button');
  await shows(page, '#status', 'Sanction chat applied.');
  await shows(page, '#sanctions', 'Spam in global chat');
  assert.equal(await page.locator('#sanctions .tag.active').count(), 1);
  await shows(page, '#audit', 'sanction'); // who set it, in the account's audit trail
  await snap('account');
  const [set] = (await rig.platform.auth.call('GET', `/account/sanctions`, { token: await pat.client.session.accessToken() })).body.sanctions;
  assert.equal(set.type, 'chat');
  await page.click('#sanctions button.lift');
  await page.click('#confirm-yes');
  await shows(page, '#status', 'Sanction lifted.');
  await shows(page, '#sanctions', 'lifted');
  assert.equal(await page.locator('#sanctions .tag.active').count(), 0);

  // An admin grants the moderator role; Pat is staff from the next sign-in.
  await page.check('#account-roles [name=moderator]');
  await page.click('#account-roles button');
  await shows(page, '#status', 'Roles saved: player, moderator');
  const { rows } = await rig.platform.authDb.query<{ roles: string[] }>('SELECT roles FROM accounts WHERE id = $1', [pat.accountId]);
  assert.deepEqual(rows[0].roles, ['player', 'moderator']);
}

/** The super-admin (the registry's seeded account) signs in and opens the Developers page. */
export async function superAdminDevelopers(tab: ConsoleTab): Promise<void> {
  const { page } = tab;
  await page.fill('#dev-signin [name=email]', ADMIN_EMAIL);
  await page.fill('#dev-signin [name=password]', ADMIN_PASSWORD);
  await page.click('#dev-signin button');
  await shows(page, 'h1', 'Every game');
  await page.click('#nav a:has-text("Developers")');
  await shows(page, '#developers', ADMIN_EMAIL);
}

/** The super-admin sees every developer. */
export async function superAdminFlow(tab: ConsoleTab, developerEmail: string | undefined, snap: Snap = none, staffEmail?: string): Promise<void> {
  const { page } = tab;
  await superAdminDevelopers(tab);
  if (developerEmail) await shows(page, '#developers', developerEmail);
  await snap('developers');
  if (staffEmail) {
    // Staff made while the platform runs: the player account becomes a moderator at auth.
    await page.fill('#staff-roles [name=account]', staffEmail);
    await page.selectOption('#staff-roles [name=role]', 'moderator');
    await page.click('#staff-roles button');
    await shows(page, '#status', 'moderator');
  }
}

/**
 * Appeals: a moderator's action on a report restricts a player's chat; the player appeals it with the SDK; a moderator
 * opens the appeals queue in the console, sees the player's words beside the sanction and the report (whose snapshot is
 * one click away), and shortens it with an answer; the player reads the answer in the inbox.
 */
export async function appealFlow(rig: ConsoleRig, tab: ConsoleTab, snap: Snap = none): Promise<void> {
  const { page } = tab;
  const olga = await newPlayer(rig, 'Olga');
  const quill = await newPlayer(rig, 'Quill');
  const party = await olga.client.social.createParty({ visibility: 'Public' });
  await quill.client.social.joinParty(party.partyId);
  await quill.client.social.sendChat('party', party.partyId, 'you will not leave this lobby alive');
  await olga.client.social.report({ targetPublicId: quill.publicId, reason: 'harassment', context: `party:${party.partyId}` });
  const mod = await staffAccount(rig, ['moderator']);
  const modClient = rig.player();
  await modClient.auth.signInWithEmail({ email: mod.email, password: PASSWORD });
  const [report] = (await modClient.moderation.reports({ targetPublicId: quill.publicId, limit: 1 })).reports;
  const acted = await modClient.moderation.actOnReport(report!.reportId, { sanction: { type: 'chat', reason: 'Threats in party chat', durationSeconds: 7 * 86_400 } });
  const appeal = await quill.client.auth.appealSanction(acted.sanction.id, { reason: 'misunderstood', text: 'It was a line from the film we were quoting.' });

  await staffSignIn(tab, mod.email);
  await page.click('#nav a:has-text("Appeals")');
  const card = `#appeals [data-appeal="${appeal.id}"]`;
  await shows(page, card, 'It was a line from the film we were quoting.');
  await shows(page, card, 'Threats in party chat');
  await snap('appeals');
  // The report the sanction came from, with its snapshot.
  await page.click(`${card} a.appeal-report`);
  await shows(page, '#snapshot-messages', 'you will not leave this lobby alive');
  await page.click('#nav a:has-text("Appeals")');
  await page.selectOption(`${card} [name=outcome]`, 'shorten');
  await page.fill(`${card} [name=hours]`, '24');
  await page.fill(`${card} [name=response]`, 'One day instead of seven.');
  await page.click(`${card} button`);
  await shows(page, '#status', 'Appeal shortened.');
  await page.selectOption('#appeal-status', 'shortened');
  await shows(page, `#appeals [data-appeal="${appeal.id}"]`, 'One day instead of seven.');
  const [mine] = await quill.client.auth.appeals();
  assert.deepEqual([mine!.status, mine!.response], ['shortened', 'One day instead of seven.']);
  assert.ok(Math.abs(Date.parse(mine!.new_expires_at!) - Date.now() - 86_400_000) < 120_000);
  let notice: { data: { message: string; reference?: string } } | undefined;
  for (let i = 0; i < 100 && !notice; i++) {
    notice = (await quill.client.social.notifications()).notifications.find((n) => n.kind === 'moderationNotice') as typeof notice;
    if (!notice) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(notice, 'the answer in the player’s inbox');
  assert.match(notice.data.message, /One day instead of seven\.$/);
  assert.equal(notice.data.reference, `appeal:${appeal.id}`);
}

/** A developer gives a new game its own guest restrictions, then the platform's list again (registry GuestRestricted). */
export async function guestRestrictionsFlow(rig: ConsoleRig, tab: ConsoleTab): Promise<void> {
  const { page } = tab;
  const registry = rig.platform.registry;
  const email = `${unique('dev')}@console.test`;
  await page.fill('#dev-register [name=name]', 'Guest Studio');
  await page.fill('#dev-register [name=email]', email);
  await page.fill('#dev-register [name=password]', PASSWORD);
  await page.click('#dev-register button');
  await shows(page, 'h1', 'Your games');
  await page.fill('#create-game [name=name]', unique('Guest Lander'));
  await page.click('#create-game button');
  await takeSecret(tab, none);
  await page.locator('#guest-restrictions').waitFor();
  const gameId = page.url().split('/').pop() ?? '';
  const dev = await registry.call('POST', '/developers/login', { body: { Email: email, Password: PASSWORD } });
  const stored = async () => (await registry.call('GET', `/games/${gameId}`, { token: dev.body.Token })).body.GuestRestricted;
  assert.equal(await stored(), null);
  assert.equal(await page.isChecked('#guest-restrictions [name=platform]'), true);
  await shows(page, '#guest-restrictions', 'upgrading unlocks: Create parties');

  await page.uncheck('#guest-restrictions [name=platform]');
  await page.check('#guest-restrictions [name=party_create]');
  await page.check('#guest-restrictions [name=party_chat]');
  await page.click('#guest-restrictions button');
  await shows(page, '#status', 'Guest restrictions saved: party_chat, party_create.');
  assert.deepEqual(await stored(), ['party_chat', 'party_create']);
  // The page shows what is stored.
  await page.locator('#guest-restrictions [name=party_create]:checked').waitFor();
  assert.equal(await page.isChecked('#guest-restrictions [name=reports]'), false);

  // None of them: nothing restricted in this game.
  await page.uncheck('#guest-restrictions [name=party_create]');
  await page.uncheck('#guest-restrictions [name=party_chat]');
  await page.click('#guest-restrictions button');
  await shows(page, '#status', 'Guest restrictions saved: none.');
  assert.deepEqual(await stored(), []);

  await page.check('#guest-restrictions [name=platform]');
  await page.click('#guest-restrictions button');
  await shows(page, '#status', 'Guest restrictions: the platform’s list.');
  assert.equal(await stored(), null);
}

/**
 * Staff see a guest's abuse score with its reasons (a guest made on a device, then wrong guest secrets from it);
 * the player's own account view has none of it.
 */
export async function guestScoreFlow(rig: ConsoleRig, tab: ConsoleTab): Promise<void> {
  const { page } = tab;
  const auth = rig.platform.auth;
  const device = unique('console-device');
  const guest = await auth.call('POST', '/guest', { body: { device_fingerprint: device } });
  assert.equal(guest.status, 200, JSON.stringify(guest.body));
  for (let i = 0; i < 2; i++) {
    const wrong = await auth.call('POST', '/guest/restore', { body: { account_id: guest.body.account_id, guest_secret: 'not-the-secret', device_fingerprint: device } });
    assert.equal(wrong.status, 401);
  }
  const own = await auth.call('GET', '/account', { token: guest.body.access_token });
  assert.equal(own.status, 200);
  assert.ok(!JSON.stringify(own.body).includes('score'), 'the player never sees the score');

  const admin = await staffAccount(rig, ['moderator']);
  await staffSignIn(tab, admin.email);
  await page.click('#nav a:has-text("Accounts")');
  await page.fill('#account-search [name=q]', guest.body.account_id);
  await page.click('#account-search button');
  await page.locator('#accounts a').first().click();
  await shows(page, '#guest-score', 'restore_failed');
  await shows(page, '#guest-score', 'guest_created');
  await shows(page, '#guest-score', 'a device it signed in on');
  // 1 for the guest made on the device, 2 for each wrong secret from it: 5 (less a moment's decay).
  const text = (await page.locator('#guest-score p').first().textContent()) ?? '';
  const score = Number(/Score ([\d.]+)/.exec(text)?.[1]);
  assert.ok(score > 4.9 && score <= 5, text);
  await shows(page, '#guest-score', 'normal');
}
