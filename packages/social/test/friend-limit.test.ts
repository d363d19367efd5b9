// The friend limit (Social:Friends:Max): requests from a player at the limit, accepts past it on either side, and
// concurrent accepts that would pass it together. Nothing refused is lost: the request stays pending.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from '@platform/kit/testing';
import { befriend, useHarness } from './support.js';

describe('friend limit', () => {
  const h = useHarness({ SOCIAL_FRIENDS_MAX: '2' }, { checkAccountIds: true });
  const pending = async (u: Parameters<typeof h.req>[0], dir: 'incoming' | 'outgoing') =>
    (await h.req(u, 'GET', `/v1/friends/requests?dir=${dir}`)).body.map((r: any) => r.publicId);

  it('a player at the limit cannot send a request (409 friend_limit_reached) nor accept one; the request stays', async () => {
    const [a, b, c, d] = await h.users('Lim', 'Lb', 'Lc', 'Ld');
    await befriend(h, a, b);
    await befriend(h, a, c);
    assertError(await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: d.publicId } }), 409, 'friend_limit_reached');
    assert.deepEqual(await pending(a, 'outgoing'), []);
    // d may ask (d has room); a, at the limit, cannot accept, and the request is still there to accept later.
    assert.equal((await h.req(d, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } })).status, 201);
    const refused = assertError(await h.req(a, 'POST', `/v1/friends/requests/${d.publicId}/accept`), 409, 'friend_limit_reached');
    assert.match(refused.message, /You have the most friends allowed \(2\)/);
    assert.deepEqual(await pending(a, 'incoming'), [d.publicId]);
    // Room again after a friendship ends: the same request is accepted.
    assert.equal((await h.req(a, 'DELETE', `/v1/friends/${b.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', `/v1/friends/requests/${d.publicId}/accept`)).status, 200);
    assert.deepEqual((await h.req(a, 'GET', '/v1/friends')).body.map((f: any) => f.publicId).sort(), [c.publicId, d.publicId].sort());
  });

  it('accepting a request from a player who reached the limit meanwhile is refused and names the other side', async () => {
    const [a, b, c, d] = await h.users('Lo', 'Lp', 'Lq', 'Lr');
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: d.publicId } })).status, 201);
    await befriend(h, a, b);
    await befriend(h, a, c);
    const refused = assertError(await h.req(d, 'POST', `/v1/friends/requests/${a.publicId}/accept`), 409, 'friend_limit_reached');
    assert.match(refused.message, /This player has the most friends allowed/);
    assert.deepEqual(await pending(d, 'incoming'), [a.publicId]);
    // A crossing request (d asks a back) would make friends at once: refused the same way, and nothing changes.
    assertError(await h.req(d, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } }), 409, 'friend_limit_reached');
    assert.deepEqual(await pending(d, 'incoming'), [a.publicId]);
    assert.equal((await h.req(d, 'GET', '/v1/friends')).body.length, 0);
  });

  it('concurrent accepts cannot pass the limit together', async () => {
    const [a, b] = await h.users('Lx', 'Ly');
    await befriend(h, a, b);
    const askers = await h.users('Lz1', 'Lz2', 'Lz3', 'Lz4');
    for (const u of askers) assert.equal((await h.req(u, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } })).status, 201);
    const answers = await Promise.all(askers.map((u) => h.req(a, 'POST', `/v1/friends/requests/${u.publicId}/accept`)));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409)) assert.equal(r.body.code, 'friend_limit_reached');
    assert.equal((await h.req(a, 'GET', '/v1/friends')).body.length, 2);
    assert.equal((await pending(a, 'incoming')).length, 3);
  });
});
