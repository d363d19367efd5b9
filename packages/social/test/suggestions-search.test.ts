// Suggestions and search (docs/social.md, "Suggestions", "Profiles and search"; decision 0029): friends of friends
// with their mutual friends, recent players of the game, every exclusion; search in the caller's game, the
// searchable setting, blocks both ways, the rate limit; declines in the export.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from '@platform/kit/testing';
import { befriend, useHarness, type Game, type TestUser } from './support.js';

describe('suggestions and search', () => {
  const h = useHarness({ SOCIAL_RATE_SEARCHES_PER_MINUTE: '12' }, { checkAccountIds: true });
  const suggestions = async (u: TestUser, game?: Game, query = '') => {
    const r = await h.req(u, 'GET', `/v1/me/suggestions${query}`, game ? { game } : {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { suggestions: { publicId: string; source: string; mutualFriends: number; playedAt?: string }[]; nextCursor: string | null };
  };
  const ids = (list: { publicId: string }[]) => list.map((s) => s.publicId);

  it('friends of friends by mutual friends, then recent players of the game; paged', async () => {
    const game = h.registry.addGame('isolated');
    const [a, b, e, c, d, f] = await h.users('Sue', 'Bridge', 'Edge', 'Carol', 'Dave', 'Fred');
    await befriend(h, a, b);
    await befriend(h, a, e);
    await befriend(h, b, c);
    await befriend(h, e, c);
    await befriend(h, b, d);
    assert.equal((await h.req(null, 'POST', '/v1/matches', { body: { players: [a.publicId, f.publicId, d.publicId] }, game })).status, 201);
    const withGame = await suggestions(a, game);
    assert.deepEqual(ids(withGame.suggestions), [c, d, f].map((u) => u.publicId));
    assert.deepEqual(
      withGame.suggestions.map((s) => [s.source, s.mutualFriends, typeof s.playedAt]),
      [
        ['friendsOfFriends', 2, 'undefined'],
        ['friendsOfFriends', 1, 'string'],
        ['recentPlayer', 0, 'string'],
      ],
    );
    // Without the game, its recent players are not suggested.
    assert.deepEqual(ids((await suggestions(a)).suggestions), [c, d].map((u) => u.publicId));
    const p1 = await suggestions(a, game, '?limit=2');
    assert.equal(p1.suggestions.length, 2);
    const p2 = await suggestions(a, game, `?limit=2&cursor=${p1.nextCursor}`);
    assert.deepEqual(ids(p2.suggestions), [f.publicId]);
    assert.equal(p2.nextCursor, null);
    assertError(await h.req(b, 'GET', `/v1/me/suggestions?cursor=${p1.nextCursor}`, { game }), 400, 'invalid_cursor');
    assertError(await h.req(a, 'GET', '/v1/me/suggestions?cursor=zz', { game }), 400, 'invalid_cursor');
    assertError(await h.req(a, 'GET', '/v1/me/suggestions?limit=0'), 400, 'validation_failed');
    assertError(await h.req(a, 'GET', '/v1/me/suggestions?q=1'), 400, 'validation_failed');
    assertError(await h.req(null, 'GET', '/v1/me/suggestions'), 401, 'unauthorized');
  });

  it('never friends, blocked either way, muted, pending, declined, private or unsearchable players', async () => {
    const [a, hub] = await h.users('Hub Owner', 'Hub');
    const [friendly, blocker, blocked, muted, pendingOut, pendingIn, decliner, declined, hidden, unsearchable, kept] = await h.users(
      'Friendly', 'Blocker', 'Blocked', 'Muted', 'PendOut', 'PendIn', 'Decliner', 'Declined', 'Hidden', 'Unsearch', 'Kept',
    );
    await befriend(h, a, hub);
    for (const u of [friendly, blocker, blocked, muted, pendingOut, pendingIn, decliner, declined, hidden, unsearchable, kept]) await befriend(h, hub, u);
    await befriend(h, a, friendly);
    assert.equal((await h.req(blocker, 'POST', `/v1/blocks/${a.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', `/v1/blocks/${blocked.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', `/v1/mutes/${muted.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: pendingOut.publicId } })).status, 201);
    assert.equal((await h.req(pendingIn, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } })).status, 201);
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: decliner.publicId } })).status, 201);
    assert.equal((await h.req(decliner, 'POST', `/v1/friends/requests/${a.publicId}/decline`)).status, 200);
    assert.equal((await h.req(declined, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } })).status, 201);
    assert.equal((await h.req(a, 'POST', `/v1/friends/requests/${declined.publicId}/decline`)).status, 200);
    assert.equal((await h.req(hidden, 'PATCH', '/v1/me/profile', { body: { visibility: 'private' } })).status, 200);
    const off = await h.req(unsearchable, 'PATCH', '/v1/me/profile', { body: { searchable: false } });
    assert.equal(off.status, 200);
    assert.equal(off.body.searchable, false);
    assert.deepEqual(ids((await suggestions(a)).suggestions), [kept.publicId]);
    // The declines are in each one's export (the requests the player declined).
    const exp = await h.req(a, 'GET', '/v1/me/export');
    assert.deepEqual(ids(exp.body.declinedRequests), [declined.publicId]);
    assert.equal((await h.req(decliner, 'GET', '/v1/me/export')).body.declinedRequests[0].publicId, a.publicId);
    assert.equal(exp.body.profile.searchable, true);
    // Erasing the decliner removes the decline with the profile.
    assert.equal((await h.req(declined, 'DELETE', '/v1/me')).status, 200);
    assert.deepEqual((await h.req(a, 'GET', '/v1/me/export')).body.declinedRequests, []);
  });

  it('search keeps to the caller’s game; searchable decides prefix search, not the exact handle; blocks both ways', async () => {
    const game = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const [me, inGame, elsewhere, quiet, blocker] = await h.users('Seeker', 'Zork One', 'Zork Two', 'Zork Quiet', 'Zork Block');
    // Being seen in a game is any request with its context.
    for (const u of [me, inGame, quiet, blocker]) assert.equal((await h.req(u, 'GET', '/v1/me', { game })).status, 200);
    assert.equal((await h.req(elsewhere, 'GET', '/v1/me', { game: other })).status, 200);
    assert.equal((await h.req(quiet, 'PATCH', '/v1/me/profile', { body: { searchable: false } })).status, 200);
    assert.equal((await h.req(blocker, 'POST', `/v1/blocks/${me.publicId}`)).status, 204);
    const search = async (q: string, g?: Game) => {
      const r = await h.req(me, 'GET', `/v1/users/search?handle=${encodeURIComponent(q)}`, g ? { game: g } : {});
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return ids(r.body);
    };
    assert.deepEqual(await search('zork', game), [inGame.publicId]);
    assert.deepEqual(await search('zork'), [inGame.publicId, elsewhere.publicId], 'without a game context: everyone');
    assert.deepEqual(await search(quiet.fullHandle, game), [quiet.publicId], 'an exact handle finds an unsearchable player');
    assert.deepEqual(await search(elsewhere.fullHandle, game), [], 'not a player of this game');
    assert.deepEqual(await search(blocker.fullHandle, game), []);
    assert.deepEqual(await h.req(blocker, 'GET', `/v1/users/search?handle=${encodeURIComponent(me.fullHandle)}`, { game }).then((r) => r.body), []);
    assertError(await h.req(quiet, 'PATCH', '/v1/me/profile', { body: { searchable: 'no' } }), 400, 'validation_failed');
    assert.equal((await h.req(quiet, 'GET', '/v1/me')).body.profile.searchable, false);
  });

  it('search is rate-limited per caller (429 rate_limited with Retry-After)', async () => {
    const [a, b] = await h.users('Hammer', 'Other Searcher');
    let limited: { status: number; body: any; headers: Record<string, unknown> } | undefined;
    for (let i = 0; i < 13 && !limited; i++) {
      const r = await h.req(a, 'GET', '/v1/users/search?handle=ab');
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(limited, 'the 13th search within a minute is refused');
    assertError(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await h.req(b, 'GET', '/v1/users/search?handle=ab')).status, 200, 'another caller is not limited');
  });
});
