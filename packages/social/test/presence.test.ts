// Presence (states, invisible, TTL, who sees whom), cross-game visibility through tenancy, and notes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { befriend, useHarness, type TestUser } from './support.js';
import { assertError } from '@platform/kit/testing';

describe('presence and tenancy', () => {
  const h = useHarness({ SOCIAL__PRESENCE__TTLSECONDS: '5' }, { checkAccountIds: true });

  const rich = { gameId: 'g-1', activity: 'In lobby', partyId: 'party-9', joinable: true, sessionHandle: 'sess-1', extra: { map: 'dust' }, join: { lobbyId: 'lobby-1', bag: { k: 1 } } };

  it('POST /v1/presence sets state (Busy and DnD normalised) and friends get friendPresenceChanged', async () => {
    const [a, b] = await h.friends('Pia', 'Quin');
    const recB = await h.events(b);
    const r = await h.req(a, 'POST', '/v1/presence', { body: { state: 'Busy' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { publicId: a.publicId, state: 'busy' });
    assert.equal((await h.req(a, 'POST', '/v1/presence', { body: { state: 'DnD' } })).body.state, 'dnd');
    const evs = await recB.next('friendPresenceChanged', 2);
    assert.deepEqual(evs.map((e) => (e.data as any).state), ['busy', 'dnd']);
    assert.equal((evs[0].data as any).publicId, a.publicId);
    await recB.stop();
    const seen = await h.req(b, 'GET', `/v1/presence/${a.publicId}`);
    assert.deepEqual(seen.body, { publicId: a.publicId, state: 'dnd' });
    assert.equal((await h.req(b, 'GET', '/v1/friends')).body[0].presenceState, 'dnd');
    for (const body of [{ state: 'sleeping' }, { state: 3 }, { mood: 'x' }, { richPresence: { originGameId: 'x' } }, { richPresence: { activity: 'a'.repeat(129) } }]) {
      const bad = await h.req(a, 'POST', '/v1/presence', { body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.code, 'validation_failed');
    }
    assertError(await h.req(a, 'POST', '/v1/presence', { body: { richPresence: { extra: { blob: 'x'.repeat(2100) } } } }), 400, 'rich_presence_too_large');
  });

  it('presence is visible to self and friends only; others get 404 not_visible', async () => {
    const [a, b, stranger] = await h.users('Ray', 'Sue', 'Tom');
    await befriend(h, a, b);
    await h.req(a, 'POST', '/v1/presence', { body: { state: 'online' } });
    assert.equal((await h.req(a, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'online');
    for (const [viewer, id] of [[stranger, a.publicId], [b, 'p_nobody']] as [TestUser, string][]) {
      const r = await h.req(viewer, 'GET', `/v1/presence/${id}`);
      assertError(r, 404, 'not_visible');
    }
    await h.req(a, 'POST', `/v1/blocks/${b.publicId}`);
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.code, 'not_visible');
  });

  it('invisible shows as offline to others (state and profile flag), real state to self', async () => {
    const [a, b] = await h.friends('Uma', 'Vic');
    const r = await h.req(a, 'POST', '/v1/presence', { body: { state: 'invisible', richPresence: rich } });
    assert.equal(r.body.state, 'invisible');
    const seen = await h.req(b, 'GET', `/v1/presence/${a.publicId}`);
    assert.deepEqual(seen.body, { publicId: a.publicId, state: 'offline' });
    const f = (await h.req(b, 'GET', '/v1/friends')).body[0];
    assert.equal(f.presenceState, 'offline');
    assert.equal(f.richPresence, undefined);
    await h.req(a, 'POST', '/v1/presence', { body: { state: 'online' } });
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'online');
    await h.req(a, 'PATCH', '/v1/me/profile', { body: { invisible: true } });
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'offline');
    assert.equal((await h.req(a, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'online');
  });

  it('presence lapses to offline when the TTL passes without a refresh', async () => {
    const [a, b] = await h.friends('Wes', 'Xia');
    await h.req(a, 'POST', '/v1/presence', { body: { state: 'away' } });
    const ttl = await h.state.state.ttl(`presence:${a.id}`);
    assert.ok(ttl > 0 && ttl <= 5000, `ttl ${ttl}`);
    // Simulate the lapse: the entry expires in the store.
    await h.state.state.del(`presence:${a.id}`);
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'offline');
  });

  it('cross-game visibility: same game full, otherwise the stricter of both games', async () => {
    const reg = h.registry;
    const gFull = reg.addGame('full');
    const gFull2 = reg.addGame('full');
    const gSummary = reg.addGame('summary');
    const gIsolated = reg.addGame('isolated');
    const [owner, viewer] = await h.friends('Yan', 'Zoe');
    const set = await h.req(owner, 'POST', '/v1/presence', { body: { state: 'online', richPresence: rich }, game: gFull });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.richPresence, { ...rich, originGameId: gFull.gameId });
    const view = async (game?: typeof gFull) => {
      const p = await h.req(viewer, 'GET', `/v1/presence/${owner.publicId}`, { game });
      const f = (await h.req(viewer, 'GET', '/v1/friends', { game })).body[0];
      assert.deepEqual(p.body.richPresence, f.richPresence);
      return { rp: p.body.richPresence, sameGame: f.sameGame };
    };
    assert.deepEqual(await view(gFull), { rp: { ...rich, originGameId: gFull.gameId }, sameGame: true });
    assert.deepEqual(await view(gFull2), { rp: { ...rich, originGameId: gFull.gameId }, sameGame: false });
    assert.deepEqual(await view(gSummary), { rp: { activity: 'In lobby', joinable: false }, sameGame: false });
    assert.deepEqual(await view(gIsolated), { rp: undefined, sameGame: false });
    assert.deepEqual(await view(undefined), { rp: undefined, sameGame: false });
    // Set from a summary game: even a full viewer gets the summary.
    await h.req(owner, 'POST', '/v1/presence', { body: { richPresence: rich }, game: gSummary });
    assert.deepEqual((await view(gFull)).rp, { activity: 'In lobby', joinable: false });
    assert.deepEqual((await view(gSummary)).rp, { ...rich, originGameId: gSummary.gameId });
    // Set from an isolated game: only that game sees it.
    await h.req(owner, 'POST', '/v1/presence', { body: { richPresence: rich }, game: gIsolated });
    assert.deepEqual((await view(gFull)).rp, undefined);
    assert.equal((await view(gIsolated)).sameGame, true);
    // Events are built for the receiving socket's game context (what GET /v1/friends from there shows), not
    // for the game the recipient's own presence was set in (here the owner's game).
    await h.req(viewer, 'POST', '/v1/presence', { body: { state: 'online', richPresence: { activity: 'menu' } }, game: gFull });
    const rec = await h.events(viewer, { game: gIsolated });
    const recFull = await h.events(viewer, { game: gFull });
    await h.req(owner, 'POST', '/v1/presence', { body: { richPresence: rich }, game: gFull });
    const [ev] = await rec.next('friendPresenceChanged');
    assert.deepEqual(ev.data, { publicId: owner.publicId, state: 'online', sameGame: false });
    // A socket in the owner's game gets everything.
    await h.req(owner, 'POST', '/v1/presence', { body: { state: 'away' }, game: gFull });
    const [, ev2] = await recFull.next('friendPresenceChanged', 2);
    assert.deepEqual(ev2.data, { publicId: owner.publicId, state: 'away', richPresence: { ...rich, originGameId: gFull.gameId }, sameGame: true });
    await rec.stop();
    await recFull.stop();
    // Export applies the same filter.
    const exp = await h.req(viewer, 'GET', '/v1/me/export', { game: gSummary });
    assert.deepEqual(exp.body.friends[0].richPresence, { activity: 'In lobby', joinable: false });
    // Clearing rich presence.
    const cleared = await h.req(owner, 'POST', '/v1/presence', { body: { richPresence: null }, game: gFull });
    assert.equal(cleared.body.richPresence, undefined);
  });

  it('tenancy errors: bad pair 401, half a pair 400, registry down 503; results cached', async () => {
    const u = await h.user('Ten');
    const g = h.registry.addGame('full');
    assertError(await h.req(u, 'GET', '/v1/me', { game: { ...g, secret: 'wrong-secret' } }), 401, 'invalid_game_credentials');
    assertError(await h.req(u, 'GET', '/v1/me', { headers: { 'x-platform-game-key': g.key } }), 400, 'incomplete_game_credentials');
    const halfSecret = await h.req(u, 'GET', '/v1/me', { headers: { 'x-platform-game-secret': g.secret } });
    assert.equal(halfSecret.body.code, 'incomplete_game_credentials');
    const before = h.registry.calls;
    assert.equal((await h.req(u, 'GET', '/v1/me', { game: g })).status, 200);
    assert.equal((await h.req(u, 'GET', '/v1/me', { game: g })).status, 200);
    assert.equal(h.registry.calls, before + 1, 'second call served from the cache');
    const other = h.registry.addGame('summary');
    h.registry.setDown(true);
    const down = await h.req(u, 'GET', '/v1/me', { game: other });
    assertError(down, 503, 'registry_unavailable');
    h.registry.setDown(false);
    assert.equal((await h.req(u, 'GET', '/v1/me', { game: other })).status, 200);
  });
  it('client key (X-Platform-Client-Key): the game context of key + secret and nothing more; unknown 401, with key/secret 400, registry down 503', async () => {
    const [owner, viewer] = await h.friends('Cko', 'Ckv');
    const g = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const rp = { activity: 'Racing', joinable: true };
    const set = await h.req(owner, 'POST', '/v1/presence', { body: { state: 'online', richPresence: rp }, clientKey: g.clientKey });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.richPresence, { ...rp, originGameId: g.gameId });
    // The viewer with the client key sees exactly what key + secret show.
    const byClientKey = await h.req(viewer, 'GET', '/v1/friends', { clientKey: g.clientKey });
    const byPair = await h.req(viewer, 'GET', '/v1/friends', { game: g });
    assert.equal(byClientKey.status, 200);
    assert.deepEqual(byClientKey.body, byPair.body);
    assert.equal(byClientKey.body[0].sameGame, true);
    assert.deepEqual(byClientKey.body[0].richPresence, { ...rp, originGameId: g.gameId });
    assert.deepEqual((await h.req(viewer, 'GET', `/v1/presence/${owner.publicId}`, { clientKey: g.clientKey })).body.richPresence, { ...rp, originGameId: g.gameId });
    // Another (isolated) game's client key: another game context.
    const fromOther = (await h.req(viewer, 'GET', '/v1/friends', { clientKey: other.clientKey })).body[0];
    assert.equal(fromOther.sameGame, false);
    assert.equal(fromOther.richPresence, undefined);

    const expect = async (r: Promise<{ status: number; body: any }>, status: number, code: string) => {
      const got = await r;
      assert.equal(got.status, status, JSON.stringify(got.body));
      assert.equal(got.body.code, code);
    };
    // Unknown, empty or overlong keys; a game's API key or secret in its place.
    for (const clientKey of ['ck_unknown', '', 'ck_' + 'x'.repeat(300), g.key, g.secret]) {
      await expect(h.req(viewer, 'GET', '/v1/friends', { clientKey }), 401, 'invalid_client_key');
    }
    // One game context per request.
    await expect(h.req(viewer, 'GET', '/v1/friends', { clientKey: g.clientKey, game: g }), 400, 'ambiguous_game_credentials');
    await expect(h.req(viewer, 'GET', '/v1/friends', { clientKey: g.clientKey, headers: { 'x-platform-game-key': g.key } }), 400, 'ambiguous_game_credentials');
    // It authenticates no one, and is never the server-to-server API-key mode.
    await expect(h.req(null, 'GET', '/v1/friends', { clientKey: g.clientKey }), 401, 'unauthorized');
    await expect(h.req(null, 'GET', '/v1/friends', { headers: { 'x-api-key': g.clientKey, 'x-user-id': 'acct-any' } }), 401, 'unauthorized');
    await expect(h.req(null, 'GET', '/v1/friends', { clientKey: g.clientKey, headers: { 'x-user-id': 'acct-any' } }), 401, 'unauthorized');
    // Cached like the pair; the registry being down is 503 for a key not cached.
    const calls = h.registry.calls;
    assert.equal((await h.req(viewer, 'GET', '/v1/me', { clientKey: g.clientKey })).status, 200);
    assert.equal(h.registry.calls, calls, 'served from the cache');
    const third = h.registry.addGame('full');
    h.registry.setDown(true);
    try {
      await expect(h.req(viewer, 'GET', '/v1/me', { clientKey: third.clientKey }), 503, 'registry_unavailable');
    } finally {
      h.registry.setDown(false);
    }
    assert.equal((await h.req(viewer, 'GET', '/v1/me', { clientKey: third.clientKey })).status, 200);
  });
});

describe('notes', () => {
  const h = useHarness({}, { checkAccountIds: true });

  it('PUT, GET, clear with empty text (204), DELETE (204), author-private', async () => {
    const [a, b] = await h.users('Noter', 'Subject');
    assertError(await h.req(a, 'GET', `/v1/notes/${b.publicId}`), 404, 'no_note');
    const put = await h.req(a, 'PUT', `/v1/notes/${b.publicId}`, { body: { text: 'met in ranked' } });
    assert.equal(put.status, 200);
    assert.equal(put.body.subjectPublicId, b.publicId);
    assert.equal(put.body.subjectFullHandle, b.fullHandle);
    assert.equal(put.body.text, 'met in ranked');
    assert.ok(!Number.isNaN(Date.parse(put.body.updatedAt)));
    assert.equal((await h.req(a, 'GET', `/v1/notes/${b.publicId}`)).body.text, 'met in ranked');
    assert.equal((await h.req(b, 'GET', `/v1/notes/${b.publicId}`)).body.code, 'no_note', 'the subject cannot read it');
    const cleared = await h.req(a, 'PUT', `/v1/notes/${b.publicId}`, { body: { text: '' } });
    assert.equal(cleared.status, 204);
    assert.equal((await h.req(a, 'GET', `/v1/notes/${b.publicId}`)).status, 404);
    await h.req(a, 'PUT', `/v1/notes/${b.publicId}`, { body: { text: 'again' } });
    assert.equal((await h.req(a, 'DELETE', `/v1/notes/${b.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'DELETE', `/v1/notes/${b.publicId}`)).status, 204, 'idempotent');
    assert.equal((await h.req(a, 'GET', `/v1/notes/${b.publicId}`)).status, 404);
    const cases: [string, unknown, number, string][] = [
      [b.publicId, { text: 'x'.repeat(1001) }, 400, 'validation_failed'],
      [b.publicId, {}, 400, 'validation_failed'],
      [b.publicId, { text: 1 }, 400, 'validation_failed'],
      [b.publicId, { text: 'x', tag: 1 }, 400, 'validation_failed'],
      ['p_nobody', { text: 'x' }, 404, 'user_not_found'],
      [a.publicId, { text: 'x' }, 400, 'cannot_note_self'],
    ];
    for (const [id, body, status, code] of cases) {
      const r = await h.req(a, 'PUT', `/v1/notes/${id}`, { body });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.code, code, JSON.stringify(body));
    }
    // A note shows in the author's FriendSummary.
    await h.req(a, 'PUT', `/v1/notes/${b.publicId}`, { body: { text: 'teammate' } });
    await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`);
    assert.equal((await h.req(a, 'GET', '/v1/friends')).body[0].note, 'teammate');
    assert.equal((await h.req(b, 'GET', '/v1/friends')).body[0].note, undefined);
  });
});

describe('presence TTL', () => {
  const h = useHarness({ SOCIAL__PRESENCE__TTLSECONDS: '1' });

  it('without heartbeats a user reads as offline once the TTL lapses; heartbeat refreshes it', async () => {
    const { heartbeat } = await import('../src/index.js');
    const [a, b] = await h.friends('Lapse', 'Watcher');
    await h.req(a, 'POST', '/v1/presence', { body: { state: 'busy' } });
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'busy');
    assert.equal(await heartbeat(h.app.ctx, a.id), true);
    // Wait for the real expiry in the store (memory or Redis), then read through the API.
    while ((await h.state.state.ttl(`presence:${a.id}`)) !== -2) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await h.req(b, 'GET', `/v1/presence/${a.publicId}`)).body.state, 'offline');
    assert.equal((await h.req(b, 'GET', '/v1/friends')).body[0].presenceState, 'offline');
    assert.equal(await heartbeat(h.app.ctx, a.id), false, 'a heartbeat does not revive lapsed presence');
  });
});
