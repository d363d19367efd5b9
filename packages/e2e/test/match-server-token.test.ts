// A game server's roster with a server token across the real auth, registry and social (issue 32 item 2;
// docs/social.md, "Recent players"): auth mints a server-role token for one game (POST /internal/server-token with
// game_id, the `game` claim); social verifies it against auth's key set and takes the roster as that game's. A token
// of another game posts into that game only; a player's token and a server token without a game are refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startPlatform, type Platform } from '../src/index.js';
import { PASSWORD, tag } from './support/game-sockets.js';
import { guest } from './revocation-support.js';

describe('match rosters with a game server token, end to end', () => {
  let p: Platform;
  before(async () => {
    p = await startPlatform();
  });
  after(async () => p?.close());

  it('a token minted for the game posts its rosters; another game’s token, a player’s and one without a game do not', async () => {
    const dev = await p.registry.call('POST', '/developers/register', { body: { Email: `mst.${tag}@e2e.test`, Password: PASSWORD, DisplayName: 'Studio' } });
    const game = async (name: string) => {
      const r = await p.registry.call('POST', '/games', { token: dev.body.Token, body: { DisplayName: name } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return { gameId: r.body.Game.GameId as string, clientKey: r.body.Game.ClientKey as string };
    };
    const [g, other] = [await game('Arena'), await game('Puzzle')];
    const mint = async (body?: unknown) => {
      const r = await p.auth.call('POST', '/internal/server-token', { headers: { 'x-internal-key': p.moderationKey }, body });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.access_token as string;
    };
    const [a, b] = [await guest(p), await guest(p)];
    const publicId = async (token: string) => (await p.social.call('GET', '/v1/me', { token })).body.publicId as string;
    const players = [await publicId(a.token), await publicId(b.token)];
    const post = (token: string) => p.social.call('POST', '/v1/matches', { token, body: { players } });
    const recent = async (token: string, clientKey: string) =>
      (await p.social.call('GET', '/v1/me/recent-players', { token, headers: { 'x-platform-client-key': clientKey } })).body.players.map((x: { publicId: string }) => x.publicId);

    const r = await post(await mint({ game_id: g.gameId }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(await recent(a.token, g.clientKey), [players[1]]);
    assert.deepEqual(await recent(a.token, other.clientKey), [], 'not another game');
    const refused = [await post(a.token), await post(await mint())];
    assert.deepEqual(refused.map((x) => [x.status, x.body.code]), [[403, 'forbidden'], [403, 'forbidden']]);
    // Another game's token: the roster is that game's.
    assert.equal((await post(await mint({ game_id: other.gameId }))).status, 201);
    assert.deepEqual(await recent(b.token, other.clientKey), [players[0]]);
  });
});
