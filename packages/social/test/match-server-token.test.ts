// POST /v1/matches with a game's server token (docs/social.md, "Recent players"; issue 32 item 2): a server-role token
// issued for one game (its `game` claim, auth's POST /internal/server-token with game_id) posts that game's rosters,
// as the game's key and secret do. Refused: a player's token, a server token without a game, a bad or foreign token;
// a token of another game posts into its own game, never this one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertError } from '@platform/kit/testing';
import { useHarness, type Game, type TestUser } from './support.js';

describe('match rosters with a game server token', () => {
  const h = useHarness({}, { checkAccountIds: true });
  const post = (token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
    h.req(null, 'POST', '/v1/matches', { body, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  const roster = (players: TestUser[]) => ({ players: players.map((u) => u.publicId) });
  const recent = async (u: TestUser, game: Game) =>
    (await h.req(u, 'GET', '/v1/me/recent-players', { game })).body.players.map((p: { publicId: string }) => p.publicId) as string[];

  it('a server token of the game posts its rosters (201, then 200 for the same match); another game’s token posts into its own game', async () => {
    const game = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const [a, b, c] = await h.users('Tia', 'Tom', 'Ted');
    for (const format of ['paseto', 'jwt'] as const) {
      const token = await h.keys.sign('service:matchmaking', { roles: ['server'], game: game.gameId, format });
      const first = await post(token, { ...roster([a, b]), matchId: `tok-${format}` });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal((await post(token, { ...roster([a, b]), matchId: `tok-${format}` })).status, 200);
    }
    assert.deepEqual(await recent(a, game), [b.publicId]);
    // The token of another game: its roster is that game's, never this one's.
    const foreign = await h.keys.sign('service:matchmaking', { roles: ['server'], game: other.gameId });
    assert.equal((await post(foreign, roster([a, c]))).status, 201);
    assert.deepEqual(await recent(a, game), [b.publicId], 'nothing in the first game');
    assert.deepEqual(await recent(a, other), [c.publicId]);
    // The key and secret still work, and win over a token when both are sent.
    const both = await h.req(null, 'POST', '/v1/matches', { body: roster([b, c]), game, headers: { authorization: `Bearer ${foreign}` } });
    assert.equal(both.status, 201, JSON.stringify(both.body));
    assert.deepEqual((await recent(c, game)).sort(), [b.publicId]);
  });

  it('refused: a player’s token (403), a server token without a game or with a malformed one (403), bad tokens (401), a client key (403)', async () => {
    const game = h.registry.addGame('isolated');
    const [a, b] = await h.users('Uma', 'Uli');
    const body = roster([a, b]);
    assertError(await post(a.token, body), 403, 'forbidden');
    assertError(await post(await h.keys.sign(a.sub, { game: game.gameId }), body), 403, 'forbidden');
    assertError(await post(await h.keys.sign('service:matchmaking', { roles: ['server'] }), body), 403, 'forbidden');
    assertError(await post(await h.keys.sign('service:matchmaking', { roles: ['server'], game: 'not-a-game' }), body), 403, 'forbidden');
    // A server role on a player's subject is not a service.
    assertError(await post(await h.keys.sign(randomUUID(), { roles: ['server'], game: game.gameId }), body), 403, 'forbidden');
    assertError(await post(await h.keys.sign('service:matchmaking', { roles: ['server'], game: game.gameId, key: 'other' }), body), 401, 'unauthorized');
    assertError(await post(await h.keys.sign('service:matchmaking', { roles: ['server'], game: game.gameId, expOffsetSec: -120 }), body), 401, 'unauthorized');
    assertError(await post(await h.keys.sign('service:matchmaking', { roles: ['server'], game: game.gameId, aud: 'elsewhere' }), body), 401, 'unauthorized');
    assertError(await post('not-a-token', body), 401, 'unauthorized');
    assertError(await post(undefined, body, { authorization: 'Basic abc' }), 401, 'unauthorized');
    assertError(await post(undefined, body), 401, 'unauthorized');
    const token = await h.keys.sign('service:matchmaking', { roles: ['server'], game: game.gameId });
    assertError(await post(token, body, { 'x-platform-client-key': game.clientKey }), 403, 'game_secret_required');
    // Bad input with a good token: 400, nothing stored.
    assertError(await post(token, { players: [a.publicId] }), 400, 'validation_failed');
    assertError(await post(token, { ...body, extra: 1 }), 400, 'validation_failed');
    assert.deepEqual(await recent(a, game), []);
  });
});
