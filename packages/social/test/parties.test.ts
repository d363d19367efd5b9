// Parties (gating, size, leadership, disband) and invites (party and game), with their events.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { befriend, useHarness, type TestUser } from './support.js';
import { assertError } from '@platform/kit/testing';

describe('parties and invites', () => {
  const h = useHarness({ SOCIAL__INVITES__TTLSECONDS: '60' }, { now: () => new Date(clock), checkAccountIds: true });
  let clock = Date.now();

  const partyEvents = (partyId: string) => h.partyEvents(partyId);

  /** A Public party of `lead` that `members` joined, in this order. */
  const publicParty = async (lead: TestUser, ...members: TestUser[]) => {
    const p = (await h.req(lead, 'POST', '/v1/parties', { body: { visibility: 'Public' } })).body;
    for (const m of members) await h.req(m, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} });
    return p;
  };

  it('create: defaults (maxSize 4, Private), bounds, one party at a time; GET members only', async () => {
    const a = await h.user('Lead');
    const r = await h.req(a, 'POST', '/v1/parties', { body: { join: { lobbyId: 'lob-1', bag: { mode: 'duo' } } } });
    assert.equal(r.status, 201);
    const p = r.body;
    assert.match(p.partyId, /^[0-9a-f-]{36}$/);
    assert.equal(p.leaderPublicId, a.publicId);
    assert.equal(p.maxSize, 4);
    assert.equal(p.visibility, 'Private');
    assert.deepEqual(p.join, { lobbyId: 'lob-1', bag: { mode: 'duo' } });
    assert.equal(p.members.length, 1);
    assert.deepEqual(Object.keys(p.members[0]).sort(), ['displayName', 'fullHandle', 'isLeader', 'joinedAt', 'publicId']);
    assert.equal(p.members[0].isLeader, true);
    assertError(await h.req(a, 'POST', '/v1/parties', { body: {} }), 409, 'already_in_party');
    const b = await h.user('Out');
    for (const body of [{ maxSize: 1 }, { maxSize: 17 }]) {
      const x = await h.req(b, 'POST', '/v1/parties', { body });
      assertError(x, 400, 'invalid_max_size');
    }
    for (const body of [{ maxSize: '4' }, { visibility: 'Secret' }, { color: 'red' }, { join: { bag: 'x' } }]) {
      const x = await h.req(b, 'POST', '/v1/parties', { body });
      assert.equal(x.status, 400, JSON.stringify(body));
      assert.equal(x.body.code, 'validation_failed');
    }
    const big = await h.req(b, 'POST', '/v1/parties', { body: { join: { bag: { x: 'y'.repeat(2100) } } } });
    assert.equal(big.body.code, 'join_bag_too_large');
    assert.equal((await h.req(a, 'GET', `/v1/parties/${p.partyId}`)).status, 200);
    for (const id of [p.partyId, 'not-a-uuid', '00000000-0000-0000-0000-000000000000', '-'.repeat(36), 'g'.repeat(36)]) {
      assertError(await h.req(b, 'GET', `/v1/parties/${id}`), 404, 'party_not_found');
    }
  });

  it('gating: Private needs an invite, FriendsOnly friends of a member, Public anyone; denial carries no metadata', async () => {
    const [lead, friend, stranger] = await h.users('Gate', 'Friend', 'Stranger');
    await befriend(h, lead, friend);
    const p = (await h.req(lead, 'POST', '/v1/parties', { body: { maxSize: 3, join: { lobbyId: 'secret-lobby' } } })).body;
    for (const u of [friend, stranger]) {
      const d = await h.req(u, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} });
      assertError(d, 403, 'join_denied');
      assert.ok(!JSON.stringify(d.body).includes('secret-lobby'));
    }
    await h.req(lead, 'POST', `/v1/parties/${p.partyId}/visibility`, { body: { visibility: 'FriendsOnly' } });
    assert.equal((await h.req(stranger, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} })).body.code, 'join_denied');
    const rec = await partyEvents(p.partyId);
    const j = await h.req(friend, 'POST', `/v1/parties/${p.partyId}/join`);
    assert.equal(j.status, 200);
    assert.deepEqual(j.body, { kind: 'party', partyId: p.partyId, join: { lobbyId: 'secret-lobby' } });
    const again = await h.req(friend, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} });
    assert.equal(again.body.code, 'already_in_party');
    await h.req(lead, 'POST', `/v1/parties/${p.partyId}/visibility`, { body: { visibility: 'Public' } });
    assert.equal((await h.req(stranger, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} })).status, 200);
    const late = await h.user('Late');
    assertError(await h.req(late, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} }), 409, 'party_full');
    // A block between the joiner and any member denies the join.
    await h.req(stranger, 'POST', `/v1/parties/${p.partyId}/leave`);
    await h.req(lead, 'POST', `/v1/blocks/${stranger.publicId}`);
    assert.equal((await h.req(stranger, 'POST', `/v1/parties/${p.partyId}/join`, { body: {} })).body.code, 'join_denied');
    assert.equal((await h.req(stranger, 'POST', `/v1/parties/00000000-0000-0000-0000-000000000000/join`, { body: {} })).body.code, 'party_not_found');
    const joined = await rec.next('partyMemberJoined', 2);
    assert.deepEqual(
      joined.map((e) => (e.data as any).member.publicId),
      [friend.publicId, stranger.publicId],
    );
    await rec.stop();
  });

  it('party invites: friends only, accept by joining with inviteId, states and errors', async () => {
    const [lead, guest, other] = await h.users('Host', 'Guest', 'Other');
    await befriend(h, lead, guest);
    await befriend(h, lead, other);
    const p = (await h.req(lead, 'POST', '/v1/parties', { body: { maxSize: 2 } })).body;
    const recGuest = await h.events(guest);
    const inv = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/invites`, { body: { toPublicId: guest.publicId } });
    assert.equal(inv.status, 201);
    assert.equal(inv.body.kind, 'party');
    assert.equal(inv.body.fromPublicId, lead.publicId);
    assert.equal(inv.body.toPublicId, guest.publicId);
    assert.equal(inv.body.targetId, p.partyId);
    assert.equal(inv.body.state, 'pending');
    assert.equal(Date.parse(inv.body.expiresAt), clock + 60_000);
    const [ev] = await recGuest.next('partyInviteReceived');
    assert.deepEqual(ev.data, inv.body);
    await recGuest.stop();
    assert.deepEqual((await h.req(guest, 'GET', '/v1/invites')).body.map((i: any) => i.inviteId), [inv.body.inviteId]);
    assert.deepEqual((await h.req(lead, 'GET', '/v1/invites?dir=outgoing')).body.map((i: any) => i.inviteId), [inv.body.inviteId]);
    // Errors of creating invites.
    const stranger = await h.user('NoFriend');
    const cases: [unknown, number, string][] = [
      [{ toPublicId: stranger.publicId }, 403, 'not_friends'],
      [{ toPublicId: lead.publicId }, 400, 'cannot_invite_self'],
      [{}, 400, 'target_required'],
      [{ toPublicId: 'p_none' }, 404, 'user_not_found'],
    ];
    for (const [body, status, code] of cases) {
      const x = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/invites`, { body });
      assert.equal(x.status, status, JSON.stringify(body));
      assert.equal(x.body.code, code);
    }
    assert.equal((await h.req(stranger, 'POST', `/v1/parties/${p.partyId}/invites`, { body: { toPublicId: guest.publicId } })).body.code, 'party_not_found');
    // Someone else's invite is not found; the addressee joins a Private party with it.
    assert.equal((await h.req(other, 'POST', `/v1/parties/${p.partyId}/join`, { body: { inviteId: inv.body.inviteId } })).body.code, 'invite_not_found');
    for (const bogus of ['nope', '-'.repeat(36)]) {
      assert.equal((await h.req(guest, 'POST', `/v1/parties/${p.partyId}/join`, { body: { inviteId: bogus } })).body.code, 'invite_not_found');
      assert.equal((await h.req(guest, 'POST', `/v1/invites/game/${bogus}/accept`)).body.code, 'invite_not_found');
      assert.equal((await h.req(guest, 'POST', `/v1/invites/${bogus}/decline`)).body.code, 'invite_not_found');
      assert.equal((await h.req(guest, 'DELETE', `/v1/invites/${bogus}`)).body.code, 'invite_not_found');
    }
    const j = await h.req(guest, 'POST', `/v1/parties/${p.partyId}/join`, { body: { inviteId: inv.body.inviteId } });
    assert.equal(j.status, 200);
    assert.equal(j.body.partyId, p.partyId);
    assert.equal(j.body.join, undefined);
    assertError(await h.req(guest, 'POST', `/v1/parties/${p.partyId}/join`, { body: { inviteId: inv.body.inviteId } }), 409, 'invite_not_pending');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${p.partyId}/invites`, { body: { toPublicId: guest.publicId } })).body.code, 'already_member');
    // A valid invite still cannot overfill the party.
    const inv2 = (await h.req(lead, 'POST', `/v1/parties/${p.partyId}/invites`, { body: { toPublicId: other.publicId } })).body;
    assert.equal((await h.req(other, 'POST', `/v1/parties/${p.partyId}/join`, { body: { inviteId: inv2.inviteId } })).body.code, 'party_full');
    // Expiry: 410 invite_expired once expiresAt has passed.
    clock += 61_000;
    assertError(await h.req(other, 'POST', `/v1/parties/${p.partyId}/join`, { body: { inviteId: inv2.inviteId } }), 410, 'invite_expired');
    assert.deepEqual((await h.req(other, 'GET', '/v1/invites')).body, []);
  });

  it('decline and revoke invites', async () => {
    const [a, b] = await h.friends('Inviter', 'Invitee');
    const g1 = (await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } })).body;
    const dec = await h.req(b, 'POST', `/v1/invites/${g1.inviteId}/decline`);
    assert.equal(dec.status, 200);
    assert.equal(dec.body.state, 'declined');
    assert.equal((await h.req(b, 'POST', `/v1/invites/${g1.inviteId}/decline`)).body.code, 'invite_not_pending');
    assert.equal((await h.req(b, 'POST', `/v1/invites/game/${g1.inviteId}/accept`)).body.code, 'invite_not_pending');
    assert.equal((await h.req(a, 'POST', `/v1/invites/${g1.inviteId}/decline`)).body.code, 'invite_not_found');
    const g2 = (await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } })).body;
    assert.equal((await h.req(b, 'DELETE', `/v1/invites/${g2.inviteId}`)).body.code, 'invite_not_found');
    assert.equal((await h.req(a, 'DELETE', `/v1/invites/${g2.inviteId}`)).status, 204);
    assert.equal((await h.req(a, 'DELETE', `/v1/invites/${g2.inviteId}`)).body.code, 'invite_not_pending');
    const revoked = await h.req(b, 'POST', `/v1/invites/game/${g2.inviteId}/accept`);
    assertError(revoked, 409, 'invite_not_pending');
  });

  it('game invites: 201 InviteDto, gameInviteReceived, accept returns join metadata; blocks gate both ways', async () => {
    const [a, b] = await h.friends('Gamer', 'Buddy');
    const rec = await h.events(b);
    const r = await h.req(a, 'POST', '/v1/invites/game', { body: { toHandle: b.fullHandle, sessionHandle: 'sess-42', join: { lobbyId: 'L', bag: { seat: 2 } } } });
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, 'game');
    assert.equal(r.body.targetHandle, 'sess-42');
    assert.deepEqual(r.body.join, { lobbyId: 'L', bag: { seat: 2 } });
    const [ev] = await rec.next('gameInviteReceived');
    assert.equal((ev.data as any).inviteId, r.body.inviteId);
    await rec.stop();
    const foreign = await h.user('Foreign');
    assert.equal((await h.req(foreign, 'POST', `/v1/invites/game/${r.body.inviteId}/accept`)).body.code, 'invite_not_found');
    const acc = await h.req(b, 'POST', `/v1/invites/game/${r.body.inviteId}/accept`);
    assert.equal(acc.status, 200);
    assert.deepEqual(acc.body, { kind: 'game', inviteId: r.body.inviteId, sessionHandle: 'sess-42', join: { lobbyId: 'L', bag: { seat: 2 } } });
    assert.equal((await h.req(b, 'POST', `/v1/invites/game/${r.body.inviteId}/accept`)).body.code, 'invite_not_pending');
    const pending = (await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } })).body;
    clock += 3_600_000;
    assertError(await h.req(b, 'POST', `/v1/invites/game/${pending.inviteId}/accept`), 410, 'invite_expired');
    // Blocks: the blocked side sees user_not_found, the blocker you_blocked_user; pending invites are revoked.
    const p3 = (await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } })).body;
    await h.req(b, 'POST', `/v1/blocks/${a.publicId}`);
    assert.equal((await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } })).body.code, 'user_not_found');
    assert.equal((await h.req(b, 'POST', '/v1/invites/game', { body: { toPublicId: a.publicId } })).body.code, 'you_blocked_user');
    assert.equal((await h.req(b, 'POST', `/v1/invites/game/${p3.inviteId}/accept`)).body.code, 'invite_not_pending');
    for (const body of [{ toPublicId: a.publicId, sessionHandle: 5 }, { toPublicId: a.publicId, extra: true }]) {
      assert.equal((await h.req(b, 'POST', '/v1/invites/game', { body })).body.code, 'validation_failed');
    }
  });

  it('leader actions: kick, transfer, session, visibility, join metadata; non-leaders 403 not_leader', async () => {
    const [lead, m1, m2] = await h.users('Boss', 'Mem1', 'Mem2');
    const p = await publicParty(lead, m1, m2);
    const rec = await partyEvents(p.partyId);
    await rec.reset();
    const notLeader: [string, unknown][] = [
      ['kick', { publicId: m2.publicId }],
      ['leader', { publicId: m1.publicId }],
      ['session', { sessionHandle: 's' }],
      ['visibility', { visibility: 'Private' }],
      ['join-metadata', { lobbyId: 'x' }],
    ];
    for (const [action, body] of notLeader) {
      const x = await h.req(m1, 'POST', `/v1/parties/${p.partyId}/${action}`, { body });
      assert.equal(x.status, 403, action);
      assert.equal(x.body.code, 'not_leader', action);
    }
    const session = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/session`, { body: { sessionHandle: 'server-7' } });
    assert.equal(session.body.sessionHandle, 'server-7');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${p.partyId}/session`, { body: {} })).body.sessionHandle, undefined);
    const meta = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/join-metadata`, { body: { lobbyId: 'lob', bag: { a: 1 } } });
    assert.deepEqual(meta.body.join, { lobbyId: 'lob', bag: { a: 1 } });
    const vis = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/visibility`, { body: { visibility: 'FriendsOnly' } });
    assert.equal(vis.body.visibility, 'FriendsOnly');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${p.partyId}/visibility`, { body: { visibility: 'public' } })).body.code, 'validation_failed');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${p.partyId}/kick`, { body: {} })).body.code, 'target_required');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${p.partyId}/kick`, { body: { publicId: lead.publicId } })).body.code, 'cannot_kick_self');
    const outsider = await h.user('Outsider');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${p.partyId}/kick`, { body: { publicId: outsider.publicId } })).body.code, 'member_not_found');
    const recM2 = await h.events(m2);
    const kicked = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/kick`, { body: { handle: m2.fullHandle } });
    assert.equal(kicked.status, 200);
    assert.deepEqual(kicked.body.members.map((m: any) => m.publicId), [lead.publicId, m1.publicId]);
    const [left] = await recM2.next('partyMemberLeft');
    assert.deepEqual(left.data, { partyId: p.partyId, publicId: m2.publicId, reason: 'kicked', disbanded: false });
    await recM2.stop();
    assert.equal((await h.req(m2, 'GET', `/v1/parties/${p.partyId}`)).status, 404);
    const t = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/leader`, { body: { publicId: m1.publicId } });
    assert.equal(t.body.leaderPublicId, m1.publicId);
    assert.equal(t.body.members.find((m: any) => m.isLeader).publicId, m1.publicId);
    // The previous leader leaves; the last member leaving disbands the party.
    const l1 = await h.req(lead, 'POST', `/v1/parties/${p.partyId}/leave`);
    assert.deepEqual(l1.body, { state: 'left', partyId: p.partyId, disbanded: false });
    const l2 = await h.req(m1, 'POST', `/v1/parties/${p.partyId}/leave`);
    assert.deepEqual(l2.body, { state: 'left', partyId: p.partyId, disbanded: true });
    assert.equal((await h.req(m1, 'POST', `/v1/parties/${p.partyId}/leave`)).body.code, 'party_not_found');
    assert.equal((await h.db.db.query('SELECT 1 FROM parties WHERE id = $1', [p.partyId])).rowCount, 0);
    await rec.expectTypes(['partyMemberLeft', 'partyLeaderChanged', 'partyMemberLeft', 'partyMemberLeft']);
    assert.deepEqual(rec.events[1].data, { partyId: p.partyId, leaderPublicId: m1.publicId, previousLeaderPublicId: lead.publicId });
    await rec.stop();
  });

  it('a leaving leader hands over to the longest-standing member (partyLeaderChanged)', async () => {
    const [lead, first, second] = await h.users('Old', 'First', 'Second');
    const p = await publicParty(lead, first, second);
    const rec = await partyEvents(p.partyId);
    await rec.reset();
    await h.req(lead, 'POST', `/v1/parties/${p.partyId}/leave`);
    const now = await h.req(second, 'GET', `/v1/parties/${p.partyId}`);
    assert.equal(now.body.leaderPublicId, first.publicId);
    const [changed] = await rec.next('partyLeaderChanged');
    assert.equal((changed.data as any).leaderPublicId, first.publicId);
    await rec.stop();
  });
});
