// Friend requests, friendships, blocks and mutes, with the events each produces.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { befriend, useHarness } from './support.js';
import { assertError } from '@platform/kit/testing';

describe('friends, blocks, mutes', () => {
  const h = useHarness({}, { checkAccountIds: true });

  it('request → pending, incoming/outgoing lists, accept → friends, events both ways', async () => {
    const [a, b] = await h.users('Ann', 'Ben');
    const recB = await h.events(b);
    const recA = await h.events(a);
    const r = await h.req(a, 'POST', '/v1/friends/requests', { body: { toHandle: b.fullHandle } });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['direction', 'fullHandle', 'publicId', 'requestId', 'state']);
    assert.equal(r.body.state, 'pending');
    assert.equal(r.body.direction, 'outgoing');
    assert.equal(r.body.publicId, b.publicId);
    const [received] = await recB.next('friendRequestReceived');
    assert.deepEqual(received.data, { requestId: r.body.requestId, publicId: a.publicId, fullHandle: a.fullHandle, direction: 'incoming', state: 'pending' });
    const incoming = await h.req(b, 'GET', '/v1/friends/requests?dir=incoming');
    assert.deepEqual(incoming.body.map((x: any) => x.publicId), [a.publicId]);
    const outgoing = await h.req(a, 'GET', '/v1/friends/requests?dir=outgoing');
    assert.deepEqual(outgoing.body.map((x: any) => x.publicId), [b.publicId]);
    assert.equal((await h.req(a, 'GET', '/v1/friends/requests?dir=sideways')).status, 400);
    const acc = await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`);
    assert.equal(acc.status, 200);
    assert.equal(acc.body.state, 'accepted');
    const [accepted] = await recA.next('friendRequestAccepted');
    assert.equal((accepted.data as any).publicId, b.publicId);
    const friendsA = await h.req(a, 'GET', '/v1/friends');
    assert.equal(friendsA.body.length, 1);
    const f = friendsA.body[0];
    assert.equal(f.publicId, b.publicId);
    assert.equal(f.presenceState, 'offline');
    assert.equal(f.muted, false);
    assert.equal(f.sameGame, false);
    assert.match(f.dmChannelId, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal((await h.req(b, 'GET', '/v1/friends')).body[0].dmChannelId, f.dmChannelId);
    // Each also stored in the inbox, delivered live as `notification` (notifications.test.ts).
    await recA.expectTypes(['friendRequestAccepted', 'notification']);
    await recB.expectTypes(['friendRequestReceived', 'notification']);
    await recA.stop();
    await recB.stop();
  });

  it('errors: self, duplicate, already friends, unknown target, target rules', async () => {
    const [a, b] = await h.users('Cy', 'Di');
    const cases: [unknown, number, string][] = [
      [{ toPublicId: a.publicId }, 400, 'cannot_friend_self'],
      [{}, 400, 'target_required'],
      [{ toPublicId: b.publicId, toHandle: b.fullHandle }, 400, 'target_required'],
      [{ toPublicId: 'p_missing' }, 404, 'user_not_found'],
      [{ toHandle: 'Nobody#0000' }, 404, 'user_not_found'],
      [{ toPublicId: 7 }, 400, 'validation_failed'],
      [{ toPublicId: b.publicId, note: 'hi' }, 400, 'validation_failed'],
    ];
    for (const [body, status, code] of cases) {
      const r = await h.req(a, 'POST', '/v1/friends/requests', { body });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.code, code, JSON.stringify(body));
    }
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { raw: 'nope' })).body.code, 'malformed_json');
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } })).status, 201);
    assertError(await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } }), 409, 'request_exists');
    await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`);
    const again = await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    assertError(again, 409, 'already_friends');
  });

  it('a crossing request is accepted at once (201 accepted) and tells the first requester', async () => {
    const [a, b] = await h.users('Eve', 'Fay');
    await h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } });
    const recB = await h.events(b);
    const r = await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    assert.equal(r.status, 201);
    assert.equal(r.body.state, 'accepted');
    await recB.next('friendRequestAccepted');
    await recB.expectTypes(['friendRequestAccepted', 'notification']);
    await recB.stop();
    assert.equal((await h.req(b, 'GET', '/v1/friends')).body[0].publicId, a.publicId);
  });

  it('two simultaneous requests in opposite directions end as friends', async () => {
    const [a, b] = await h.users('Sim1', 'Sim2');
    const [x, y] = await Promise.all([
      h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } }),
      h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } }),
    ]);
    assert.deepEqual([x.status, y.status], [201, 201]);
    assert.deepEqual([x.body.state, y.body.state].sort(), ['accepted', 'pending']);
    assert.equal((await h.req(a, 'GET', '/v1/friends')).body.length, 1);
    assert.deepEqual((await h.req(a, 'GET', '/v1/friends/requests?dir=outgoing')).body, []);
    assert.deepEqual((await h.req(b, 'GET', '/v1/friends/requests?dir=outgoing')).body, []);
  });

  it('decline, cancel and their errors', async () => {
    const [a, b] = await h.users('Gus', 'Hal');
    await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    const dec = await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/decline`);
    assert.equal(dec.status, 200);
    assert.equal(dec.body.state, 'declined');
    assertError(await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/decline`), 404, 'request_not_found');
    assert.equal((await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`)).body.code, 'request_not_found');
    assert.equal((await h.req(b, 'POST', `/v1/friends/requests/p_unknown/accept`)).body.code, 'request_not_found');
    // A declined requester may ask again; then cancel it.
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } })).status, 201);
    // The recipient cannot accept their own outgoing direction: a's request is incoming for b only.
    assert.equal((await h.req(a, 'POST', `/v1/friends/requests/${b.publicId}/accept`)).status, 404);
    const cancel = await h.req(a, 'DELETE', `/v1/friends/requests/${b.publicId}`);
    assert.equal(cancel.status, 204);
    assert.equal(cancel.body, null);
    assert.equal((await h.req(a, 'DELETE', `/v1/friends/requests/${b.publicId}`)).status, 404);
    assert.deepEqual((await h.req(b, 'GET', '/v1/friends/requests')).body, []);
  });

  it('DELETE friend: 204, friendRemoved to the other, 404 when not a friend', async () => {
    const [a, b] = await h.friends('Ivy', 'Jon');
    const recB = await h.events(b);
    const recA = await h.events(a);
    const r = await h.req(a, 'DELETE', `/v1/friends/${b.publicId}`);
    assert.equal(r.status, 204);
    const [ev] = await recB.next('friendRemoved');
    assert.deepEqual(ev.data, { publicId: a.publicId });
    const [own] = await recA.next('friendRemoved');
    assert.deepEqual(own.data, { publicId: b.publicId });
    await recB.expectTypes(['friendRemoved']);
    await recB.stop();
    await recA.stop();
    assertError(await h.req(a, 'DELETE', `/v1/friends/${b.publicId}`), 404, 'friend_not_found');
    assert.deepEqual((await h.req(b, 'GET', '/v1/friends')).body, []);
  });

  it('blocks end friendships and requests, gate requests without revealing who blocked whom', async () => {
    const [a, b, c] = await h.users('Kim', 'Lou', 'Max');
    await befriend(h, a, b);
    await h.req(c, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } });
    const recB = await h.events(b);
    assert.equal((await h.req(a, 'POST', `/v1/blocks/${b.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', `/v1/blocks/${b.publicId}`)).status, 204, 'idempotent');
    assert.equal((await h.req(a, 'POST', `/v1/blocks/${c.publicId}`)).status, 204);
    await recB.next('friendRemoved');
    await recB.stop();
    assert.deepEqual((await h.req(a, 'GET', '/v1/friends')).body, []);
    assert.deepEqual((await h.req(a, 'GET', '/v1/friends/requests?dir=incoming')).body, []);
    // The blocked user sees "no such user"; the blocker is told they blocked.
    assertError(await h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } }), 404, 'user_not_found');
    assertError(await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } }), 409, 'you_blocked_user');
    assert.equal((await h.req(a, 'POST', `/v1/blocks/${a.publicId}`)).body.code, 'cannot_block_self');
    assert.equal((await h.req(a, 'POST', `/v1/blocks/p_nobody`)).body.code, 'user_not_found');
    assert.equal((await h.req(a, 'DELETE', `/v1/blocks/${b.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'DELETE', `/v1/blocks/${b.publicId}`)).status, 204, 'idempotent');
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } })).status, 201);
  });

  it('mutes: muted flag in FriendSummary; the muter stops receiving the muted user’s notifications', async () => {
    const [a, b] = await h.friends('Ned', 'Oli');
    assert.equal((await h.req(a, 'POST', `/v1/mutes/${b.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', `/v1/mutes/${b.publicId}`)).status, 204, 'idempotent');
    assert.equal((await h.req(a, 'GET', '/v1/friends')).body[0].muted, true);
    assert.equal((await h.req(b, 'GET', '/v1/friends')).body[0].muted, false);
    const recA = await h.events(a);
    await h.req(b, 'POST', '/v1/presence', { body: { state: 'online' } });
    await h.req(b, 'POST', '/v1/me/name', { body: { displayName: 'Olivia' } });
    await recA.expectTypes([]);
    assert.equal((await h.req(a, 'DELETE', `/v1/mutes/${b.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'DELETE', `/v1/mutes/${b.publicId}`)).status, 204, 'idempotent');
    await h.req(b, 'POST', '/v1/presence', { body: { state: 'away' } });
    await recA.next('friendPresenceChanged');
    await recA.stop();
    assert.equal((await h.req(a, 'POST', `/v1/mutes/${a.publicId}`)).body.code, 'cannot_mute_self');
    assert.equal((await h.req(a, 'POST', `/v1/mutes/p_nobody`)).status, 404);
  });
});
