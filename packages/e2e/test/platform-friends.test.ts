// Platform friends across the real services (docs/social.md, "Platform friends"; decision 0030): players sign in to
// auth with real store_a (Steam-style) encrypted app tickets; social reads their steamid64 from auth (internal
// identities), asks a local Steam Web API (a real node:http server answering GetFriendList in Steam's documented
// format) for their friends, maps the friends back to accounts through auth (internal lookup) and keeps those who play
// the game: suggested (`suggest`, the default) or befriended (`befriend`), per the registry's PlatformFriends. Once per
// interval per (player, game), agreed by every node through the database; a private profile, a 500, a slow or a
// malformed answer never fails the player's request. Export and erasure cover the imports.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eventually, startPlatform, type Platform, type SocialNode } from '../src/index.js';
import { buildEncryptedAppTicket, individualSteamId } from '../../auth/test/support/steam-ticket.js';
import { PASSWORD, tag, type Game } from './support/game-sockets.js';
import { open, type Sock } from './revocation-support.js';
import { startSteamWebApi, type SteamWebApi } from './support/steam-web-api.js';

const STEAM_KEY = `steam-web-api-key-${randomBytes(8).toString('hex')}`;
const APP_ID = 480;
const TICKET_KEY = randomBytes(32);
/** Polls of 100 ms a background refresh is given (a minute: CI runs suites side by side on two cores). */
const PATIENCE = 600;
let steamAccount = 100_000 + Math.floor(Math.random() * 1_000_000);

interface Player {
  name: string;
  steamId: string;
  accountId: string;
  token: string;
  publicId: string;
}

