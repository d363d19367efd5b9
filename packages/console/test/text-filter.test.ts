/**
 * The text filter in the web console, in Debian's Chromium (playwright-core), against the three services in this
 * process: a developer sets their game's filter on the game page (mode flag, a deny word, an allow word); a player
 * writing from that game (its client key) says the deny word in party chat: the other member gets it unchanged
 * and a moderator finds the text filter's report, with the message, in the moderation console. Switched to mask
 * on the game page, the next message reaches the other member masked (open sockets follow at once).
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumSkip } from '@platform/kit/testing';
import { assertNothingKept, openConsole, PASSWORD, shows, startRig, unique, type ConsoleRig } from './support.js';
import { newPlayer, staffAccount, staffSignIn } from './flows.js';

describe('web console in Chromium: text filter', { skip: chromiumSkip() }, () => {
  let rig: ConsoleRig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('a developer sets the filter on the game page; flagged chat reaches the moderation queue; mask masks', async () => {
    const registry = rig.platform.registry;
    const email = `${unique('filter-dev')}@console.test`;
    const dev = await registry.call('POST', '/developers/register', { body: { Email: email, Password: PASSWORD, DisplayName: 'Filter Studio' } });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));
    const created = await registry.call('POST', '/games', { token: dev.body.Token, body: { DisplayName: unique('Sky Pilots') } });
    const game = created.body.Game as { GameId: string; ClientKey: string };

    const tab = await openConsole(rig);
    const { page } = tab;
    await page.fill('#dev-signin [name=email]', email);
    await page.fill('#dev-signin [name=password]', PASSWORD);
    await page.click('#dev-signin button');
    await shows(page, 'h1', 'Your games');
    await page.goto(`${rig.url}#/games/${game.GameId}`);
    await page.locator('#text-filter-form').waitFor();
    assert.equal(await page.locator('#text-filter-form [name=mode]').inputValue(), 'mask', 'a new game starts in mask mode');
    await shows(page, '#text-filter-version', 'Version 1');

    await page.selectOption('#text-filter-form [name=mode]', 'flag');
    await page.fill('#text-filter-form [name=deny]', 'Griefer\n\n  camper ');
    await page.fill('#text-filter-form [name=allow]', 'Cockpit');
    await page.click('#text-filter-form button');
    await shows(page, '#status', 'Text filter saved.');
    await shows(page, '#text-filter-version', 'Version 2');
    assert.equal(await page.locator('#text-filter-form [name=deny]').inputValue(), 'griefer\ncamper', 'shown as stored');
    const saved = await registry.call('GET', `/games/${game.GameId}/text-filter`, { token: dev.body.Token });
    assert.deepEqual(saved.body, { Mode: 'flag', AllowList: ['cockpit'], DenyList: ['griefer', 'camper'], Version: 2 });
    // A list out of bounds: the registry's refusal is shown, nothing saved.
    await page.fill('#text-filter-form [name=deny]', 'x'.repeat(65));
    await page.click('#text-filter-form button');
    await shows(page, '#status.error', 'DenyList');
    await page.fill('#text-filter-form [name=deny]', 'griefer\ncamper');

    // Two players of the game in a party; the one listening has a socket.
    const ann = await newPlayer(rig, 'Ann', { clientKey: game.ClientKey });
    const bob = await newPlayer(rig, 'Bob', { clientKey: game.ClientKey });
    const rt = bob.client.realtime();
    await rt.connect();
    try {
      const party = await ann.client.social.createParty({ visibility: 'Public' });
      await bob.client.social.joinParty(party.partyId);
      const flagged = rt.next('chatMessage', (m) => m.fromPublicId === ann.publicId);
      const sent = await ann.client.social.sendChat('party', party.partyId, 'back to the cockpit, you gr1ef3r');
      assert.equal(sent.body, 'back to the cockpit, you gr1ef3r');
      assert.equal((await flagged).body, 'back to the cockpit, you gr1ef3r');

      // The moderation console shows the report, filed by the text filter, with the message.
      const modTab = await openConsole(rig);
      const mod = await staffAccount(rig, ['moderator']);
      await staffSignIn(modTab, mod.email);
      const row = modTab.page.locator('#reports tr', { hasText: ann.fullHandle }).first();
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Text filter/);
      await row.locator('a').click();
      await shows(modTab.page, '#snapshot-messages', 'you gr1ef3r');
      await shows(modTab.page, 'p', 'by Text filter about');
      await assertNothingKept(modTab);
      await modTab.context.close();

      // Mask from now on: the open socket gets the next message masked (the registry's notice reaches social at
      // once; asked again a few times, as the notice crosses the bus a moment after the answer).
      await page.selectOption('#text-filter-form [name=mode]', 'mask');
      await page.click('#text-filter-form button');
      await shows(page, '#text-filter-version', 'Version 3');
      let body = '';
      for (let i = 0; i < 40 && !body.includes('*'); i++) {
        const next = rt.next('chatMessage', (m) => m.fromPublicId === ann.publicId);
        await ann.client.social.sendChat('party', party.partyId, 'no camper here');
        body = (await next).body;
        if (!body.includes('*')) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(body, 'no ****** here');
    } finally {
      rt.close();
    }
    await assertNothingKept(tab);
    await tab.context.close();
  });
});
