/**
 * The web console in Debian's Chromium (playwright-core) against the three services in this process: a developer
 * creates a game, edits it, uploads modules (one admitted, one refused), rotates the secret and deletes the game;
 * the super-admin sees the developers; a moderator handles a report by banning the player, whose open socket
 * closes; a moderator looks an account up, sanctions and lifts. After each, nothing of the session is in the
 * browser: no storage, no cookie, no token in the console messages or the page.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHROMIUM, assertNothingKept, haveChromium, openConsole, startRig, type ConsoleRig } from './support.js';
import { accountFlow, developerFlow, moderatorFlow, superAdminFlow } from './flows.js';

if (!haveChromium && process.env.REQUIRE_CHROMIUM === '1') throw new Error(`${CHROMIUM} is missing and REQUIRE_CHROMIUM=1`);

describe('web console in Chromium', { skip: haveChromium ? false : `${CHROMIUM} is missing (install chromium)` }, () => {
  let rig: ConsoleRig;
  let developerEmail: string | undefined;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('a developer creates a game, edits it, uploads modules, rotates the secret and deletes the game', async () => {
    const tab = await openConsole(rig);
    developerEmail = (await developerFlow(rig, tab)).email;
    assert.equal(await tab.page.locator('#nav a', { hasText: 'Developers' }).count(), 0, 'no Developers page for a developer');
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('the super-admin sees every developer; a developer has no Developers page', async () => {
    const tab = await openConsole(rig);
    await superAdminFlow(tab, developerEmail);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a moderator opens a report with its snapshot and bans the player: the player’s socket closes (4003)', async (t) => {
    const doc = (await rig.platform.social.call('GET', '/openapi.json')).body as { paths: Record<string, unknown> };
    const tab = await openConsole(rig);
    if (!doc.paths['/v1/moderation/reports/{reportId}/actions']) {
      // Until social has report actions: the queue, the snapshot and a move are tested; the ban is not.
      await moderatorFlow(rig, tab, undefined, { act: false });
      t.skip('social has no POST /v1/moderation/reports/{reportId}/actions yet: the ban from the report is untested');
    } else await moderatorFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a moderator looks an account up, applies a chat sanction and lifts it; a player is refused as staff', async () => {
    const tab = await openConsole(rig);
    await accountFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('signing out and the idle limit end the sessions', async () => {
    const tab = await openConsole(rig);
    const { page } = tab;
    await page.clock.install();
    await page.reload();
    await page.locator('#staff-signin').waitFor();
    await superAdminFlow(tab, undefined);
    await page.clock.fastForward('16:00'); // REGISTRY_CONSOLE_IDLE_MINUTES: 15 by default
    await page.locator('#status', { hasText: 'Signed out after 15 minutes without activity.' }).waitFor();
    await page.locator('#dev-signin').waitFor();
    assert.equal(await page.locator('#nav a', { hasText: 'Developers' }).count(), 0);
    await superAdminFlow(tab, undefined);
    await page.click('#sign-out');
    await page.locator('#dev-signin').waitFor();
    await assertNothingKept(tab);
    await tab.context.close();
  });
});
