/**
 * The web console in Debian's Chromium (playwright-core), moderation side, against the three services in this
 * process: a player reports another (SDK in Node); a moderator opens the report with its snapshot in the console
 * and bans the player, whose open socket closes (4003) and who can no longer sign in; an admin looks an account
 * up, applies and lifts a sanction and grants a role; a player account is refused as staff. After each, nothing
 * of the session is in the browser: no storage, no cookie, no token in the console messages or the page.
 * The developer side: console.test.ts.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import { chromiumSkip } from '@platform/kit/testing';
import { assertNothingKept, openConsole, startRig, type ConsoleRig } from './support.js';
import { accountFlow, moderatorFlow } from './flows.js';

describe('web console in Chromium: moderation', { skip: chromiumSkip() }, () => {
  let rig: ConsoleRig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('a moderator opens a report with its snapshot and bans the player: the player’s socket closes (4003)', async () => {
    const tab = await openConsole(rig);
    await moderatorFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('an admin looks an account up, applies a chat sanction, lifts it and grants the moderator role; a player is refused as staff', async () => {
    const tab = await openConsole(rig);
    await accountFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });
});
