/**
 * Groups through the SDK against the real social service (docs/social.md, "Groups"): create, find, join a request
 * group, accept, deny, kick, invite and accept, roles, bans, ownership, disband; the group events over the SDK's
 * realtime client; the typed errors (PlatformError codes) and the guest restriction on creation.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { guestRestriction, type Group, type RealtimeClient } from '../src/index.js';
import { PASSWORD, player, rejects, uniqueEmail, usePlatform, type TestPlatform } from './support.js';

describe('client: groups against the real social service', () => {
  const { tp, sockets } = usePlatform();
  const realtime = async (c: { realtime(): RealtimeClient }) => {
    const rt = c.realtime();
    sockets.push(rt);
    await rt.connect();
    return rt;
  };
  /** A unique group name (names are unique per game) starting with `base`. */
  const uniqueName = (base: string) => `${base} ${randomUUID().slice(0, 8)}`;
  /** A player whose guest account is upgraded (guests may not create groups by default). */
  const founder = async (t: TestPlatform, name: string) => {
    const p = await player(t, name);
    await p.auth.link({ email: uniqueEmail(name.toLowerCase()), password: PASSWORD });
    return p;
  };

  it('create (a guest is refused until they upgrade), find, request to join, accept, deny, members, kick; events arrive live', async () => {
    const ada = await player(tp, 'Ada');
    const name = uniqueName('Knights');
    // A guest is refused creation (group_create), with the line to show; after linking an email they may create.
    const refused = await rejects(ada.social.createGroup({ name, tag: 'KN' }), 403, 'guest_restricted');
    assert.deepEqual(guestRestriction(refused), { feature: 'group_create', unlocks: 'Create groups' });
    await ada.auth.link({ email: uniqueEmail('ada'), password: PASSWORD });
    const g = await ada.social.createGroup({ name, tag: 'KN', language: 'en', description: 'We ride at dawn' });
    assert.equal(g.name, name);
    assert.equal(g.joinPolicy, 'request');
    assert.equal(g.memberCount, 1);
    assert.equal(g.myRole, 'owner');
    const taken = await rejects(ada.social.createGroup({ name: name.toUpperCase(), tag: 'KN' }), 409, 'group_name_taken');
    assert.equal(taken.source, 'social');
    assert.equal((await rejects(ada.social.createGroup({ name: 'ab', tag: 'KN' }), 400, 'invalid_group_name')).details.field, 'name');

    // Find: by prefix, tag and language, open ones only, in pages.
    const open = await ada.social.createGroup({ name: `${name} Open`, tag: 'KNO', joinPolicy: 'open' });
    const bob = await player(tp, 'Bob');
    const byPrefix = await bob.social.findGroups({ prefix: name });
    assert.deepEqual(byPrefix.groups.map((x) => x.groupId), [g.groupId, open.groupId]);
    assert.equal(byPrefix.nextCursor, null);
    assert.equal(byPrefix.groups[0].myRole, undefined, 'Bob is not a member');
    const first = await bob.social.findGroups({ prefix: name, limit: 1 });
    assert.deepEqual(first.groups.map((x) => x.groupId), [g.groupId]);
    assert.ok(first.nextCursor);
    const second = await bob.social.findGroups({ prefix: name, limit: 1, cursor: first.nextCursor });
    assert.deepEqual(second.groups.map((x) => x.groupId), [open.groupId]);
    assert.deepEqual((await bob.social.findGroups({ prefix: name, open: true })).groups.map((x) => x.groupId), [open.groupId]);
    assert.deepEqual((await bob.social.findGroups({ prefix: name, tag: 'KN', language: 'en' })).groups.map((x) => x.groupId), [g.groupId]);
    await rejects(bob.social.findGroups({ cursor: 'not-a-cursor' }), 400, 'invalid_cursor');
    await rejects(bob.social.group(randomUUID()), 404, 'group_not_found');

    // Bob asks to join; Ada (who may accept) hears it live, sees the request and accepts; both hear the join.
    const [adaRt, bobRt] = await Promise.all([realtime(ada), realtime(bob)]);
    const asked = adaRt.next('groupJoinRequested', (e) => e.groupId === g.groupId);
    const requested = await bob.social.joinGroup(g.groupId);
    assert.equal(requested.state, 'requested');
    assert.deepEqual(await asked, { groupId: g.groupId, publicId: bob.publicId, fullHandle: bob.fullHandle, displayName: 'Bob' });
    await rejects(bob.social.joinGroup(g.groupId), 409, 'group_request_exists');
    await rejects(bob.social.groupRequests(g.groupId), 404, 'group_not_found'); // not a member yet
    assert.deepEqual((await ada.social.groupRequests(g.groupId)).requests.map((r) => r.publicId), [bob.publicId]);
    const joinedAda = adaRt.next('groupMemberJoined', (e) => e.groupId === g.groupId);
    const joinedBob = bobRt.next('groupMemberJoined', (e) => e.groupId === g.groupId);
    const accepted = await ada.social.acceptGroupRequest(g.groupId, bob.publicId);
    assert.deepEqual([accepted.publicId, accepted.role], [bob.publicId, 'member']);
    assert.equal((await joinedAda).member.publicId, bob.publicId);
    assert.equal((await joinedBob).member.role, 'member');
    assert.deepEqual((await bob.social.myGroups()).groups.map((x) => [x.groupId, x.myRole]), [[g.groupId, 'member']]);

    // Members, in joining order, in pages.
    const all = await bob.social.groupMembers(g.groupId);
    assert.deepEqual(all.members.map((m) => [m.publicId, m.role]), [[ada.publicId, 'owner'], [bob.publicId, 'member']]);
    const page1 = await bob.social.groupMembers(g.groupId, { limit: 1 });
    assert.deepEqual(page1.members.map((m) => m.publicId), [ada.publicId]);
    assert.ok(page1.nextCursor);
    const page2 = await bob.social.groupMembers(g.groupId, { limit: 1, cursor: page1.nextCursor });
    assert.deepEqual(page2.members.map((m) => m.publicId), [bob.publicId]);

    // A member without the permission is refused, with the permission named.
    const denied = await rejects(bob.social.kickFromGroup(g.groupId, ada.publicId), 403, 'group_permission_denied');
    assert.equal(denied.details.permission, 'kick');
    await rejects(bob.social.groupRequests(g.groupId), 403, 'group_permission_denied');

    // Cy asks and is denied; a decided request is gone.
    const cy = await player(tp, 'Cy');
    assert.equal((await cy.social.joinGroup(g.groupId)).state, 'requested');
    await ada.social.denyGroupRequest(g.groupId, cy.publicId);
    assert.deepEqual((await ada.social.groupRequests(g.groupId)).requests, []);
    await rejects(ada.social.acceptGroupRequest(g.groupId, cy.publicId), 404, 'group_request_not_found');
    // Cy joins the open group at once.
    const openJoin = await cy.social.joinGroup(open.groupId);
    assert.deepEqual([openJoin.state, openJoin.group.myRole], ['joined', 'member']);

    // Ada kicks Bob: both hear it, and Bob is no longer a member.
    await rejects(ada.social.kickFromGroup(g.groupId, ada.publicId), 403, 'rank_too_low');
    const kickedAda = adaRt.next('groupMemberLeft', (e) => e.groupId === g.groupId);
    const kickedBob = bobRt.next('groupMemberLeft', (e) => e.groupId === g.groupId);
    await ada.social.kickFromGroup(g.groupId, bob.publicId);
    assert.deepEqual(await kickedBob, { groupId: g.groupId, publicId: bob.publicId, reason: 'kicked' });
    assert.equal((await kickedAda).reason, 'kicked');
    await rejects(ada.social.kickFromGroup(g.groupId, bob.publicId), 404, 'group_member_not_found');
    assert.equal((await bob.social.group(g.groupId)).myRole, undefined);
    assert.deepEqual((await bob.social.myGroups()).groups, []);
    // Bob withdraws a new request by leaving.
    await bob.social.joinGroup(g.groupId);
    assert.equal((await bob.social.leaveGroup(g.groupId)).state, 'withdrawn');
  });

  it('invite and accept or decline, roles, bans, editing, ownership, disband; events arrive live', async () => {
    const ada = await founder(tp, 'Ada');
    const [bob, cy] = [await player(tp, 'Bob'), await player(tp, 'Cy')];
    const [adaRt, bobRt, cyRt] = await Promise.all([realtime(ada), realtime(bob), realtime(cy)]);
    const g: Group = await ada.social.createGroup({ name: uniqueName('Crew'), tag: 'CRW', joinPolicy: 'invite' });
    await rejects(bob.social.joinGroup(g.groupId), 403, 'group_join_denied');

    // Invite and accept (live invite event), invite and decline.
    const invited = bobRt.next('groupInviteReceived', (e) => e.groupId === g.groupId);
    const invite = await ada.social.inviteToGroup(g.groupId, { toPublicId: bob.publicId });
    assert.deepEqual(await invited, invite);
    assert.deepEqual([invite.groupName, invite.groupTag, invite.fromPublicId], [g.name, 'CRW', ada.publicId]);
    assert.deepEqual((await bob.social.groupInvites()).invites.map((i) => i.inviteId), [invite.inviteId]);
    const accepted = await bob.social.acceptGroupInvite(invite.inviteId);
    assert.deepEqual([accepted.state, accepted.group.myRole, accepted.group.memberCount], ['joined', 'member', 2]);
    await rejects(ada.social.inviteToGroup(g.groupId, { toPublicId: bob.publicId }), 409, 'already_group_member');
    await rejects(ada.social.inviteToGroup(g.groupId, { toPublicId: ada.publicId }), 400, 'cannot_invite_self');
    await rejects(ada.social.inviteToGroup(g.groupId, { toHandle: 'Nobody#0000' }), 404, 'user_not_found');
    const toCy = await ada.social.inviteToGroup(g.groupId, { toHandle: cy.fullHandle });
    await cy.social.declineGroupInvite(toCy.inviteId);
    assert.deepEqual((await cy.social.groupInvites()).invites, []);
    await rejects(cy.social.acceptGroupInvite(toCy.inviteId), 404, 'group_invite_not_found');
    await rejects(cy.social.declineGroupInvite(invite.inviteId), 404, 'group_invite_not_found'); // Bob's, not Cy's

    // A defined role with some permissions; Bob gets it (everyone hears the change) and may now invite, not ban.
    const officer = await ada.social.putGroupRole(g.groupId, 'officer', { rank: 10, permissions: ['invite', 'kick'] });
    assert.deepEqual(officer, { name: 'officer', rank: 10, permissions: ['invite', 'kick'], builtIn: false });
    assert.deepEqual((await bob.social.groupRoles(g.groupId)).roles.map((r) => r.name), ['owner', 'admin', 'officer', 'member']);
    await rejects(ada.social.putGroupRole(g.groupId, 'Bad Name!', { rank: 10, permissions: [] }), 400, 'invalid_role');
    const roleChanged = bobRt.next('groupRoleChanged', (e) => e.groupId === g.groupId);
    assert.equal((await ada.social.setGroupRole(g.groupId, bob.publicId, 'officer')).role, 'officer');
    assert.deepEqual(await roleChanged, { groupId: g.groupId, publicId: bob.publicId, role: 'officer' });
    await rejects(ada.social.setGroupRole(g.groupId, bob.publicId, 'captain'), 404, 'role_not_found');
    const fromBob = await bob.social.inviteToGroup(g.groupId, { toPublicId: cy.publicId });
    assert.equal((await cy.social.acceptGroupInvite(fromBob.inviteId)).state, 'joined');
    assert.equal((await rejects(bob.social.banFromGroup(g.groupId, cy.publicId), 403, 'group_permission_denied')).details.permission, 'ban');
    await rejects(bob.social.kickFromGroup(g.groupId, ada.publicId), 403, 'rank_too_low');
    await rejects(bob.social.updateGroup(g.groupId, { description: 'hijacked' }), 403, 'group_permission_denied');

    // Ada bans Cy (Cy hears it), who may not come back until unbanned.
    const banned = cyRt.next('groupMemberLeft', (e) => e.groupId === g.groupId);
    await ada.social.banFromGroup(g.groupId, cy.publicId);
    assert.deepEqual(await banned, { groupId: g.groupId, publicId: cy.publicId, reason: 'banned' });
    await rejects(ada.social.inviteToGroup(g.groupId, { toPublicId: cy.publicId }), 403, 'group_banned');
    await ada.social.unbanFromGroup(g.groupId, cy.publicId);
    await rejects(ada.social.unbanFromGroup(g.groupId, cy.publicId), 404, 'ban_not_found');

    // Editing.
    const edited = await ada.social.updateGroup(g.groupId, { description: 'A new crew', joinPolicy: 'open', memberLimit: 10 });
    assert.deepEqual([edited.description, edited.joinPolicy, edited.memberLimit], ['A new crew', 'open', 10]);
    await rejects(ada.social.updateGroup(g.groupId, { avatarUrl: 'http://cdn.example/a.png' }), 400, 'invalid_avatar_url');

    // Ownership: the owner must hand over before leaving; the transfer is announced twice (new owner, old owner).
    await rejects(ada.social.leaveGroup(g.groupId), 409, 'owner_must_transfer');
    await rejects(bob.social.transferGroup(g.groupId, cy.publicId), 403, 'group_permission_denied');
    const ownerNow = bobRt.next('groupRoleChanged', (e) => e.groupId === g.groupId && e.publicId === bob.publicId && e.role === 'owner');
    const adminNow = bobRt.next('groupRoleChanged', (e) => e.groupId === g.groupId && e.publicId === ada.publicId && e.role === 'admin');
    const handed = await ada.social.transferGroup(g.groupId, bob.publicId);
    assert.equal(handed.myRole, 'admin');
    await Promise.all([ownerNow, adminNow]);
    // Ada (now admin, rank 50) removes the officer role (rank 10): nobody holds it now.
    await ada.social.removeGroupRole(g.groupId, 'officer');
    assert.deepEqual((await ada.social.groupRoles(g.groupId)).roles.map((r) => r.name), ['owner', 'admin', 'member']);
    await rejects(ada.social.removeGroupRole(g.groupId, 'officer'), 404, 'role_not_found');

    // Only the owner disbands; every member hears it; the group is gone.
    assert.equal((await rejects(ada.social.disbandGroup(g.groupId), 403, 'group_permission_denied')).details.permission, 'disband');
    const disbanded = adaRt.next('groupDisbanded', (e) => e.groupId === g.groupId);
    await bob.social.disbandGroup(g.groupId);
    assert.deepEqual(await disbanded, { groupId: g.groupId, name: g.name });
    await rejects(ada.social.group(g.groupId), 404, 'group_not_found');
    assert.deepEqual((await ada.social.myGroups()).groups, []);
  });

  it('a group event missed while away is replayed when the realtime client resumes from its last event id', async () => {
    const ada = await founder(tp, 'Ada');
    const bob = await player(tp, 'Bob');
    const g = await ada.social.createGroup({ name: uniqueName('Owls'), tag: 'OWL' });
    const first = await realtime(ada);
    const since = first.lastEventId;
    assert.ok(since);
    first.close();
    await bob.social.joinGroup(g.groupId); // Ada is away
    const again = ada.realtime({ lastEventId: since });
    sockets.push(again);
    const replayed = again.next('groupJoinRequested', (e) => e.groupId === g.groupId);
    const caught = again.next('caughtUp');
    await again.connect();
    assert.equal((await replayed).publicId, bob.publicId);
    assert.deepEqual(await caught, { resumed: true });
  });

  it('group chat: sent over HTTP and over the socket, read back in history, delivered live; members online', async () => {
    const ada = await founder(tp, 'Ada');
    const bob = await player(tp, 'Bob');
    const g = await ada.social.createGroup({ name: uniqueName('Chatters'), tag: 'CHT', joinPolicy: 'open' });
    await bob.social.joinGroup(g.groupId);
    const [adaRt, bobRt] = [await realtime(ada), await realtime(bob)];
    const heard = bobRt.next('chatMessage', (m) => m.channel === 'group' && m.channelId === g.groupId);
    const sent = await ada.social.sendChat('group', g.groupId, 'Raid at eight');
    assert.equal(sent.channel, 'group');
    assert.equal((await heard).messageId, sent.messageId);
    const echoed = adaRt.next('chatMessage', (m) => m.channel === 'group' && m.body === 'On my way');
    bobRt.sendChat('group', g.groupId, 'On my way');
    assert.equal((await echoed).fromPublicId, bob.publicId);
    const history = await ada.social.chatHistory('group', g.groupId);
    assert.deepEqual(history.messages.map((m) => m.body), ['On my way', 'Raid at eight']);
    const outsider = await player(tp, 'Cy');
    await rejects(outsider.social.chatHistory('group', g.groupId), 404, 'channel_not_found');
    const members = (await ada.social.groupMembers(g.groupId)).members;
    assert.deepEqual(members.map((m) => [m.publicId, m.online]), [[ada.publicId, true], [bob.publicId, true]], 'both have a socket open');
  });

  it('creations per day are bounded (429 with retryAfter); the group routes need a session', async () => {
    const dee = await founder(tp, 'Dee');
    const base = uniqueName('Daily');
    for (let i = 0; i < 5; i++) await dee.social.createGroup({ name: `${base} ${i}`, tag: 'DAY' }); // Social:Groups:CreatedPerDay
    const limited = await rejects(dee.social.createGroup({ name: `${base} 5`, tag: 'DAY' }), 429, 'rate_limited');
    assert.ok(limited.retryAfter !== undefined && limited.retryAfter > 0, `retryAfter ${limited.retryAfter}`);
    assert.equal((await dee.social.findGroups({ prefix: base })).groups.length, 5);
    await rejects(tp.client().social.findGroups(), 401, 'not_signed_in');
  });
});
