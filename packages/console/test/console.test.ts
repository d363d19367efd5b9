/**
 * The web console in Debian's Chromium (playwright-core), developer side, against the three services in this
 * process: a developer creates a game, edits its settings and visibility, uploads modules (one admitted, one
 * refused with its offending imports), rotates the secret (shown once) and deletes the game after typing its
 * name; the super-admin sees the developers; sign-out and the idle limit end the sessions. After each, nothing
 * of the session is in the browser: no storage, no cookie, no token in the console messages or the page.
 * The moderation side: moderation.test.ts.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumSkip } from '@platform/kit/testing';
import { assertNothingKept, openConsole, startRig, type ConsoleRig } from './support.js';
import { developerFlow, guestRestrictionsFlow, superAdminFlow } from './flows.js';

describe('web console in Chromium: developers', { skip: chromiumSkip() }, () => {
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

  it('a developer sets the game’s guest restrictions: its own list, none, then the platform’s again', async () => {
    const tab = await openConsole(rig);
    await guestRestrictionsFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('the super-admin sees every developer and makes a player a moderator; a developer has no Developers page', async () => {
    const tab = await openConsole(rig);
    const staffEmail = `console-staff-${Date.now()}@example.test`;
    const reg = await rig.platform.auth.call('POST', '/register', { body: { email: staffEmail, password: 'a long enough passphrase' } });
    assert.ok(reg.status < 300, JSON.stringify(reg.body));
    await superAdminFlow(tab, developerEmail, undefined, staffEmail);
    const { rows } = await rig.platform.authDb.query<{ roles: string[] }>(`SELECT a.roles FROM accounts a JOIN identities i ON i.account_id = a.id WHERE i.provider = 'email' AND i.provider_user_id = $1`, [staffEmail]);
    assert.deepEqual(rows[0].roles, ['player', 'moderator']);
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
