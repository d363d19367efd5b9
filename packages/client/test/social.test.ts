/** The social API through the SDK against the real service: friends, parties, chat, presence, notes, errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GUEST_FEATURES, guestFeaturesOf } from '@platform/kit';
import { GAME_GUEST_FEATURES, guestRestriction } from '../src/index.js';
import { gameClientKey, PASSWORD, player, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

describe('client: the social API against the real service', () => {
  let tp: TestPlatform;
  before(async () => {
    tp = await startTestPlatform({ socialEnv: { SOCIAL_LIMITS_SEARCHES_PER_MINUTE: '3' } });
  });
  after(async () => {
    await tp.close();
  });

  it('friends: search, request, accept, list, notes, mute, remove', async () => {
    const ada = await player(tp, 'Ada');
    const bob = await player(tp, 'Bob');
    const found = await ada.social.searchUsers(bob.fullHandle);
    assert.deepEqual(found.map((u) => u.publicId), [bob.publicId]);

    const sent = await ada.social.sendFriendRequest({ toHandle: bob.fullHandle });
    assert.equal(sent.state, 'pending');
    assert.deepEqual((await ada.social.friendRequests('outgoing')).map((r) => r.publicId), [bob.publicId]);
    const incoming = await bob.social.friendRequests();
    assert.deepEqual(incoming.map((r) => [r.publicId, r.direction]), [[ada.publicId, 'incoming']]);
    assert.equal((await bob.social.acceptFriendRequest(ada.publicId)).state, 'accepted');
    const friends = await ada.social.friends();
    assert.deepEqual(friends.map((f) => f.publicId), [bob.publicId]);
    assert.ok(friends[0].dmChannelId);

    await rejects(ada.social.note(bob.publicId), 404, 'no_note');
    assert.equal((await ada.social.setNote(bob.publicId, 'plays support'))?.text, 'plays support');
    assert.equal((await ada.social.note(bob.publicId)).text, 'plays support');
    assert.equal(await ada.social.setNote(bob.publicId, '  '), undefined);
    await ada.social.deleteNote(bob.publicId);

    await ada.social.mute(bob.publicId);
    assert.equal((await ada.social.friends())[0].muted, true);
    await ada.social.unmute(bob.publicId);

    const presence = await bob.social.setPresence({ state: 'away', richPresence: { activity: 'lobby', joinable: false } });
    assert.equal(presence.state, 'away');
    assert.equal((await ada.social.presence(bob.publicId)).state, 'away');

    await ada.social.removeFriend(bob.publicId);
    assert.deepEqual(await ada.social.friends(), []);
    await rejects(ada.social.presence(bob.publicId), 404, 'not_visible');
    // A request can be cancelled, and a block hides the user.
    await ada.social.sendFriendRequest({ toPublicId: bob.publicId });
    await ada.social.cancelFriendRequest(bob.publicId);
    await bob.social.block(ada.publicId);
    await rejects(ada.social.sendFriendRequest({ toPublicId: bob.publicId }), 404, 'user_not_found');
    await bob.social.unblock(ada.publicId);
  });

  it('parties: create, invite, join, chat over HTTP, leader, leave', async () => {
    const ada = await player(tp, 'Ada');
    const bob = await player(tp, 'Bob');
    await ada.social.sendFriendRequest({ toPublicId: bob.publicId });
    await bob.social.acceptFriendRequest(ada.publicId);

    const party = await ada.social.createParty({ maxSize: 4 });
    assert.equal(party.leaderPublicId, ada.publicId);
    await rejects(bob.social.joinParty(party.partyId), 403, 'join_denied');
    const invite = await ada.social.inviteToParty(party.partyId, { toPublicId: bob.publicId });
    assert.deepEqual((await bob.social.invites()).map((i) => i.inviteId), [invite.inviteId]);
    const joined = await bob.social.joinParty(party.partyId, invite.inviteId);
    assert.equal(joined.partyId, party.partyId);
    assert.deepEqual((await bob.social.party(party.partyId)).members.map((m) => m.publicId), [ada.publicId, bob.publicId]);

    const sent = await ada.social.sendChat('party', party.partyId, 'ready when you are');
    assert.equal(sent.fromPublicId, ada.publicId);
    const history = await bob.social.chatHistory('party', party.partyId, { limit: 10 });
    assert.deepEqual(history.messages.map((m) => m.body), ['ready when you are']);

    await ada.social.setPartyVisibility(party.partyId, 'FriendsOnly');
    await ada.social.setPartySession(party.partyId, 'server-7');
    const meta = await ada.social.setJoinMetadata(party.partyId, { lobbyId: 'lobby-1' });
    assert.equal(meta.join?.lobbyId, 'lobby-1');
    assert.equal((await ada.social.transferLeadership(party.partyId, { publicId: bob.publicId })).leaderPublicId, bob.publicId);
    await rejects(ada.social.kick(party.partyId, { publicId: bob.publicId }), 403, 'not_leader');
    const left = await ada.social.leaveParty(party.partyId);
    assert.equal(left.state, 'left');

    const game = await ada.social.inviteToGame({ toPublicId: bob.publicId, sessionHandle: 'match-9' });
    assert.equal((await bob.social.acceptGameInvite(game.inviteId)).sessionHandle, 'match-9');
    const declined = await ada.social.inviteToGame({ toPublicId: bob.publicId });
    assert.equal((await bob.social.declineInvite(declined.inviteId)).state, 'declined');
    const revoked = await ada.social.inviteToGame({ toPublicId: bob.publicId });
    await ada.social.revokeInvite(revoked.inviteId);
  });

  it('self: profile, export, report, erase; a 429 carries retryAfter and the request id', async () => {
    const cy = await player(tp, 'Cy');
    const profile = await cy.social.updateProfile({ status: 'grinding', visibility: 'friends' });
    assert.equal(profile.status, 'grinding');
    const exported = await cy.social.exportData();
    assert.equal(exported.user.publicId, cy.publicId);
    const other = await player(tp, 'Dee');
    // A guest may not report (docs/social.md, "Guest restrictions"): guestRestriction reads what upgrading unlocks;
    // once the guest links an email (the SDK refreshes its token), the report goes through.
    const refused = await rejects(cy.social.report({ targetPublicId: other.publicId, reason: 'spam' }), 403, 'guest_restricted');
    assert.deepEqual(guestRestriction(refused), { feature: 'reports', unlocks: GUEST_FEATURES.reports.unlocks });
    assert.equal(guestRestriction(new Error('x')), undefined);
    // The SDK's list of what a game may restrict is the platform's (kit GUEST_FEATURES, social's features).
    assert.deepEqual(GAME_GUEST_FEATURES, guestFeaturesOf('social').map((feature) => ({ feature, unlocks: GUEST_FEATURES[feature].unlocks })));
    assert.equal(guestRestriction(await rejects(cy.social.note(other.publicId), 404, 'no_note')), undefined);
    await cy.auth.link({ email: uniqueEmail('cy'), password: PASSWORD });
    assert.equal((await cy.social.report({ targetPublicId: other.publicId, reason: 'spam' })).status, 'received');

    for (let i = 0; i < 3; i++) await cy.social.searchUsers('Dee');
    const limited = await rejects(cy.social.searchUsers('Dee'), 429, 'rate_limited');
    assert.equal(limited.source, 'social');
    assert.ok(limited.retryAfter !== undefined && limited.retryAfter > 0, `retryAfter ${limited.retryAfter}`);
    assert.match(limited.requestId ?? '', /.+/);

    const v = await rejects(cy.social.createParty({ maxSize: 99 }), 400, 'invalid_max_size');
    assert.ok(v.message);
    assert.equal((await cy.social.eraseSocialData()).state, 'deleted');
    assert.notEqual((await cy.social.me()).publicId, cy.publicId, 'a fresh profile after erasure');
  });

  it('the client key travels as X-Platform-Client-Key on social calls', async () => {
    const { clientKey } = await gameClientKey(tp);
    const seen: string[] = [];
    const c = tp.client({
      clientKey,
      fetch: (url, init) => {
        if (url.includes('/v1/')) seen.push(init.headers['x-platform-client-key'] ?? '');
        return tp.fetch(url, init);
      },
    });
    await c.auth.signInAsGuest();
    await c.social.me();
    assert.deepEqual(seen, [clientKey]);
    // A key of no game is refused by social.
    const stranger = tp.client({ clientKey: 'ck_test_key' });
    await stranger.auth.signInAsGuest();
    await rejects(stranger.social.me(), 401, 'invalid_client_key');
  });
});
