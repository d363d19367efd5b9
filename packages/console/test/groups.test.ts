/**
 * Groups in the web console, in Debian's Chromium (playwright-core), against the three services in this process: a
 * developer sets the game's group limits on the game page (and social applies them to the game's players); a
 * moderator opens a report naming a group, reads the group's text in the snapshot, opens the group and renames it,
 * clears its description and disbands it, each action kept and shown.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumSkip } from '@platform/kit/testing';
import { assertNothingKept, openConsole, PASSWORD, shows, startRig, unique, type ConsoleRig } from './support.js';
import { newPlayer, staffAccount, staffSignIn } from './flows.js';

describe('web console in Chromium: groups', { skip: chromiumSkip() }, () => {
  let rig: ConsoleRig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('a developer sets the game’s group limits; a player of the game is held to one clan; empty brings the platform’s back', async () => {
    const registry = rig.platform.registry;
    const email = `${unique('clan-dev')}@console.test`;
    const dev = await registry.call('POST', '/developers/register', { body: { Email: email, Password: PASSWORD, DisplayName: 'Clan Studio' } });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));
    const game = (await registry.call('POST', '/games', { token: dev.body.Token, body: { DisplayName: unique('Clan Wars') } })).body.Game as { GameId: string; ClientKey: string };
    const stored = async () => (await registry.call('GET', `/games/${game.GameId}`, { token: dev.body.Token })).body.GroupLimits;

    const tab = await openConsole(rig);
    const { page } = tab;
    await page.fill('#dev-signin [name=email]', email);
    await page.fill('#dev-signin [name=password]', PASSWORD);
    await page.click('#dev-signin button');
    await shows(page, 'h1', 'Your games');
    await page.goto(`${rig.url}#/games/${game.GameId}`);
    await page.locator('#group-limits').waitFor();
    assert.equal(await page.locator('#group-limits [name=PerPlayer]').inputValue(), '', 'the platform’s at first');
    await page.fill('#group-limits [name=PerPlayer]', '1');
    await page.fill('#group-limits [name=MaxMemberLimit]', '500');
    await page.click('#group-limits button');
    await shows(page, '#status', 'Group limits saved: PerPlayer 1, MaxMemberLimit 500.');
    assert.deepEqual(await stored(), { PerPlayer: 1, MaxMemberLimit: 500 });
    await page.locator('#group-limits [name=PerPlayer]').waitFor();
    assert.equal(await page.locator('#group-limits [name=MaxMemberLimit]').inputValue(), '500', 'shown as stored');

    // The game's players: one clan each, and no group above 500 members.
    const player = await newPlayer(rig, 'Clanner', { clientKey: game.ClientKey });
    await assert.rejects(player.client.social.createGroup({ name: unique('Huge'), tag: 'BIG', memberLimit: 501 }), (e: { code: string }) => e.code === 'invalid_member_limit');
    await player.client.social.createGroup({ name: unique('First Clan'), tag: 'ONE' });
    await assert.rejects(player.client.social.createGroup({ name: unique('Second Clan'), tag: 'TWO' }), (e: { status: number; code: string }) => e.status === 409 && e.code === 'group_limit_reached');

    // A value out of bounds: the registry's refusal is shown, nothing saved.
    await page.fill('#group-limits [name=PerPlayer]', '0');
    await page.click('#group-limits button');
    await shows(page, '#status.error', 'PerPlayer');
    assert.deepEqual(await stored(), { PerPlayer: 1, MaxMemberLimit: 500 });

    await page.fill('#group-limits [name=PerPlayer]', '');
    await page.fill('#group-limits [name=MaxMemberLimit]', '');
    await page.click('#group-limits button');
    await shows(page, '#status', 'Group limits: the platform’s.');
    assert.equal(await stored(), null);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a moderator opens a report naming a group, then the group: renames it, clears its description, disbands it', async () => {
    const [owner, reporter] = [await newPlayer(rig, 'Warlord'), await newPlayer(rig, 'Bystander')];
    const name = unique('Rude Clan');
    const group = await owner.client.social.createGroup({ name, tag: 'RUDE', description: 'a very rude description', joinPolicy: 'open' });
    await reporter.client.social.report({ targetPublicId: owner.publicId, reason: 'offensive_name', context: `group:${group.groupId} their clan` });

    const tab = await openConsole(rig);
    const { page } = tab;
    const mod = await staffAccount(rig, ['moderator']);
    await staffSignIn(tab, mod.email);
    await page.locator('#reports tr', { hasText: owner.fullHandle }).first().locator('a').click();
    await shows(page, '#snapshot-group', 'a very rude description');
    await page.click('#report-group');
    await shows(page, '#group-details', name);
    await shows(page, '#group-actions', 'No staff action yet.');

    // An action is chosen, never preselected.
    await page.fill('#group-action [name=reason]', 'Offensive text');
    await page.click('#group-action button');
    await shows(page, '#status.error', 'Choose an action.');
    await page.selectOption('#group-action [name=action]', 'clear_description');
    await page.click('#group-action button');
    await shows(page, '#status', 'The description is cleared.');
    await shows(page, '#group-description', 'No description.');
    const renamed = unique('Renamed');
    await page.selectOption('#group-action [name=action]', 'rename');
    await page.fill('#group-action [name=name]', renamed);
    await page.fill('#group-action [name=reason]', 'Offensive name');
    await page.click('#group-action button');
    await shows(page, '#status', `Renamed to ${renamed}.`);
    assert.equal((await owner.client.social.group(group.groupId)).name, renamed, 'the players see the new name');

    // Disbanding asks first; cancelled, nothing happens.
    await page.selectOption('#group-action [name=action]', 'disband');
    await page.fill('#group-action [name=reason]', 'Hate group');
    await page.click('#group-action button');
    await page.click('#confirm-no');
    assert.equal((await owner.client.social.group(group.groupId)).groupId, group.groupId);
    await page.click('#group-action button');
    await page.click('#confirm-yes');
    await shows(page, '#status', 'The group is disbanded.');
    await shows(page, '#group-details', 'Disbanded');
    assert.equal(await page.locator('#group-actions tbody tr').count(), 3);
    await assert.rejects(owner.client.social.group(group.groupId), (e: { status: number }) => e.status === 404);

    // The lookup page refuses what is not a group id.
    await page.goto(`${rig.url}#/groups`);
    await page.fill('#group-lookup [name=id]', 'not-an-id');
    await page.click('#group-lookup button');
    await shows(page, '#status.error', 'A group id is a UUID');
    await assertNothingKept(tab);
    await tab.context.close();
  });
});
