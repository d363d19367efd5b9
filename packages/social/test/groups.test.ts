// Groups (docs/social.md, "Groups"): create and find, joining by policy, requests, invites, roles and ranks,
// kicks and bans, ownership, disband, events, export and erasure, and bad input on every route.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertError } from '@platform/kit/testing';
import { useHarness, type Game, type TestUser } from './support.js';

describe('groups', () => {
  let clock = Date.now();
  const h = useHarness(
    { SOCIAL_GROUPS_PER_PLAYER: '3', SOCIAL_GROUPS_CREATED_PER_DAY: '3', SOCIAL_GROUPS_MAX_MEMBER_LIMIT: '50' },
    { now: () => new Date(clock), checkAccountIds: true },
  );
  let n = 0;
  /** A unique group name (names are unique per game across the suite's groups). */
  const uniqueName = (base = 'Guild') => `${base} ${++n} ${randomUUID().slice(0, 6)}`;
  const create = async (u: TestUser, body: Record<string, unknown> = {}, game?: Game) => {
    const r = await h.req(u, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'GLD', ...body }, ...(game ? { game } : {}) });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const join = (u: TestUser, id: string, game?: Game) => h.req(u, 'POST', `/v1/groups/${id}/join`, game ? { game } : {});
  const members = async (u: TestUser, id: string) => (await h.req(u, 'GET', `/v1/groups/${id}/members`)).body.members.map((m: { publicId: string; role: string }) => `${m.publicId}:${m.role}`);

  it('create: defaults, the caller owns it, names unique per game case-insensitively; read by id', async () => {
    const game = h.registry.addGame('isolated');
    const [a, b] = await h.users('Founder', 'Other');
    const name = uniqueName('Knights');
    const r = await h.req(a, 'POST', '/v1/groups', { body: { name: `  ${name}  `, tag: 'KN1', description: ' We ride ', language: 'pt-BR', avatarUrl: 'https://cdn.example/k.png', metadata: { region: 'eu' } }, game });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const g = r.body;
    assert.equal(g.name, name);
    assert.equal(g.description, 'We ride');
    assert.equal(g.joinPolicy, 'request');
    assert.equal(g.memberLimit, 100 > 50 ? 50 : 100);
    assert.equal(g.memberCount, 1);
    assert.equal(g.myRole, 'owner');
    assert.deepEqual(g.metadata, { region: 'eu' });
    assert.deepEqual(Object.keys(g).sort(), ['avatarUrl', 'createdAt', 'description', 'groupId', 'joinPolicy', 'language', 'memberCount', 'memberLimit', 'metadata', 'myRole', 'name', 'tag']);
    assertError(await h.req(b, 'POST', '/v1/groups', { body: { name: name.toUpperCase(), tag: 'XX' }, game }), 409, 'group_name_taken');
    // Another game (and no game) may use the name.
    assert.equal((await h.req(b, 'POST', '/v1/groups', { body: { name, tag: 'XX' } })).status, 201);
    const read = await h.req(b, 'GET', `/v1/groups/${g.groupId}`, { game });
    assert.equal(read.status, 200);
    assert.equal(read.body.myRole, undefined);
    assert.equal((await h.req(a, 'GET', `/v1/groups/${g.groupId}`, { game })).body.myRole, 'owner');
  });

  it('create: bad input answers a stable 4xx and makes nothing', async () => {
    const a = await h.user('Picky');
    const bad: [Record<string, unknown>, number, string][] = [
      [{ name: 'ab', tag: 'AB' }, 400, 'invalid_group_name'],
      [{ name: 'x'.repeat(33), tag: 'AB' }, 400, 'invalid_group_name'],
      // Control and format characters are normalised away before (the kit's text input), so "ab\u0007" is "ab" after trimming.
      [{ name: 'ab\u0007', tag: 'AB' }, 400, 'invalid_group_name'],
      [{ name: uniqueName(), tag: 'A' }, 400, 'invalid_group_tag'],
      [{ name: uniqueName(), tag: 'AB-C' }, 400, 'invalid_group_tag'],
      [{ name: uniqueName(), tag: 'ABCDEF' }, 400, 'invalid_group_tag'],
      [{ name: uniqueName(), tag: 'AB', language: 'english!' }, 400, 'invalid_language'],
      [{ name: uniqueName(), tag: 'AB', avatarUrl: 'http://cdn.example/a.png' }, 400, 'invalid_avatar_url'],
      [{ name: uniqueName(), tag: 'AB', metadata: { x: 'y'.repeat(2100) } }, 400, 'metadata_too_large'],
      [{ name: uniqueName(), tag: 'AB', memberLimit: 1 }, 400, 'invalid_member_limit'],
      [{ name: uniqueName(), tag: 'AB', memberLimit: 51 }, 400, 'invalid_member_limit'],
      [{ name: uniqueName(), tag: 'AB', color: 'red' }, 400, 'validation_failed'],
      [{ name: 42, tag: 'AB' }, 400, 'validation_failed'],
      [{ tag: 'AB' }, 400, 'validation_failed'],
      [{ name: uniqueName(), tag: 'AB', joinPolicy: 'secret' }, 400, 'validation_failed'],
      [{ name: uniqueName(), tag: 'AB', memberLimit: '10' }, 400, 'validation_failed'],
      [{ name: `nul\u0000name`, tag: 'AB' }, 400, 'invalid_character'],
    ];
    for (const [body, status, code] of bad) assertError(await h.req(a, 'POST', '/v1/groups', { body }), status, code);
    assertError(await h.req(a, 'POST', '/v1/groups', { raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    assertError(await h.req(a, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'AB', description: 'x'.repeat(2_000_000) } }), 413, 'payload_too_large');
    assert.deepEqual((await h.req(a, 'GET', '/v1/me/groups')).body.groups, []);
    assertError(await h.req(null, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'AB' } }), 401, 'unauthorized');
  });

  it('guests are refused creation by default; creations per day and groups per player are bounded', async () => {
    const guest = await h.user('Guesty', { guest: true });
    const refused = await h.req(guest, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'GU' } });
    assertError(refused, 403, 'guest_restricted');
    assert.equal(refused.body.feature, 'group_create');
    const a = await h.user('Busy');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create(a, { joinPolicy: 'open' })).groupId);
    // Three groups of three allowed: the per-player bound speaks first.
    assertError(await h.req(a, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'AB' } }), 409, 'group_limit_reached');
    const b = await h.user('Joiner');
    for (const id of ids) assert.equal((await join(b, id)).status, 200);
    const g4 = await create(a === b ? a : await h.user('Fourth'), { joinPolicy: 'open' });
    assertError(await join(b, g4.groupId), 409, 'group_limit_reached');
    // The day's creations: a player who left their groups still made three today.
    assert.equal((await h.req(b, 'POST', `/v1/groups/${ids[0]}/leave`)).status, 200);
    await h.req(a, 'POST', `/v1/groups/${ids[0]}/leave`);
    const day = await h.req(a, 'POST', '/v1/groups', { body: { name: uniqueName(), tag: 'AB' } });
    assertError(day, 429, 'rate_limited');
  });

  it('find: name prefix, tag, language, open only, keyset pages; other games are not listed', async () => {
    const game = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const a = await h.user('Lister');
    const prefix = `zq${randomUUID().slice(0, 5)}`;
    const made = [];
    for (const [suffix, policy, language] of [['alpha', 'open', 'en'], ['beta', 'request', 'de'], ['gamma', 'open', 'en']] as const) {
      const u = await h.user(`Maker ${suffix}`);
      made.push(await create(u, { name: `${prefix} ${suffix}`, tag: suffix.slice(0, 3).toUpperCase(), joinPolicy: policy, language }, game));
    }
    await create(await h.user('Elsewhere'), { name: `${prefix} delta`, tag: 'DEL' }, other);
    const list = async (q: string) => (await h.req(a, 'GET', `/v1/groups?${q}`, { game })).body;
    assert.deepEqual((await list(`prefix=${prefix.toUpperCase()}`)).groups.map((g: { name: string }) => g.name), [`${prefix} alpha`, `${prefix} beta`, `${prefix} gamma`]);
    assert.deepEqual((await list(`prefix=${prefix}&open=true`)).groups.map((g: { tag: string }) => g.tag), ['ALP', 'GAM']);
    assert.deepEqual((await list(`prefix=${prefix}&language=de`)).groups.map((g: { tag: string }) => g.tag), ['BET']);
    assert.deepEqual((await list(`tag=bet`)).groups.map((g: { groupId: string }) => g.groupId), [made[1].groupId]);
    const p1 = await list(`prefix=${prefix}&limit=2`);
    assert.equal(p1.groups.length, 2);
    assert.ok(p1.nextCursor);
    const p2 = await list(`prefix=${prefix}&limit=2&cursor=${encodeURIComponent(p1.nextCursor)}`);
    assert.deepEqual(p2.groups.map((g: { tag: string }) => g.tag), ['GAM']);
    assert.equal(p2.nextCursor, null);
    // A cursor is bound to its game: another game's list refuses it, as a tampered one.
    assertError(await h.req(a, 'GET', `/v1/groups?prefix=${prefix}&cursor=${encodeURIComponent(p1.nextCursor)}`, { game: other }), 400, 'invalid_cursor');
    assertError(await h.req(a, 'GET', `/v1/groups?cursor=${'A'.repeat(40)}`, { game }), 400, 'invalid_cursor');
    for (const q of ['limit=0', 'limit=101', 'open=maybe', 'colour=red', `prefix=${'x'.repeat(33)}`]) assertError(await h.req(a, 'GET', `/v1/groups?${q}`, { game }), 400, 'validation_failed');
  });

  it('other games: 404 unless the caller’s game sees others in full; changes only from the group’s game', async () => {
    const home = h.registry.addGame('isolated');
    const isolated = h.registry.addGame('isolated');
    const full = h.registry.addGame('full');
    const [owner, visitor] = await h.users('Home', 'Visitor');
    const g = await create(owner, { joinPolicy: 'open' }, home);
    assert.equal((await h.req(visitor, 'GET', '/v1/groups/%2e%2e', { game: isolated })).status, 404);
    assertError(await h.req(visitor, 'GET', '/v1/groups/%00', { game: isolated }), 400, 'invalid_character');
    for (const id of [g.groupId, 'not-a-uuid', randomUUID(), '-'.repeat(36)]) assertError(await h.req(visitor, 'GET', `/v1/groups/${id}`, { game: isolated }), 404, 'group_not_found');
    assert.equal((await h.req(visitor, 'GET', `/v1/groups/${g.groupId}`, { game: full })).status, 200);
    assertError(await join(visitor, g.groupId, full), 404, 'group_not_found');
    assertError(await join(visitor, g.groupId), 404, 'group_not_found');
    assert.equal((await join(visitor, g.groupId, home)).body.state, 'joined');
    assert.deepEqual((await h.req(visitor, 'GET', '/v1/me/groups', { game: isolated })).body.groups, []);
    assert.deepEqual((await h.req(visitor, 'GET', '/v1/me/groups', { game: home })).body.groups.map((x: { groupId: string; myRole: string }) => [x.groupId, x.myRole]), [[g.groupId, 'member']]);
  });

  it('joining by policy: open at once, request through a decider, invite only by invite; events', async () => {
    const [owner, admin, member, asker, stranger] = await h.users('Owner', 'Admin', 'Member', 'Asker', 'Stranger');
    const open = await create(owner, { joinPolicy: 'open' });
    const recOwner = await h.events(owner);
    const joined = await join(member, open.groupId);
    assert.deepEqual([joined.status, joined.body.state, joined.body.group.myRole, joined.body.group.memberCount], [200, 'joined', 'member', 2]);
    const [ev] = await recOwner.next('groupMemberJoined');
    assert.deepEqual(ev.data, { groupId: open.groupId, member: { ...(ev.data as { member: object }).member, publicId: member.publicId, role: 'member' } });
    assertError(await join(member, open.groupId), 409, 'already_group_member');

    const closed = await create(owner, { joinPolicy: 'request' });
    assert.equal((await join(admin, closed.groupId)).body.state, 'requested');
    assert.equal((await h.req(owner, 'POST', `/v1/groups/${closed.groupId}/requests/${admin.publicId}/accept`)).status, 200);
    assert.equal((await h.req(owner, 'PUT', `/v1/groups/${closed.groupId}/members/${admin.publicId}/role`, { body: { role: 'admin' } })).body.role, 'admin');
    await recOwner.reset();
    const recAdmin = await h.events(admin);
    const asked = await join(asker, closed.groupId);
    assert.deepEqual([asked.status, asked.body.state, asked.body.group.myRole], [200, 'requested', undefined]);
    for (const rec of [recOwner, recAdmin]) assert.equal((await rec.next('groupJoinRequested'))[0].data && ((await rec.next('groupJoinRequested'))[0].data as { publicId: string }).publicId, asker.publicId);
    assertError(await join(asker, closed.groupId), 409, 'group_request_exists');
    const reqs = await h.req(admin, 'GET', `/v1/groups/${closed.groupId}/requests`);
    assert.deepEqual(reqs.body.requests.map((r: { publicId: string }) => r.publicId), [asker.publicId]);
    // A member without accept_requests neither lists nor decides; an outsider sees no group.
    assert.equal((await join(member, closed.groupId)).body.state, 'requested');
    await h.req(owner, 'POST', `/v1/groups/${closed.groupId}/requests/${member.publicId}/accept`);
    assertError(await h.req(member, 'GET', `/v1/groups/${closed.groupId}/requests`), 403, 'group_permission_denied');
    assertError(await h.req(member, 'POST', `/v1/groups/${closed.groupId}/requests/${asker.publicId}/accept`), 403, 'group_permission_denied');
    assertError(await h.req(stranger, 'GET', `/v1/groups/${closed.groupId}/requests`), 404, 'group_not_found');
    const recAsker = await h.events(asker);
    const accepted = await h.req(admin, 'POST', `/v1/groups/${closed.groupId}/requests/${asker.publicId}/accept`);
    assert.deepEqual([accepted.status, accepted.body.publicId, accepted.body.role], [200, asker.publicId, 'member']);
    assert.equal(((await recAsker.next('groupMemberJoined'))[0].data as { member: { publicId: string } }).member.publicId, asker.publicId);
    assertError(await h.req(admin, 'POST', `/v1/groups/${closed.groupId}/requests/${asker.publicId}/accept`), 404, 'group_request_not_found');
    // Deny, and withdraw.
    assert.equal((await join(stranger, closed.groupId)).body.state, 'requested');
    assert.equal((await h.req(owner, 'POST', `/v1/groups/${closed.groupId}/requests/${stranger.publicId}/deny`)).status, 204);
    assertError(await h.req(owner, 'POST', `/v1/groups/${closed.groupId}/requests/${stranger.publicId}/deny`), 404, 'group_request_not_found');
    assert.equal((await join(stranger, closed.groupId)).body.state, 'requested');
    assert.deepEqual((await h.req(stranger, 'POST', `/v1/groups/${closed.groupId}/leave`)).body, { state: 'withdrawn' });
    assertError(await h.req(stranger, 'POST', `/v1/groups/${closed.groupId}/leave`), 404, 'group_not_found');

    const inviteOnly = await create(owner, { joinPolicy: 'invite' });
    assertError(await join(stranger, inviteOnly.groupId), 403, 'group_join_denied');
  });

  it('blocks: the owner’s block closes the group; a blocked player’s request is hidden from the blocker', async () => {
    const [owner, admin, pest, blocker] = await h.users('BOwner', 'BAdmin', 'Pest', 'Blocker');
    const g = await create(owner, { joinPolicy: 'request' });
    await h.req(owner, 'POST', `/v1/blocks/${blocker.publicId}`);
    assertError(await join(blocker, g.groupId), 403, 'group_join_denied');
    assert.equal((await join(admin, g.groupId)).body.state, 'requested');
    await h.req(owner, 'POST', `/v1/groups/${g.groupId}/requests/${admin.publicId}/accept`);
    await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/members/${admin.publicId}/role`, { body: { role: 'admin' } });
    await h.req(admin, 'POST', `/v1/blocks/${pest.publicId}`);
    assert.equal((await join(pest, g.groupId)).body.state, 'requested');
    assert.deepEqual((await h.req(admin, 'GET', `/v1/groups/${g.groupId}/requests`)).body.requests, []);
    assertError(await h.req(admin, 'POST', `/v1/groups/${g.groupId}/requests/${pest.publicId}/accept`), 404, 'group_request_not_found');
    assert.deepEqual((await h.req(owner, 'GET', `/v1/groups/${g.groupId}/requests`)).body.requests.map((r: { publicId: string }) => r.publicId), [pest.publicId]);
    // Members who blocked the reader are left out of the reader's member list.
    await h.req(owner, 'POST', `/v1/groups/${g.groupId}/requests/${pest.publicId}/accept`);
    assert.deepEqual(await members(pest, g.groupId), [`${owner.publicId}:owner`, `${pest.publicId}:member`]);
    assert.equal((await members(owner, g.groupId)).length, 3);
  });

  it('the member limit, kept under concurrent joins', async () => {
    const owner = await h.user('Small');
    const g = await create(owner, { joinPolicy: 'open', memberLimit: 3 });
    const joiners = await h.users('J1', 'J2', 'J3', 'J4');
    const rs = await Promise.all(joiners.map((u) => join(u, g.groupId)));
    assert.deepEqual(rs.map((r) => r.status).sort(), [200, 200, 409, 409]);
    for (const r of rs.filter((x) => x.status === 409)) assert.equal(r.body.code, 'group_full');
    assert.equal((await h.req(owner, 'GET', `/v1/groups/${g.groupId}`)).body.memberCount, 3);
    assertError(await h.req(owner, 'PATCH', `/v1/groups/${g.groupId}`, { body: { memberLimit: 2 } }), 400, 'invalid_member_limit');
  });

  it('ranks: nobody acts on an equal or higher rank; roles a group defines; ownership; the last owner', async () => {
    const [owner, a1, a2, m1, m2] = await h.users('ROwner', 'RAdmin1', 'RAdmin2', 'RMember1', 'RMember2');
    const g = await create(owner, { joinPolicy: 'open' });
    for (const u of [a1, a2, m1, m2]) await join(u, g.groupId);
    const role = (u: TestUser, r: string, by = owner) => h.req(by, 'PUT', `/v1/groups/${g.groupId}/members/${u.publicId}/role`, { body: { role: r } });
    assert.equal((await role(a1, 'admin')).status, 200);
    assert.equal((await role(a2, 'admin')).status, 200);
    assertError(await role(m1, 'admin', a1), 403, 'rank_too_low');
    assertError(await role(a2, 'member', a1), 403, 'rank_too_low');
    assertError(await role(m1, 'owner'), 400, 'invalid_role');
    assertError(await role(m1, 'captain'), 404, 'role_not_found');
    assertError(await role(m2, 'admin', m1), 403, 'group_permission_denied');
    assertError(await h.req(a1, 'POST', `/v1/groups/${g.groupId}/members/${owner.publicId}/kick`), 403, 'rank_too_low');
    assertError(await h.req(a1, 'POST', `/v1/groups/${g.groupId}/members/${a2.publicId}/kick`), 403, 'rank_too_low');
    assertError(await h.req(a1, 'POST', `/v1/groups/${g.groupId}/members/${a1.publicId}/kick`), 403, 'rank_too_low');
    assertError(await h.req(m1, 'POST', `/v1/groups/${g.groupId}/members/${m2.publicId}/kick`), 403, 'group_permission_denied');
    assertError(await h.req(a1, 'POST', `/v1/groups/${g.groupId}/members/${randomUUID()}/kick`), 404, 'group_member_not_found');

    // A defined role: rank 1-49, permissions the definer holds, at most ten.
    const put = (name: string, body: unknown, by = owner) => h.req(by, 'PUT', `/v1/groups/${g.groupId}/roles/${name}`, { body });
    const officer = await put('officer', { rank: 20, permissions: ['kick', 'invite'] });
    assert.deepEqual(officer.body, { name: 'officer', rank: 20, permissions: ['kick', 'invite'], builtIn: false });
    for (const [name, body] of [['admin', { rank: 10, permissions: [] }], ['Bad Name', { rank: 10, permissions: [] }], ['x', { rank: 10, permissions: [] }], ['boss', { rank: 50, permissions: [] }], ['low', { rank: 0, permissions: [] }]] as const) {
      assertError(await put(encodeURIComponent(name), body), 400, 'invalid_role');
    }
    assertError(await put('rogue', { rank: 10, permissions: ['fly'] }), 400, 'validation_failed');
    assertError(await put('rogue', { rank: 10, permissions: [], extra: 1 }), 400, 'validation_failed');
    assert.equal((await role(m1, 'officer', a1)).status, 200);
    assert.equal((await h.req(m1, 'POST', `/v1/groups/${g.groupId}/members/${m2.publicId}/kick`)).status, 204);
    assertError(await h.req(m1, 'POST', `/v1/groups/${g.groupId}/members/${a2.publicId}/kick`), 403, 'rank_too_low');
    assertError(await put('spy', { rank: 10, permissions: ['ban'] }, m1), 403, 'group_permission_denied');
    const roles = (await h.req(m1, 'GET', `/v1/groups/${g.groupId}/roles`)).body.roles.map((r: { name: string; rank: number }) => `${r.name}:${r.rank}`);
    assert.deepEqual(roles, ['owner:100', 'admin:50', 'officer:20', 'member:0']);
    for (let i = 0; i < 9; i++) assert.equal((await put(`r${i}`, { rank: 5, permissions: [] })).status, 200);
    assertError(await put('r9', { rank: 5, permissions: [] }), 409, 'too_many_roles');
    assert.equal((await h.req(owner, 'DELETE', `/v1/groups/${g.groupId}/roles/officer`)).status, 204);
    assert.ok((await members(owner, g.groupId)).includes(`${m1.publicId}:member`));
    assertError(await h.req(owner, 'DELETE', `/v1/groups/${g.groupId}/roles/officer`), 404, 'role_not_found');

    // Ownership: the owner leaves only after handing over; the new owner's old owner is an admin.
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/leave`), 409, 'owner_must_transfer');
    assertError(await h.req(a1, 'POST', `/v1/groups/${g.groupId}/owner`, { body: { publicId: a2.publicId } }), 403, 'group_permission_denied');
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/owner`, { body: { publicId: m2.publicId } }), 404, 'group_member_not_found');
    const recA2 = await h.events(a2);
    const handed = await h.req(owner, 'POST', `/v1/groups/${g.groupId}/owner`, { body: { publicId: a1.publicId } });
    assert.deepEqual([handed.status, handed.body.myRole], [200, 'admin']);
    const changes = (await recA2.next('groupRoleChanged', 2)).map((e) => `${(e.data as { publicId: string }).publicId}:${(e.data as { role: string }).role}`);
    assert.deepEqual(changes, [`${a1.publicId}:owner`, `${owner.publicId}:admin`]);
    assert.equal((await h.req(owner, 'POST', `/v1/groups/${g.groupId}/leave`)).body.state, 'left');
  });

  it('kicks and bans: the removed player hears it; a ban keeps them out until lifted', async () => {
    const [owner, m1, outsider] = await h.users('KOwner', 'KMember', 'KOutsider');
    const g = await create(owner, { joinPolicy: 'open' });
    await join(m1, g.groupId);
    const rec = await h.events(m1);
    assert.equal((await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/bans/${m1.publicId}`)).status, 204);
    const [left] = await rec.next('groupMemberLeft');
    assert.deepEqual(left.data, { groupId: g.groupId, publicId: m1.publicId, reason: 'banned' });
    assertError(await join(m1, g.groupId), 403, 'group_banned');
    // A player never in the group may be banned too (before they join).
    assert.equal((await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/bans/${outsider.publicId}`)).status, 204);
    assertError(await join(outsider, g.groupId), 403, 'group_banned');
    assertError(await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/bans/${randomUUID()}`), 404, 'user_not_found');
    assertError(await h.req(m1, 'DELETE', `/v1/groups/${g.groupId}/bans/${m1.publicId}`), 404, 'group_not_found');
    assert.equal((await h.req(owner, 'DELETE', `/v1/groups/${g.groupId}/bans/${m1.publicId}`)).status, 204);
    assertError(await h.req(owner, 'DELETE', `/v1/groups/${g.groupId}/bans/${m1.publicId}`), 404, 'ban_not_found');
    assert.equal((await join(m1, g.groupId)).body.state, 'joined');
    await rec.reset();
    assert.equal((await h.req(owner, 'POST', `/v1/groups/${g.groupId}/members/${m1.publicId}/kick`)).status, 204);
    assert.equal(((await rec.next('groupMemberLeft'))[0].data as { reason: string }).reason, 'kicked');
    assert.equal((await join(m1, g.groupId)).body.state, 'joined');
  });

  it('invites: sent by a permitted member, accepted whatever the policy, expiring; blocks and others’ invites', async () => {
    const [owner, friendly, invitee, blocker, nosy] = await h.users('IOwner', 'IMember', 'Invitee', 'IBlocker', 'Nosy');
    const g = await create(owner, { joinPolicy: 'invite' });
    const rec = await h.events(invitee);
    const sent = await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: invitee.publicId } });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    assert.deepEqual(Object.keys(sent.body).sort(), ['expiresAt', 'fromPublicId', 'groupId', 'groupName', 'groupTag', 'inviteId']);
    assert.equal(((await rec.next('groupInviteReceived'))[0].data as { inviteId: string }).inviteId, sent.body.inviteId);
    assert.deepEqual((await h.req(invitee, 'GET', '/v1/me/group-invites')).body.invites.map((i: { inviteId: string }) => i.inviteId), [sent.body.inviteId]);
    assertError(await h.req(nosy, 'POST', `/v1/me/group-invites/${sent.body.inviteId}/accept`), 404, 'group_invite_not_found');
    assertError(await h.req(nosy, 'POST', `/v1/me/group-invites/${sent.body.inviteId}/decline`), 404, 'group_invite_not_found');
    const accepted = await h.req(invitee, 'POST', `/v1/me/group-invites/${sent.body.inviteId}/accept`);
    assert.deepEqual([accepted.status, accepted.body.state, accepted.body.group.myRole], [200, 'joined', 'member']);
    assertError(await h.req(invitee, 'POST', `/v1/me/group-invites/${sent.body.inviteId}/accept`), 404, 'group_invite_not_found');
    // A member without the invite permission; the invitee's own errors.
    await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: friendly.publicId } });
    const fi = (await h.req(friendly, 'GET', '/v1/me/group-invites')).body.invites[0];
    await h.req(friendly, 'POST', `/v1/me/group-invites/${fi.inviteId}/accept`);
    assertError(await h.req(friendly, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: nosy.publicId } }), 403, 'group_permission_denied');
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: invitee.publicId } }), 409, 'already_group_member');
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: owner.publicId } }), 400, 'cannot_invite_self');
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: {} }), 400, 'target_required');
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: invitee.publicId, toHandle: invitee.fullHandle } }), 400, 'target_required');
    // Someone who blocked the inviter is not invited by them (and looks like no one).
    await h.req(blocker, 'POST', `/v1/blocks/${owner.publicId}`);
    assertError(await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: blocker.publicId } }), 404, 'user_not_found');
    // Decline, and expiry.
    const toNosy = await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toHandle: nosy.fullHandle } });
    assert.equal((await h.req(nosy, 'POST', `/v1/me/group-invites/${toNosy.body.inviteId}/decline`)).status, 204);
    const again = await h.req(owner, 'POST', `/v1/groups/${g.groupId}/invites`, { body: { toPublicId: nosy.publicId } });
    clock += 8 * 86_400_000;
    try {
      assert.deepEqual((await h.req(nosy, 'GET', '/v1/me/group-invites')).body.invites, []);
      assertError(await h.req(nosy, 'POST', `/v1/me/group-invites/${again.body.inviteId}/accept`), 404, 'group_invite_not_found');
    } finally {
      clock -= 8 * 86_400_000;
    }
    for (const id of ['not-a-uuid', randomUUID()]) assertError(await h.req(nosy, 'POST', `/v1/me/group-invites/${id}/accept`), 404, 'group_invite_not_found');
  });

  it('edit and disband: permission edit, the owner alone disbands, every member hears groupDisbanded', async () => {
    const [owner, admin, member] = await h.users('EOwner', 'EAdmin', 'EMember');
    const g = await create(owner, { joinPolicy: 'open' });
    await join(admin, g.groupId);
    await join(member, g.groupId);
    await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/members/${admin.publicId}/role`, { body: { role: 'admin' } });
    const edited = await h.req(admin, 'PATCH', `/v1/groups/${g.groupId}`, { body: { description: 'New rules', joinPolicy: 'request', language: null, metadata: null } });
    assert.deepEqual([edited.status, edited.body.description, edited.body.joinPolicy, edited.body.language, edited.body.metadata, edited.body.name], [200, 'New rules', 'request', null, null, g.name]);
    assertError(await h.req(member, 'PATCH', `/v1/groups/${g.groupId}`, { body: { description: 'mine now' } }), 403, 'group_permission_denied');
    assertError(await h.req(admin, 'PATCH', `/v1/groups/${g.groupId}`, { body: { tag: '!' } }), 400, 'invalid_group_tag');
    assertError(await h.req(admin, 'DELETE', `/v1/groups/${g.groupId}`), 403, 'group_permission_denied');
    const rec = await h.events(member);
    assert.equal((await h.req(owner, 'DELETE', `/v1/groups/${g.groupId}`)).status, 204);
    assert.deepEqual((await rec.next('groupDisbanded'))[0].data, { groupId: g.groupId, name: g.name });
    assertError(await h.req(owner, 'GET', `/v1/groups/${g.groupId}`), 404, 'group_not_found');
    // The last member leaving ends the group.
    const solo = await create(owner);
    assert.equal((await h.req(owner, 'POST', `/v1/groups/${solo.groupId}/leave`)).body.state, 'left');
    assertError(await h.req(owner, 'GET', `/v1/groups/${solo.groupId}`), 404, 'group_not_found');
  });

  it('members: keyset pages in joining order with roles', async () => {
    const owner = await h.user('POwner');
    const g = await create(owner, { joinPolicy: 'open' });
    const joiners = await h.users('P1', 'P2', 'P3');
    for (const u of joiners) await join(u, g.groupId);
    const p1 = (await h.req(owner, 'GET', `/v1/groups/${g.groupId}/members?limit=2`)).body;
    assert.deepEqual(p1.members.map((m: { publicId: string }) => m.publicId), [owner.publicId, joiners[0].publicId]);
    assert.deepEqual(Object.keys(p1.members[0]).sort(), ['displayName', 'fullHandle', 'joinedAt', 'online', 'publicId', 'role']);
    const p2 = (await h.req(owner, 'GET', `/v1/groups/${g.groupId}/members?limit=2&cursor=${encodeURIComponent(p1.nextCursor)}`)).body;
    assert.deepEqual(p2.members.map((m: { publicId: string }) => m.publicId), [joiners[1].publicId, joiners[2].publicId]);
    assert.equal(p2.nextCursor, null);
    // A cursor is bound to its group.
    const other = await create(joiners[0], { joinPolicy: 'open' });
    assertError(await h.req(owner, 'GET', `/v1/groups/${other.groupId}/members?cursor=${encodeURIComponent(p1.nextCursor)}`), 400, 'invalid_cursor');
    assertError(await h.req(owner, 'GET', `/v1/groups/${g.groupId}/members?limit=500`), 400, 'validation_failed');
  });

  it('export lists the player’s groups; erasure hands an owned group to the next in rank', async () => {
    const [owner, admin, member] = await h.users('XOwner', 'XAdmin', 'XMember');
    const g = await create(owner, { joinPolicy: 'open' });
    await join(member, g.groupId);
    await join(admin, g.groupId);
    await h.req(owner, 'PUT', `/v1/groups/${g.groupId}/members/${admin.publicId}/role`, { body: { role: 'admin' } });
    const exported = (await h.req(owner, 'GET', '/v1/me/export')).body.groups;
    assert.deepEqual(exported.map((x: { groupId: string; role: string; name: string }) => [x.groupId, x.role, x.name]), [[g.groupId, 'owner', g.name]]);
    const rec = await h.events(member);
    assert.equal((await h.req(owner, 'DELETE', '/v1/me')).status, 200);
    assert.deepEqual(await members(member, g.groupId), [`${member.publicId}:member`, `${admin.publicId}:owner`]);
    assert.equal(((await rec.next('groupMemberLeft'))[0].data as { reason: string }).reason, 'deleted');
    assert.equal((await h.req(member, 'GET', `/v1/groups/${g.groupId}`)).body.memberCount, 2);
    // An owner alone: the group ends with them.
    const [solo] = await h.users('XSolo');
    const own = await create(solo);
    await h.req(solo, 'DELETE', '/v1/me');
    assertError(await h.req(member, 'GET', `/v1/groups/${own.groupId}`), 404, 'group_not_found');
  });
});
