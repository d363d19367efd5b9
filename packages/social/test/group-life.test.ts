// Groups (docs/social.md, "Groups") beyond membership: moderation (reports naming a group, staff actions), the
// notification inbox, group chat. Membership, roles and finding are in groups.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertError } from '@platform/kit/testing';
import { useHarness, type Game, type TestUser } from './support.js';

describe('groups: moderation, inbox, chat', () => {
  const h = useHarness({ SOCIAL_RATE_GROUP_SEARCHES_PER_MINUTE: '4' }, { checkAccountIds: true });
  let n = 0;
  /** A unique group name (names are unique per game across the suite's groups). */
  const uniqueName = (base = 'Guild') => `${base} ${++n} ${randomUUID().slice(0, 6)}`;
  const create = async (u: TestUser, body: Record<string, unknown> = {}, game?: Game) => {
    const r = await h.req(u, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'GLD', ...body }, ...(game ? { game } : {}) });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const join = (u: TestUser, id: string, game?: Game) => h.req(u, 'POST', `/v1/groups/${id}/join`, game ? { game } : {});

  it('moderation: a report naming a group keeps its text; staff rename, clear or disband it, each action kept', async () => {
    const game = h.registry.addGame('isolated');
    const [owner, member, reporter] = await h.users('MOwner', 'MMember', 'MReporter');
    const mod = await h.user('Moddy', { roles: ['moderator'] });
    const g = await create(owner, { joinPolicy: 'open', description: 'rude words here' }, game);
    await join(member, g.groupId, game);
    const filed = await h.req(reporter, 'POST', '/v1/reports', { body: { targetPublicId: owner.publicId, reason: 'offensive_name', context: `group:${g.groupId} bad group` }, game });
    assert.equal(filed.status, 202);
    const queue = (await h.req(mod, 'GET', '/v1/moderation/reports?limit=100')).body;
    const report = queue.reports.find((r: { context: string | null }) => r.context?.startsWith(`group:${g.groupId}`));
    assert.deepEqual(report.snapshot.group, { groupId: g.groupId, name: g.name, tag: g.tag, description: 'rude words here' });
    // Staff only; any game; a reason; each action kept with before and after.
    const act = (u: TestUser, body: unknown) => h.req(u, 'POST', `/v1/moderation/groups/${g.groupId}/actions`, { body });
    // Refused to a player (the owner too), a server-role token, an API-key caller and an anonymous one.
    const server = await h.user('NoRoleServer', { roles: ['server'] });
    for (const [method, url, body] of [['POST', `/v1/moderation/groups/${g.groupId}/actions`, { action: 'clear_description', reason: 'x' }], ['GET', `/v1/moderation/groups/${g.groupId}`]] as const) {
      for (const u of [owner, member, server]) assertError(await h.req(u, method, url, body ? { body } : {}), 403, 'moderator_required');
      const apiKey = await h.req(null, method, url, { ...(body ? { body } : {}), headers: { 'x-api-key': 'server-key-0123456789abcdef', 'x-user-id': h.subs[0] } });
      assert.ok([401, 403].includes(apiKey.status), String(apiKey.status));
      assertError(await h.req(null, method, url, body ? { body } : {}), 401, 'unauthorized');
    }
    assert.equal((await h.req(member, 'GET', `/v1/groups/${g.groupId}`, { game })).body.description, 'rude words here', 'nothing changed');
    const cleared = await act(mod, { action: 'clear_description', reason: 'Reported description' });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal(cleared.body.group.description, '');
    const renamed = await act(mod, { action: 'rename', name: `Renamed ${randomUUID().slice(0, 8)}`, reason: 'Offensive name' });
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.body.actions.map((a: { action: string; moderatorPublicId: string }) => [a.action, a.moderatorPublicId]), [['clear_description', mod.publicId], ['rename', mod.publicId]]);
    assert.equal(renamed.body.actions[1].before.name, g.name);
    for (const body of [{ action: 'rename', name: 'ab', reason: 'r' }, { action: 'rename', reason: 'r' }, { action: 'explode', reason: 'r' }, { action: 'disband' }, { action: 'disband', reason: 'r', extra: 1 }]) {
      const r = await act(mod, body);
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    for (const id of ['not-a-uuid', randomUUID()]) assertError(await h.req(mod, 'POST', `/v1/moderation/groups/${id}/actions`, { body: { action: 'disband', reason: 'r' } }), 404, 'group_not_found');
    // The members see the group renamed; a disband reaches them without naming anyone.
    assert.equal((await h.req(member, 'GET', `/v1/groups/${g.groupId}`, { game })).body.name, renamed.body.group.name);
    const rec = await h.events(member);
    const gone = await act(mod, { action: 'disband', reason: 'Hate group' });
    assert.deepEqual([gone.status, gone.body.group, gone.body.actions.length], [200, null, 3]);
    const [ev] = await rec.next('groupDisbanded');
    assert.deepEqual(Object.keys(ev.data as object).sort(), ['groupId', 'name']);
    assert.ok(!JSON.stringify(ev).includes(mod.publicId));
    assert.equal((await h.req(mod, 'GET', `/v1/moderation/groups/${g.groupId}`)).body.actions.length, 3);
    assertError(await h.req(mod, 'GET', `/v1/moderation/groups/${randomUUID()}`), 404, 'group_not_found');
  });

  it("members' presence: online or offline only, invisible reads offline, nothing else of it", async () => {
    const [owner, away, ghost, absent] = await h.users('POwner', 'PAway', 'PGhost', 'PAbsent');
    const g = await create(owner, { joinPolicy: 'open' });
    for (const u of [away, ghost, absent]) assert.equal((await join(u, g.groupId)).status, 200);
    const set = await h.req(away, 'POST', '/v1/presence', { body: { state: 'away', richPresence: { activity: 'Raiding', extra: { zone: 'secret dungeon' } } } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await h.req(ghost, 'POST', '/v1/presence', { body: { state: 'invisible' } });
    const page = (await h.req(owner, 'GET', `/v1/groups/${g.groupId}/members`)).body;
    const seen = Object.fromEntries(page.members.map((m: { publicId: string; online: boolean }) => [m.publicId, m.online]));
    assert.deepEqual(seen, { [owner.publicId]: false, [away.publicId]: true, [ghost.publicId]: false, [absent.publicId]: false });
    assert.ok(!JSON.stringify(page).includes('Raiding') && !JSON.stringify(page).includes('away'), 'no state or rich presence');
    await h.req(ghost, 'POST', '/v1/presence', { body: { state: 'online' } });
    const again = (await h.req(absent, 'GET', `/v1/groups/${g.groupId}/members`)).body.members;
    assert.deepEqual(again.filter((m: { online: boolean }) => m.online).map((m: { publicId: string }) => m.publicId).sort(), [away.publicId, ghost.publicId].sort());
  });

  it("a game's group limits replace the deployment's: one clan per player, no creations, member limits", async () => {
    const oneClan = h.registry.addGame('isolated', null, undefined, { PerPlayer: 1, DefaultMemberLimit: 3, MaxMemberLimit: 4 });
    const noCreation = h.registry.addGame('isolated', null, undefined, { CreatedPerDay: 0, MaxMemberLimit: 999_999 });
    const [owner, other, joiner] = await h.users('LOwner', 'LOther', 'LJoiner');
    const g = await create(owner, { joinPolicy: 'open' }, oneClan);
    assert.equal(g.memberLimit, 3, "the game's default member limit");
    assertError(await h.req(owner, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'TWO' }, game: oneClan }), 409, 'group_limit_reached');
    const g2 = await create(other, { joinPolicy: 'open', memberLimit: 4 }, oneClan);
    assertError(await h.req(owner, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'BIG', memberLimit: 5 }, game: noCreation }), 429, 'rate_limited');
    assertError(await h.req(other, 'PATCH', `/v1/groups/${g2.groupId}`, { body: { memberLimit: 5 }, game: oneClan }), 400, 'invalid_member_limit');
    assert.equal((await join(joiner, g.groupId, oneClan)).status, 200);
    assertError(await join(joiner, g2.groupId, oneClan), 409, 'group_limit_reached');
    // The same player in another game (the deployment's limits there) is not held by this game's.
    assert.equal((await create(joiner, {})).memberLimit, 100);
    // A value out of bounds from the registry is left out: the deployment's ceiling stands.
    assertError(await h.req(other, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'HUGE', memberLimit: 5001 }, game: noCreation }), 400, 'invalid_member_limit');
  });

  it('group searches are limited per player (Social:Limits:GroupSearchesPerMinute): 429 with Retry-After, others unaffected', async () => {
    const [seeker, other] = await h.users('SSeeker', 'SOther');
    for (let i = 0; i < 4; i++) assert.equal((await h.req(seeker, 'GET', '/v1/groups?prefix=zz')).status, 200);
    const limited = await h.req(seeker, 'GET', '/v1/groups?prefix=zz');
    assertError(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await h.req(other, 'GET', '/v1/groups?prefix=zz')).status, 200);
    assert.equal((await h.req(seeker, 'GET', '/v1/me/groups')).status, 200, 'the own list is not a search');
  });

  it('the inbox keeps what a player missed: an invite, an accepted request, a removal, a role, a disband', async () => {
    const [owner, invitee, asker, target] = await h.users('NOwner', 'NInvitee', 'NAsker', 'NTarget');
    const g = await create(owner, { joinPolicy: 'request' });
    const inbox = async (u: TestUser) =>
      (await h.req(u, 'GET', '/v1/notifications')).body.notifications.map((x: { kind: string; actor?: { publicId: string }; data: Record<string, unknown> }) => ({
        kind: x.kind,
        actor: x.actor?.publicId,
        data: x.data,
      }));
    const inv = (await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: invitee.publicId } })).body;
    assert.deepEqual(await inbox(invitee), [{ kind: 'groupInviteReceived', actor: owner.publicId, data: { inviteId: inv.inviteId, groupId: g.groupId, expiresAt: inv.expiresAt } }]);
    await join(asker, g.groupId);
    await h.req(owner, 'POST', `/v1/groups/${g.groupId}/requests/${asker.publicId}/accept`);
    assert.deepEqual(await inbox(asker), [{ kind: 'groupRequestAccepted', actor: owner.publicId, data: { groupId: g.groupId } }]);
    await join(target, g.groupId);
    await h.req(owner, 'POST', `/v1/groups/${g.groupId}/requests/${target.publicId}/accept`);
    await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/members/${target.publicId}/role`, { body: { role: 'admin' } });
    await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/members/${target.publicId}/role`, { body: { role: 'member' } });
    await h.req(owner, 'POST', `/v1/groups/${g.groupId}/members/${target.publicId}/kick`);
    assert.deepEqual((await inbox(target)).map((x: { kind: string; data: Record<string, unknown> }) => [x.kind, x.data.role ?? x.data.reason ?? null]), [
      ['groupRemoved', 'kicked'],
      ['groupRoleChanged', 'member'],
      ['groupRoleChanged', 'admin'],
      ['groupRequestAccepted', null],
    ]);
    // A player who muted the actor gets no entry; the disband reaches the others.
    await h.req(asker, 'POST', `/v1/mutes/${owner.publicId}`);
    await h.req(invitee, 'POST', `/v1/me/group-invites/${inv.inviteId}/accept`);
    assert.equal((await h.req(owner, 'DELETE', `/v1/groups/${g.groupId}`)).status, 204);
    assert.deepEqual((await inbox(invitee))[0], { kind: 'groupDisbanded', actor: owner.publicId, data: { groupId: g.groupId, name: g.name } });
    assert.equal((await inbox(asker)).length, 1);
    assert.deepEqual(await inbox(owner), []);
  });

  it('group chat: members write and read, blocks and mutes apply per reader, guests as the game says, reports keep it', async () => {
    const game = h.registry.addGame('isolated', ['group_chat']);
    const [owner, reader, muter, blocked, outsider] = await h.users('COwner', 'CReader', 'CMuter', 'CBlocked', 'COutsider');
    const guest = await h.user('CGuest', { guest: true });
    const g = await create(owner, { joinPolicy: 'open' }, game);
    for (const u of [reader, muter, blocked, guest]) assert.equal((await join(u, g.groupId, game)).status, 200);
    await h.req(muter, 'POST', `/v1/mutes/${owner.publicId}`);
    await h.req(owner, 'POST', `/v1/blocks/${blocked.publicId}`);
    const recs = await Promise.all([reader, muter, blocked, owner].map((u) => h.events(u)));
    const url = `/v1/chat/group/${g.groupId}/messages`;
    const sent = await h.req(owner, 'POST', url, { body: { body: 'Raid at nine' }, game });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    assert.equal(sent.body.channel, 'group');
    const [heard] = await recs[0].next('chatMessage');
    assert.deepEqual(heard.data, sent.body);
    assert.equal((await recs[3].next('chatMessage')).length, 1, 'the author gets their own copy');
    await recs[1].expectTypes([]);
    await recs[2].expectTypes([]);
    // History: members only; the blocked member does not see the blocker's messages.
    assert.deepEqual((await h.req(muter, 'GET', url, { game })).body.messages.map((m: { body: string }) => m.body), ['Raid at nine']);
    assert.deepEqual((await h.req(blocked, 'GET', url, { game })).body.messages, []);
    assertError(await h.req(outsider, 'GET', url, { game }), 404, 'channel_not_found');
    assertError(await h.req(outsider, 'POST', url, { body: { body: 'let me in' }, game }), 404, 'channel_not_found');
    const refused = await h.req(guest, 'POST', url, { body: { body: 'hi' }, game });
    assertError(refused, 403, 'guest_restricted');
    assert.equal(refused.body.feature, 'group_chat');
    for (const body of [{ body: '' }, { body: 'x'.repeat(5000) }, { text: 'hi' }]) assert.equal((await h.req(reader, 'POST', url, { body, game })).status, 400);
    // A report naming the group keeps the reported member's last messages there.
    assert.equal((await h.req(reader, 'POST', '/v1/reports', { body: { targetPublicId: owner.publicId, reason: 'harassment', context: `group:${g.groupId}` }, game })).status, 202);
    const mod = await h.user('CMod', { roles: ['moderator'] });
    const report = (await h.req(mod, 'GET', '/v1/moderation/reports?limit=100')).body.reports.find((r: { context: string | null }) => r.context === `group:${g.groupId}`);
    assert.deepEqual(report.snapshot.channel.messages.map((m: { body: string }) => m.body), ['Raid at nine']);
    assert.equal(report.snapshot.group.name, g.name);
    // The export lists the messages the player sent (only theirs), with the channel.
    const mine = (await h.req(owner, 'GET', '/v1/me/export')).body.messages;
    assert.deepEqual(
      mine.map((m: { channel: string; channelId: string; body: string }) => [m.channel, m.channelId, m.body]),
      [['group', g.groupId, 'Raid at nine']],
    );
    assert.deepEqual((await h.req(reader, 'GET', '/v1/me/export')).body.messages, []);
  });
});
