/**
 * Finding players through the SDK against the real social service (docs/social.md, "Finding players"): a game
 * server posts a roster (its key and secret, not the SDK), players read their recent players and suggestions, report
 * with the match, search with `searchable`, list a party and find and join it; typed PlatformErrors.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenParty, RecentPlayer, Suggestion } from '../src/index.js';
import { PASSWORD, player, rejects, uniqueEmail, usePlatform, type TestPlatform } from './support.js';

/** A game of a new developer: its server credentials and its public client key. */
async function newGame(tp: TestPlatform) {
  const dev = await tp.platform.registry.call('POST', '/developers/register', { body: { Email: uniqueEmail('studio'), Password: PASSWORD, DisplayName: 'Studio' } });
  assert.equal(dev.status, 201, JSON.stringify(dev.body));
  const game = await tp.platform.registry.call('POST', '/games', { token: dev.body.Token, body: { DisplayName: 'Finding Game' } });
  assert.equal(game.status, 201, JSON.stringify(game.body));
  return { apiKey: game.body.Game.ApiKey as string, apiSecret: game.body.ApiSecret as string, clientKey: game.body.Game.ClientKey as string };
}

describe('client: finding players against the real social service', () => {
  const { tp } = usePlatform();

  it('recent players from a posted roster, a match report, suggestions, search with searchable', async () => {
    const game = await newGame(tp);
    const opts = { clientKey: game.clientKey };
    const [ann, ben, cid] = [await player(tp, 'Ann Finder', opts), await player(tp, 'Ben Finder', opts), await player(tp, 'Cid Finder', opts)];
    // The game server's post (server to server, not an SDK call).
    const posted = await tp.fetch(`${tp.platform.socialUrl}/v1/matches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-platform-game-key': game.apiKey, 'x-platform-game-secret': game.apiSecret },
      body: JSON.stringify({ matchId: 'sdk-1', players: [ann.publicId, ben.publicId] }),
    });
    assert.equal(posted.status, 201, await posted.text());
    const page = await ann.social.recentPlayers();
    const first: RecentPlayer = page.players[0];
    assert.deepEqual([first.publicId, first.matchId, first.friend, page.nextCursor], [ben.publicId, 'sdk-1', false, null]);
    await rejects(ann.social.recentPlayers({ cursor: 'nope' }), 400, 'invalid_cursor');
    // A guest may not report by default: the player upgrades first, then reports with the match.
    await ann.auth.link({ email: uniqueEmail('ann'), password: PASSWORD });
    assert.deepEqual(await ann.social.report({ targetPublicId: ben.publicId, reason: 'cheating', context: 'match:sdk-1' }), { status: 'received' });
    await rejects(ann.social.report({ targetPublicId: ben.publicId, reason: 'cheating', context: 'match:other' }), 404, 'match_not_found');
    // Suggestions: Ben is a recent player; Cid, a friend of Ben's friend… after Ann befriends Ben, a friend of a friend.
    const s1: Suggestion[] = (await ann.social.suggestions()).suggestions;
    assert.deepEqual(s1.map((s) => [s.publicId, s.source]), [[ben.publicId, 'recentPlayer']]);
    await ann.social.sendFriendRequest({ toPublicId: ben.publicId });
    await ben.social.acceptFriendRequest(ann.publicId);
    await ben.social.sendFriendRequest({ toPublicId: cid.publicId });
    await cid.social.acceptFriendRequest(ben.publicId);
    const s2 = (await ann.social.suggestions({ limit: 5 })).suggestions;
    assert.deepEqual(s2.map((s) => [s.publicId, s.source, s.mutualFriends]), [[cid.publicId, 'friendsOfFriends', 1]]);
    // Search in this game; searchable off hides Cid from a prefix, not from the exact handle.
    assert.deepEqual((await ann.social.searchUsers('Cid Fin')).map((u) => u.publicId), [cid.publicId]);
    const profile = await cid.social.updateProfile({ searchable: false });
    assert.equal(profile.searchable, false);
    assert.deepEqual(await ann.social.searchUsers('Cid Fin'), []);
    assert.deepEqual((await ann.social.searchUsers(cid.fullHandle)).map((u) => u.publicId), [cid.publicId]);
    const exported = await ann.social.exportData();
    assert.equal(exported.recentPlayers[0].matchId, 'sdk-1');
  });

  it('list a party, find it with filters, join it; it leaves the list when full', async () => {
    const game = await newGame(tp);
    const opts = { clientKey: game.clientKey };
    const lead = await player(tp, 'Lobby Lead', opts);
    const joiner = await player(tp, 'Lobby Joiner', opts);
    const late = await player(tp, 'Lobby Late', opts);
    const party = await lead.social.createParty({ maxSize: 2, visibility: 'Public' });
    const listing = await lead.social.listParty(party.partyId, { mode: 'duo', region: 'eu', language: 'en', metadata: { skill: 'any' } });
    assert.equal(listing.mode, 'duo');
    await rejects(lead.social.listParty(party.partyId, { language: 'not a tag' }), 400, 'invalid_language');
    const found: OpenParty[] = (await joiner.social.openParties({ mode: 'duo', region: 'EU' })).parties;
    assert.deepEqual(found.map((p) => [p.partyId, p.freeSlots, p.leaderPublicId]), [[party.partyId, 1, lead.publicId]]);
    assert.deepEqual((await joiner.social.openParties({ mode: 'squad' })).parties, []);
    await joiner.social.joinParty(party.partyId);
    assert.deepEqual((await late.social.openParties()).parties, [], 'a full party is not listed');
    await rejects(joiner.social.listParty(party.partyId), 403, 'not_leader');
    await lead.social.unlistParty(party.partyId);
  });
});