describe('platform friends: Steam friends who play the game, suggested or befriended', () => {
  let p: Platform;
  let steam: SteamWebApi;
  let node2: SocialNode;
  let devToken: string;
  const games: Record<'suggest' | 'other' | 'befriend' | 'off', Game> = {} as never;
  /** Each player's token by publicId. */
  const players = new Map<string, string>();

  before(async () => {
    steam = await startSteamWebApi(STEAM_KEY);
    p = await startPlatform({
      authEnv: { AUTH_STORE_A_APP_ID: String(APP_ID), AUTH_STORE_A_ENCRYPTION_KEY: TICKET_KEY.toString('hex') },
      socialEnv: {
        SOCIAL_REGISTRY_CACHE_SECONDS: '0',
        SOCIAL_PLATFORM_FRIENDS_STEAM_API_KEY: STEAM_KEY,
        SOCIAL_PLATFORM_FRIENDS_STEAM_API_URL: steam.url,
        SOCIAL_PLATFORM_FRIENDS_TIMEOUT_MS: '1000',
        SOCIAL_PLATFORM_FRIENDS_REFRESH_SECONDS: '3600',
        SOCIAL_FRIENDS_MAX: '2',
      },
    });
    node2 = await p.addSocialNode();
    const dev = await p.registry.call('POST', '/developers/register', { body: { Email: `pf.${tag}@e2e.test`, Password: PASSWORD, DisplayName: 'Studio' } });
    assert.equal(dev.status, 201);
    devToken = dev.body.Token;
    for (const [name, mode] of [['suggest', undefined], ['other', undefined], ['befriend', 'befriend'], ['off', 'off']] as const) {
      const r = await p.registry.call('POST', '/games', { token: devToken, body: { DisplayName: `PF ${name}` } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.Game.PlatformFriends, 'suggest', 'the default');
      if (mode) assert.equal((await p.registry.call('PATCH', `/games/${r.body.Game.GameId}`, { token: devToken, body: { PlatformFriends: mode } })).body.PlatformFriends, mode);
      games[name] = { gameId: r.body.Game.GameId, clientKey: r.body.Game.ClientKey, pair: { 'x-platform-game-key': r.body.Game.ApiKey, 'x-platform-game-secret': r.body.ApiSecret } };
    }
  });
  after(async () => {
    await p?.close();
    await steam?.close();
  });

  /** A player signed in with a store_a ticket (no social request yet in any game). */
  async function steamPlayer(name: string): Promise<Player> {
    const steamId = individualSteamId(steamAccount++);
    const ticket = buildEncryptedAppTicket({ appId: APP_ID, steamId, key: TICKET_KEY }).toString('hex');
    const r = await p.auth.call('POST', '/platform', { body: { provider: 'store_a', ticket } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const me = await p.social.call('GET', '/v1/me', { token: r.body.access_token });
    assert.equal(me.status, 200);
    players.set(me.body.publicId, r.body.access_token);
    return { name, steamId, accountId: r.body.account_id, token: r.body.access_token, publicId: me.body.publicId };
  }
  const call = (who: Player, method: string, path: string, game?: Game, node = p.social) =>
    node.call(method, path, { token: who.token, headers: game ? { 'x-platform-client-key': game.clientKey } : {} });
  /** The (player, game) refresh row: when and how it ended ('running' while it runs). */
  const refreshOf = async (who: Player, game: Game) =>
    (
      await p.socialDb.query<{ refreshed_at: Date; outcome: string }>(
        'SELECT r.refreshed_at, r.outcome FROM platform_friend_refreshes r JOIN users u ON u.id = r.user_id WHERE u.account_id = $1 AND r.game_id = $2',
        [who.accountId, game.gameId],
      )
    ).rows[0];
  /** A request of the player in the game (200 whatever the platform does), then the refresh it started, ended. */
  async function play(who: Player, game: Game, node = p.social): Promise<string> {
    const r = await call(who, 'GET', '/v1/me', game, node);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return eventually(`${who.name}'s refresh`, async () => {
      const row = await refreshOf(who, game);
      return row && row.outcome !== 'running' ? row.outcome : undefined;
    }, PATIENCE);
  }
  const suggested = async (who: Player, game: Game) => {
    const r = await call(who, 'GET', '/v1/me/suggestions', game);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.suggestions.map((s: { publicId: string; source: string }) => `${s.publicId}:${s.source}`).sort() as string[];
  };
  const friendsOf = async (who: Player) => ((await call(who, 'GET', '/v1/friends')).body as { publicId: string }[]).map((f) => f.publicId).sort();

  let a: Player;
  let b: Player;

  it('suggest: the Steam friends who play the game, source platform, per game, both ways; none with off', async () => {
    [a, b] = [await steamPlayer('A'), await steamPlayer('B')];
    const [c, e] = [await steamPlayer('C'), await steamPlayer('E')];
    const unregistered = individualSteamId(steamAccount++);
    steam.answers.set(a.steamId, { friends: [b.steamId, c.steamId, e.steamId, unregistered] });
    steam.answers.set(b.steamId, { friends: [a.steamId] });
    // B plays first (A does not play yet: nothing to import), E plays another game only, C never plays.
    assert.equal(await play(b, games.suggest), 'imported');
    assert.equal(await play(e, games.other), 'imported');
    assert.equal(await play(a, games.suggest), 'imported');
    assert.deepEqual(await suggested(a, games.suggest), [`${b.publicId}:platform`]);
    // A platform friendship is mutual: B's suggestions show A (A's import names B) before B's next refresh.
    assert.deepEqual(await suggested(b, games.suggest), [`${a.publicId}:platform`]);
    const page = await call(a, 'GET', '/v1/me/suggestions?limit=1', games.suggest);
    assert.deepEqual([page.body.suggestions.length, page.body.suggestions[0].mutualFriends, page.body.nextCursor], [1, 0, null]);
    // Another game: its own import (E plays it, B does not).
    assert.equal(await play(a, games.other), 'imported');
    assert.deepEqual(await suggested(a, games.other), [`${e.publicId}:platform`]);
    // Off: the platform is not asked, nothing is suggested from it.
    const before = steam.calls(a.steamId);
    assert.equal((await call(a, 'GET', '/v1/me', games.off)).status, 200);
    assert.deepEqual(await suggested(a, games.off), []);
    assert.equal(await refreshOf(a, games.off), undefined);
    assert.equal(steam.calls(a.steamId), before);
    assert.equal(steam.refused(), 0, 'every call carried the key, the path and relationship=friend');
  });

  it('a socket in the game context is a first contact too', async () => {
    const s = await steamPlayer('S');
    steam.answers.set(s.steamId, { friends: [a.steamId] });
    const socket = await open(p.socialNodes[0], s.token, p.socialTls.cert, { 'x-platform-client-key': games.suggest.clientKey });
    try {
      const outcome = await eventually('the socket’s refresh', async () => {
        const row = await refreshOf(s, games.suggest);
        return row && row.outcome !== 'running' ? row.outcome : undefined;
      }, PATIENCE);
      assert.equal(outcome, 'imported');
      assert.deepEqual(await suggested(s, games.suggest), [`${a.publicId}:platform`]);
    } finally {
      socket.ws.close();
    }
    assert.equal((await call(s, 'DELETE', '/v1/me')).status, 200);
  });

  it('once per interval, agreed by every node; after it the next request refreshes, and an ended friendship is gone', async () => {
    const first = await refreshOf(a, games.suggest);
    const calls = steam.calls(a.steamId);
    for (const node of [p.social, node2]) assert.equal((await call(a, 'GET', '/v1/me', games.suggest, node)).status, 200);
    // The claim is made before the answer: nothing was claimed, so nothing runs.
    assert.deepEqual(await refreshOf(a, games.suggest), first);
    assert.equal(steam.calls(a.steamId), calls);
    // The interval passes (the row is set back: the test does not wait an hour); B is no longer A's Steam friend.
    steam.answers.set(a.steamId, { friends: [] });
    await p.socialDb.query(`UPDATE platform_friend_refreshes SET refreshed_at = refreshed_at - interval '2 hours' WHERE game_id = $1`, [games.suggest.gameId]);
    // A node that has not seen A since (node 2 remembered the first claim's time: it asks the database after it).
    const fresh = await p.addSocialNode();
    assert.equal(await play(a, games.suggest, fresh), 'imported');
    assert.equal(steam.calls(a.steamId), calls + 1);
    assert.deepEqual(await suggested(a, games.suggest), []);
    assert.deepEqual(await suggested(b, games.suggest), [], 'A’s newer list ends B’s row naming A too');
  });

  it('befriend: friends at once both ways (friendAdded), never a blocked player; a removed friend is not added back', async () => {
    const [pl, q, r] = [await steamPlayer('P'), await steamPlayer('Q'), await steamPlayer('R')];
    steam.answers.set(pl.steamId, { friends: [q.steamId, r.steamId] });
    for (const x of [q, r]) assert.equal(await play(x, games.befriend), 'imported');
    assert.equal((await call(r, 'POST', `/v1/blocks/${pl.publicId}`)).status, 204);
    const qSocket: Sock = await open(p.socialNodes[0], q.token, p.socialTls.cert);
    try {
      assert.equal(await play(pl, games.befriend), 'imported');
      assert.deepEqual(await friendsOf(pl), [q.publicId]);
      assert.deepEqual(await friendsOf(q), [pl.publicId]);
      assert.deepEqual(await friendsOf(r), []);
      const added = await eventually('friendAdded', async () => qSocket.frames.find((f) => f.type === 'friendAdded'), PATIENCE);
      assert.deepEqual([added.data.publicId, added.data.source], [pl.publicId, 'platform']);
    } finally {
      qSocket.ws.close();
    }
    assert.deepEqual(await suggested(pl, games.befriend), [], 'Q is a friend, R blocked P');
    const exported = (await call(pl, 'GET', '/v1/me/export')).body;
    const q1 = exported.platformFriends.find((f: { publicId: string }) => f.publicId === q.publicId);
    assert.deepEqual([q1.gameId, q1.provider, typeof q1.befriendedAt], [games.befriend.gameId, 'store_a', 'string']);
    // Q removes P; the next refresh does not make them friends again, nor suggests Q.
    assert.equal((await call(q, 'DELETE', `/v1/friends/${pl.publicId}`)).status, 204);
    await p.socialDb.query(`UPDATE platform_friend_refreshes SET refreshed_at = refreshed_at - interval '2 hours' WHERE game_id = $1`, [games.befriend.gameId]);
    const fresh = await p.addSocialNode();
    assert.equal(await play(pl, games.befriend, fresh), 'imported');
    assert.deepEqual(await friendsOf(pl), []);
    assert.deepEqual(await suggested(pl, games.befriend), []);
  });

  it('befriend: a full friend list leaves the friend a suggestion; a recent decline neither befriends nor suggests', async () => {
    const [l, m, n, o, j, k] = [await steamPlayer('L'), await steamPlayer('M'), await steamPlayer('N'), await steamPlayer('O'), await steamPlayer('J'), await steamPlayer('K')];
    const befriend = async (x: Player, y: Player) => {
      assert.equal((await p.social.call('POST', '/v1/friends/requests', { token: x.token, body: { toPublicId: y.publicId } })).status, 201);
      assert.equal((await call(y, 'POST', `/v1/friends/requests/${x.publicId}/accept`)).status, 200);
    };
    // L has Social:Friends:Max (2) friends already.
    await befriend(l, n);
    await befriend(l, o);
    steam.answers.set(l.steamId, { friends: [m.steamId] });
    assert.equal(await play(m, games.befriend), 'imported');
    assert.equal(await play(l, games.befriend), 'imported');
    assert.deepEqual(await friendsOf(l), [n.publicId, o.publicId].sort());
    assert.deepEqual(await suggested(l, games.befriend), [`${m.publicId}:platform`]);
    // J declined K's request: no friendship, no suggestion, either way.
    assert.equal((await p.social.call('POST', '/v1/friends/requests', { token: k.token, body: { toPublicId: j.publicId } })).status, 201);
    assert.equal((await call(j, 'POST', `/v1/friends/requests/${k.publicId}/decline`)).status, 200);
    steam.answers.set(j.steamId, { friends: [k.steamId] });
    assert.equal(await play(k, games.befriend), 'imported');
    assert.equal(await play(j, games.befriend), 'imported');
    assert.deepEqual([await friendsOf(j), await friendsOf(k)], [[], []]);
    assert.deepEqual([await suggested(j, games.befriend), await suggested(k, games.befriend)], [[], []]);
  });

  it('a private profile, a 500, a slow or malformed answer and a player without Steam never fail the request; counted', async () => {
    const node = await p.addSocialNode();
    const cases: [string, Player, string][] = [];
    for (const [answer, outcome] of [['private', 'private'], ['error', 'platform_failed'], ['slow', 'platform_failed'], ['malformed', 'platform_failed']] as const) {
      const x = await steamPlayer(answer);
      steam.answers.set(x.steamId, answer);
      cases.push([answer, x, outcome]);
    }
    for (const [answer, x, outcome] of cases) assert.equal(await play(x, games.suggest, node), outcome, answer);
    const guest = await p.auth.call('POST', '/guest', { body: { device_fingerprint: `pf-guest-${tag}-${randomBytes(4).toString('hex')}` } });
    const g: Player = { name: 'guest', steamId: '', accountId: guest.body.account_id, token: guest.body.access_token, publicId: '' };
    assert.equal(await play(g, games.suggest, node), 'no_identity');
    const text = await node.app.ctx.metrics.metrics.registry.getSingleMetricAsString('social_platform_friends_refreshes_total');
    for (const [outcome, n] of [['private', 1], ['platform_failed', 3], ['no_identity', 1]] as const) {
      assert.match(text, new RegExp(`outcome="${outcome}"} ${n}\\b`), text);
    }
    // A failed refresh keeps the previous import (A's, imported before, stays when Steam fails for A now).
    steam.answers.set(a.steamId, 'error');
    await p.socialDb.query(`UPDATE platform_friend_refreshes SET refreshed_at = refreshed_at - interval '2 hours' WHERE game_id = $1`, [games.other.gameId]);
    assert.equal(await play(a, games.other, node), 'platform_failed');
    assert.equal((await suggested(a, games.other)).length, 1);
  });

  it('export lists the imports and refreshes; erasure removes them both ways', async () => {
    const exported = (await call(a, 'GET', '/v1/me/export')).body;
    assert.equal(exported.platformFriends.length, 1, JSON.stringify(exported.platformFriends));
    assert.deepEqual(exported.platformFriends.map((f: { gameId: string }) => f.gameId), [games.other.gameId]);
    assert.deepEqual(
      exported.platformFriendRefreshes.map((r: { gameId: string; outcome: string }) => [r.gameId, r.outcome]).sort(),
      [[games.suggest.gameId, 'imported'], [games.other.gameId, 'platform_failed']].sort(),
    );
    const e = exported.platformFriends[0].publicId as string;
    const eId = (await p.socialDb.query<{ id: string }>('SELECT id FROM users WHERE public_id = $1', [e])).rows[0].id;
    const rowsOfE = async () => Number((await p.socialDb.query<{ n: string }>('SELECT count(*) AS n FROM platform_friends WHERE friend_id = $1 OR user_id = $1', [eId])).rows[0].n);
    assert.equal(await rowsOfE(), 1);
    // E erases their social data (what the account deletion does through auth's outbox).
    assert.equal((await p.social.call('DELETE', '/v1/me', { token: players.get(e) })).status, 200);
    assert.equal(await rowsOfE(), 0);
    assert.deepEqual((await call(a, 'GET', '/v1/me/export')).body.platformFriends, []);
    assert.deepEqual(await suggested(a, games.other), []);
  });
});
