// Recent players (docs/social.md, "Recent players"; decision 0029): a game server posts match rosters with the
// game's key and secret; each player sees the others of their game, newest first, bounded and retained; reports
// name a match the reporter played in (the roster in the snapshot); export and erasure cover them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertError } from '@platform/kit/testing';
import { purgeOldMatches } from '../src/services/matches.js';
import { useHarness, type Game, type TestUser } from './support.js';

const HOUR = 3_600_000;

describe('recent players', () => {
  let clock = Date.now();
  const h = useHarness({ SOCIAL_RECENT_PLAYERS_MAX: '3', SOCIAL_RECENT_PLAYERS_RETENTION_DAYS: '2' }, { now: () => new Date(clock), checkAccountIds: true });
  const post = (game: Game | undefined, body: unknown, headers: Record<string, string> = {}) => h.req(null, 'POST', '/v1/matches', { body, headers, ...(game ? { game } : {}) });
  const roster = (players: TestUser[], extra: Record<string, unknown> = {}) => ({ players: players.map((u) => u.publicId), ...extra });
  const recent = async (u: TestUser, game?: Game, query = '') => {
    const r = await h.req(u, 'GET', `/v1/me/recent-players${query}`, game ? { game } : {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { players: { publicId: string; matchId: string; playedAt: string; friend: boolean }[]; nextCursor: string | null };
  };
  const ago = (ms: number) => new Date(clock - ms).toISOString();

  it('a roster makes its players each other’s recent players, in its game only, newest first', async () => {
    const game = h.registry.addGame('isolated');
    const other = h.registry.addGame('full');
    const [a, b, c, d] = await h.users('Ann', 'Ben', 'Cid', 'Dee');
    const first = await post(game, roster([a, b, c], { matchId: 'm-1', endedAt: ago(2 * HOUR) }));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(first.body, { matchId: 'm-1', endedAt: ago(2 * HOUR), players: 3, unknownPlayers: 0 });
    // A repeated post of the same match adds players (a retried or growing roster): 200.
    const again = await post(game, roster([a, d], { matchId: 'm-1', players: [a.publicId, d.publicId, 'p_nobody'] }));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual({ players: again.body.players, unknownPlayers: again.body.unknownPlayers }, { players: 4, unknownPlayers: 1 });
    const mine = await recent(a, game);
    assert.deepEqual(mine.players.map((p) => p.publicId).sort(), [b, c, d].map((u) => u.publicId).sort());
    assert.ok(mine.players.every((p) => p.matchId === 'm-1' && p.friend === false));
    assert.deepEqual(Object.keys(mine.players[0]).sort(), ['displayName', 'friend', 'fullHandle', 'matchId', 'playedAt', 'publicId']);
    // Another game, and no game at all, show none of it.
    assert.deepEqual((await recent(a, other)).players, []);
    assert.deepEqual((await recent(a)).players, []);
    // A newer match comes first; the same pair keeps its newest match only.
    const made = await post(game, roster([a, b]));
    assert.equal(made.status, 201);
    assert.match(made.body.matchId, /^[0-9a-f-]{36}$/, 'an id is made when the server gives none');
    const now = await recent(a, game);
    assert.equal(now.players[0].publicId, b.publicId);
    assert.equal(now.players[0].matchId, made.body.matchId);
    assert.equal(now.players.length, 3);
    // The same match id in another game is another match.
    assert.equal((await post(other, roster([a, c], { matchId: 'm-1' }))).status, 201);
    assert.deepEqual((await recent(a, other)).players.map((p) => p.publicId), [c.publicId]);
  });

  it('each player keeps the newest Social:RecentPlayers:Max; paged with sealed cursors; blocks hide both ways', async () => {
    const game = h.registry.addGame('isolated');
    const [a, ...others] = await h.users('Max', 'O1', 'O2', 'O3', 'O4', 'O5');
    for (const [i, o] of others.entries()) assert.equal((await post(game, roster([a, o], { endedAt: ago((10 - i) * 60_000) }))).status, 201);
    const all = await recent(a, game);
    assert.deepEqual(all.players.map((p) => p.publicId), [others[4], others[3], others[2]].map((u) => u.publicId));
    const page1 = await recent(a, game, '?limit=2');
    assert.equal(page1.players.length, 2);
    assert.ok(page1.nextCursor);
    const page2 = await recent(a, game, `?limit=2&cursor=${page1.nextCursor}`);
    assert.deepEqual(page2.players.map((p) => p.publicId), [others[2].publicId]);
    assert.equal(page2.nextCursor, null);
    assertError(await h.req(a, 'GET', `/v1/me/recent-players?cursor=${page1.nextCursor}`, { game: h.registry.addGame('isolated') }), 400, 'invalid_cursor');
    assertError(await h.req(others[4], 'GET', `/v1/me/recent-players?cursor=${page1.nextCursor}`, { game }), 400, 'invalid_cursor');
    assertError(await h.req(a, 'GET', '/v1/me/recent-players?cursor=abc', { game }), 400, 'invalid_cursor');
    assertError(await h.req(a, 'GET', '/v1/me/recent-players?limit=51', { game }), 400, 'validation_failed');
    assertError(await h.req(a, 'GET', '/v1/me/recent-players?extra=1', { game }), 400, 'validation_failed');
    assertError(await h.req(null, 'GET', '/v1/me/recent-players', { game }), 401, 'unauthorized');
    // A block either way hides the pair from each other; friends are marked.
    assert.equal((await h.req(others[3], 'POST', `/v1/blocks/${a.publicId}`)).status, 204);
    assert.ok(!(await recent(a, game)).players.some((p) => p.publicId === others[3].publicId));
    assert.deepEqual((await recent(others[3], game)).players, []);
    assert.equal((await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: others[4].publicId } })).status, 201);
    assert.equal((await h.req(others[4], 'POST', `/v1/friends/requests/${a.publicId}/accept`)).status, 200);
    assert.equal((await recent(a, game)).players[0].friend, true);
  });

  it('rosters sharing players posted at once all land (one lock order), and a repeated post at once too', async () => {
    const game = h.registry.addGame('isolated');
    const squad = await h.users('Con A', 'Con B', 'Con C', 'Con D', 'Con E', 'Con F');
    const posts = await Promise.all([
      post(game, roster(squad)),
      post(game, roster([...squad].reverse())),
      post(game, roster(squad.slice(2))),
      post(game, roster(squad, { matchId: 'same' })),
      post(game, roster(squad, { matchId: 'same' })),
    ]);
    assert.deepEqual(posts.map((r) => r.status).sort(), [200, 201, 201, 201, 201], JSON.stringify(posts.map((r) => r.body)));
    assert.equal((await recent(squad[0], game)).players.length, 3, 'Social:RecentPlayers:Max');
  });

  it('rosters past the retention are not shown; endedAt must lie within it', async () => {
    const game = h.registry.addGame('isolated');
    const [a, b] = await h.users('Old', 'Timer');
    assert.equal((await post(game, roster([a, b], { endedAt: ago(47 * HOUR) }))).status, 201);
    assert.equal((await recent(a, game)).players.length, 1);
    assertError(await post(game, roster([a, b], { endedAt: ago(49 * HOUR) })), 400, 'validation_failed');
    assertError(await post(game, roster([a, b], { endedAt: new Date(clock + 2 * HOUR).toISOString() })), 400, 'validation_failed');
    clock += 2 * HOUR;
    try {
      assert.deepEqual((await recent(a, game)).players, []);
      // The hourly purge (workers/purge.ts) deletes the roster and the recent players it gave.
      assert.ok((await purgeOldMatches(h.app.ctx)) >= 1);
      const left = await h.db.db.query('SELECT 1 FROM matches WHERE game_id = $1', [game.gameId]);
      assert.equal(left.rows.length, 0);
      assert.equal((await h.db.db.query('SELECT 1 FROM recent_players WHERE game_id = $1', [game.gameId])).rows.length, 0);
    } finally {
      clock = Date.now();
    }
  });

  it('only the game’s credentials post a roster; bad input is refused', async () => {
    const game = h.registry.addGame('isolated');
    const [a, b] = await h.users('Poster', 'Posted');
    const body = roster([a, b]);
    assertError(await post(undefined, body), 401, 'unauthorized');
    // A player's token is not a game server's (a server token issued for the game is: match-server-token.test.ts).
    assertError(await h.req(a, 'POST', '/v1/matches', { body }), 403, 'forbidden');
    assertError(await post(undefined, body, { 'x-platform-client-key': game.clientKey }), 403, 'game_secret_required');
    assertError(await post(undefined, body, { 'x-platform-game-key': game.key }), 400, 'incomplete_game_credentials');
    assertError(await post(undefined, body, { 'x-platform-game-key': game.key, 'x-platform-game-secret': 'wrong' }), 401, 'invalid_game_credentials');
    assertError(await post(game, body, { 'x-platform-client-key': game.clientKey }), 400, 'ambiguous_game_credentials');
    const bad: [unknown, string][] = [
      [{ players: [a.publicId] }, 'validation_failed'],
      [{ players: [a.publicId, a.publicId] }, 'validation_failed'],
      [{ players: Array.from({ length: 101 }, (_, i) => `p_${i}`) }, 'validation_failed'],
      [{ players: [a.publicId, 7] }, 'validation_failed'],
      [{ ...body, matchId: 'has space' }, 'validation_failed'],
      [{ ...body, matchId: 'x'.repeat(65) }, 'validation_failed'],
      [{ ...body, endedAt: 'yesterday' }, 'validation_failed'],
      [{ ...body, extra: true }, 'validation_failed'],
      [{}, 'validation_failed'],
      [{ ...body, matchId: 'a\u0000b' }, 'invalid_character'],
    ];
    for (const [b2, code] of bad) assertError(await post(game, b2), 400, code);
    assertError(await h.req(null, 'POST', '/v1/matches', { raw: '{"players":', game, headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    assert.deepEqual((await recent(a, game)).players, [], 'nothing was recorded');
    // Unknown players are counted and left out; a roster of one known player records nothing.
    const lone = await post(game, { players: [a.publicId, `p_${randomUUID()}`] });
    assert.equal(lone.status, 201);
    assert.deepEqual({ players: lone.body.players, unknownPlayers: lone.body.unknownPlayers }, { players: 1, unknownPlayers: 1 });
    assert.deepEqual((await recent(a, game)).players, []);
  });

  it('a report names a match the reporter played in: its roster is in the snapshot; other matches are 404', async () => {
    const game = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const [a, b, c, outsider] = await h.users('Rep', 'Cheat', 'Third', 'Outside');
    const mod = await h.user('Modder', { roles: ['moderator'] });
    const matchId = `r-${randomUUID().slice(0, 8)}`;
    assert.equal((await post(game, roster([a, b, c], { matchId }))).status, 201);
    const report = (u: TestUser, context: string, g: Game = game, target = b) =>
      h.req(u, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'cheating', context }, game: g });
    assert.equal((await report(a, `match:${matchId} aimbot`)).status, 202);
    const filed = await h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(b.publicId)}`);
    assert.equal(filed.body.reports.length, 1);
    const snap = filed.body.reports[0].snapshot;
    assert.equal(snap.match.matchId, matchId);
    assert.deepEqual(snap.match.roster.map((p: { publicId: string }) => p.publicId).sort(), [a, b, c].map((u) => u.publicId).sort());
    assertError(await report(outsider, `match:${matchId}`), 404, 'match_not_found');
    assertError(await report(a, 'match:no-such-match'), 404, 'match_not_found');
    assertError(await report(a, `match:${matchId}`, other), 404, 'match_not_found');
    // Without a game context no match can be named; the same answer whoever the target is.
    assertError(await h.req(a, 'POST', '/v1/reports', { body: { targetPublicId: 'p_nobody', reason: 'cheating', context: `match:${matchId}` } }), 404, 'match_not_found');
    assertError(await report(outsider, `match:${matchId}`, game, a), 404, 'match_not_found');
  });

  it('export lists the recent players of every game; erasure removes the player from rosters and lists', async () => {
    const game = h.registry.addGame('isolated');
    const [a, b, c] = await h.users('Exp', 'Erased', 'Kept');
    assert.equal((await post(game, roster([a, b, c], { matchId: 'e-1' }))).status, 201);
    const exp = await h.req(a, 'GET', '/v1/me/export');
    assert.equal(exp.status, 200);
    assert.deepEqual(exp.body.recentPlayers.map((p: { publicId: string }) => p.publicId).sort(), [b, c].map((u) => u.publicId).sort());
    assert.ok(exp.body.recentPlayers.every((p: { gameId: string; matchId: string }) => p.gameId === game.gameId && p.matchId === 'e-1'));
    assert.equal((await h.req(b, 'DELETE', '/v1/me')).status, 200);
    assert.deepEqual((await recent(a, game)).players.map((p) => p.publicId), [c.publicId]);
    const count = await h.db.db.query<{ n: number }>('SELECT count(*)::int AS n FROM match_players p JOIN matches m ON m.id = p.match WHERE m.game_id = $1', [game.gameId]);
    assert.equal(count.rows[0].n, 2);
  });
});
