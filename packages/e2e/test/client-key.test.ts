// The game's client key across the real registry and social (docs/client-key.md): it gives a player's
// requests and sockets the game context the key and secret give (sameGame, rich presence), per socket;
// unknown, replaced and conflicting keys are refused over HTTP and, readably for a browser, on the socket.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { eventually, startPlatform, type Platform } from '../src/index.js';
import { PASSWORD, tag, type Game, type Socket } from './support/game-sockets.js';

describe('the client key end to end', () => {
  let p: Platform;
  let devToken: string;
  let g: Game;
  let h: Game;
  const players: { token: string; publicId: string }[] = [];

  /** A socket the way a browser opens it: token as the bearer subprotocol, client key in the query. */
  const open = (token: string, o: { clientKey?: string; headers?: Record<string, string> } = {}) => {
    const query = o.clientKey !== undefined ? `?clientKey=${encodeURIComponent(o.clientKey)}` : '';
    const ws = new WebSocket(`${p.socialUrl.replace(/^https/, 'wss')}/v1/ws${query}`, ['bearer', token], { headers: o.headers, ca: p.socialTls.cert });
    const frames: Socket['frames'] = [];
    ws.on('message', (m) => frames.push(JSON.parse(m.toString())));
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    return new Promise<Socket>((resolve, reject) => {
      ws.once('open', () => resolve({ ws, frames, closed }));
      ws.once('error', reject);
    });
  };
  /** Open and set up (a heartbeat answered). */
  const ready = async (token: string, o: { clientKey?: string; headers?: Record<string, string> } = {}) => {
    const s = await open(token, o);
    s.ws.send(JSON.stringify({ type: 'heartbeat' }));
    await eventually('heartbeatAck', async () => s.frames.find((f) => f.type === 'heartbeatAck'));
    return s;
  };
  const social = (token: string, method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}) =>
    p.social.call(method, path, { token, ...o });
  const ck = (game: Game) => ({ 'x-platform-client-key': game.clientKey });

  before(async () => {
    // No cache in social: a replaced key is refused at once (the cache time itself is tested in social).
    p = await startPlatform({ socialEnv: { SOCIAL_REGISTRY_CACHE_SECONDS: '0' } });
    const dev = await p.registry.call('POST', '/developers/register', { body: { Email: `ck.${tag}@e2e.test`, Password: PASSWORD, DisplayName: 'Studio' } });
    assert.equal(dev.status, 201);
    devToken = dev.body.Token;
    const game = async (name: string): Promise<Game> => {
      const r = await p.registry.call('POST', '/games', { token: devToken, body: { DisplayName: name } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.match(r.body.Game.ClientKey, /^ck_/);
      return {
        gameId: r.body.Game.GameId,
        clientKey: r.body.Game.ClientKey,
        pair: { 'x-platform-game-key': r.body.Game.ApiKey, 'x-platform-game-secret': r.body.ApiSecret },
      };
    };
    // Both isolated (the default): rich presence shows only within the game.
    g = await game('Kart Racer');
    h = await game('Puzzle');
    for (const name of ['Ada', 'Bob']) {
      const guest = await p.auth.call('POST', '/guest', { body: { device_fingerprint: `${name}-${tag}` } });
      assert.equal(guest.status, 200);
      const me = await social(guest.body.access_token, 'POST', '/v1/me/name', { body: { displayName: `${name} ${tag}` }, headers: ck(g) });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      players.push({ token: guest.body.access_token, publicId: me.body.publicId });
    }
    const [ada, bob] = players;
    assert.equal((await social(ada.token, 'POST', '/v1/friends/requests', { body: { toPublicId: bob.publicId }, headers: ck(g) })).status, 201);
    assert.equal((await social(bob.token, 'POST', `/v1/friends/requests/${ada.publicId}/accept`, { headers: ck(g) })).status, 200);
  });
  after(() => p?.close());

  it('over HTTP the client key gives the game context of key + secret: sameGame and the rich presence', async () => {
    const [ada, bob] = players;
    const set = await social(ada.token, 'POST', '/v1/presence', { body: { state: 'online', richPresence: { activity: 'Lap 2', joinable: true } }, headers: ck(g) });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.richPresence.originGameId, g.gameId);
    const byKey = await social(bob.token, 'GET', '/v1/friends', { headers: ck(g) });
    const byPair = await social(bob.token, 'GET', '/v1/friends', { headers: g.pair });
    assert.deepEqual(byKey.body, byPair.body);
    assert.equal(byKey.body[0].sameGame, true);
    assert.equal(byKey.body[0].richPresence.activity, 'Lap 2');
    const fromH = await social(bob.token, 'GET', '/v1/friends', { headers: ck(h) });
    assert.equal(fromH.body[0].sameGame, false);
    assert.equal(fromH.body[0].richPresence, undefined);
  });

  it('unknown keys are 401 invalid_client_key, a key with the game key and secret 400, and no token is still 401', async () => {
    const [, bob] = players;
    const unknown = await social(bob.token, 'GET', '/v1/friends', { headers: { 'x-platform-client-key': 'ck_not_a_key' } });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, 'invalid_client_key');
    const both = await social(bob.token, 'GET', '/v1/friends', { headers: { ...ck(g), ...g.pair } });
    assert.equal(both.status, 400);
    assert.equal(both.body.code, 'ambiguous_game_credentials');
    const anonymous = await p.social.call('GET', '/v1/friends', { headers: ck(g) });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'unauthorized');
    // The registry takes it for what it is: no game secret.
    const asApiKey = await p.registry.call('POST', '/auth/validate-key', { body: { ApiKey: g.clientKey, ApiSecret: g.clientKey } });
    assert.equal(asApiKey.status, 401);
  });

  it('sockets: each gets the view of its own game (client key in the query or the header); a bad key is closed with 4401', async () => {
    const [ada, bob] = players;
    const bobInG = await ready(bob.token, { clientKey: g.clientKey });
    const bobInH = await ready(bob.token, { headers: ck(h) });
    const adaInG = await ready(ada.token, { clientKey: g.clientKey });
    try {
      adaInG.ws.send(JSON.stringify({ type: 'presenceUpdate', state: 'busy', richPresence: { activity: 'Final lap', joinable: false } }));
      const seen = (s: Socket) =>
        eventually('friendPresenceChanged', async () => s.frames.find((f) => f.type === 'friendPresenceChanged' && f.data.publicId === ada.publicId && f.data.state === 'busy'));
      const inG = await seen(bobInG);
      assert.equal(inG.data.sameGame, true);
      assert.deepEqual(inG.data.richPresence, { activity: 'Final lap', joinable: false, originGameId: g.gameId });
      // What Bob reads over HTTP from G, too.
      const listed = (await social(bob.token, 'GET', '/v1/friends', { headers: ck(g) })).body[0];
      assert.deepEqual({ richPresence: listed.richPresence, sameGame: listed.sameGame }, { richPresence: inG.data.richPresence, sameGame: true });
      const inH = await seen(bobInH);
      assert.deepEqual(inH.data, { publicId: ada.publicId, state: 'busy', sameGame: false });
    } finally {
      for (const s of [bobInG, bobInH, adaInG]) s.ws.close();
      await Promise.all([bobInG.closed, bobInH.closed, adaInG.closed]);
    }
    // A refusal a browser can read (its handshake carries Origin): an error frame, then close 4401 with the code as reason.
    const bad = await open(bob.token, { clientKey: 'ck_not_a_key', headers: { origin: 'https://game.example' } });
    assert.deepEqual(await bad.closed, { code: 4401, reason: 'invalid_client_key' });
    assert.deepEqual(bad.frames.map((f) => [f.type, f.data.code]), [['error', 'invalid_client_key']]);
  });

  it('a replaced client key is refused (after social’s cache time, 0 here); the new one works', async () => {
    const [ada, bob] = players;
    const old = g.clientKey;
    const r = await p.registry.call('POST', `/games/${g.gameId}/regenerate-client-key`, { token: devToken });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    g = { ...g, clientKey: r.body.ClientKey };
    assert.notEqual(g.clientKey, old);
    const refused = await social(bob.token, 'GET', '/v1/friends', { headers: { 'x-platform-client-key': old } });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'invalid_client_key');
    const socket = await open(bob.token, { clientKey: old, headers: { origin: 'https://game.example' } });
    assert.equal((await socket.closed).code, 4401);
    // Without Origin (not a browser) the handshake itself answers 401.
    await assert.rejects(open(bob.token, { clientKey: old }), /Unexpected server response: 401/);
    assert.equal((await social(ada.token, 'POST', '/v1/presence', { body: { state: 'online', richPresence: { activity: 'Podium' } }, headers: ck(g) })).status, 200);
    const fresh = await social(bob.token, 'GET', '/v1/friends', { headers: ck(g) });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body[0].sameGame, true);
    assert.equal(fresh.body[0].richPresence.activity, 'Podium');
  });
});
