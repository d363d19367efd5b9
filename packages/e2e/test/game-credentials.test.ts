// Game credentials revoked at once (issue 18, docs/registry.md "Credential notices"): the real registry and two
// social nodes (real PostgreSQL and Redis when DATABASE_URL/REDIS_URL are set; their own connections), social's
// registry cache at its default 10 s. After regenerate-key, regenerate-client-key and DELETE /games/{id}, both
// nodes refuse the old credentials within 1 s (a generous bound; the figure is in the bench) over HTTP and on new
// sockets, the new ones work, and sockets opened with the old ones get an error frame and close 4005.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { eventually, startPlatform, type Platform } from '../src/index.js';
import { PASSWORD, tag, type Game, type Socket } from './support/game-sockets.js';

const BOUND_MS = 1000;

describe('game credentials revoked at once on every social node', () => {
  let p: Platform;
  let devToken: string;
  let token: string;
  const sockets: Socket[] = [];

  /** A socket on social node `node`: the token as the bearer subprotocol, game credentials as `o` says. */
  const open = (node: number, o: { clientKey?: string; headers?: Record<string, string> } = {}) => {
    const query = o.clientKey !== undefined ? `?clientKey=${encodeURIComponent(o.clientKey)}` : '';
    const url = `${p.socialNodes[node].url.replace(/^https/, 'wss')}/v1/ws${query}`;
    const ws = new WebSocket(url, ['bearer', token], { headers: o.headers, ca: p.socialTls.cert });
    const frames: Socket['frames'] = [];
    ws.on('message', (m) => frames.push(JSON.parse(m.toString())));
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    return new Promise<Socket>((resolve, reject) => {
      ws.once('open', () => {
        sockets.push({ ws, frames, closed });
        resolve({ ws, frames, closed });
      });
      ws.once('error', reject);
    });
  };
  /** Open and set up (a heartbeat answered). */
  const ready = async (node: number, o: { clientKey?: string; headers?: Record<string, string> } = {}) => {
    const s = await open(node, o);
    s.ws.send(JSON.stringify({ type: 'heartbeat' }));
    await eventually('heartbeatAck', async () => s.frames.find((f) => f.type === 'heartbeatAck') ?? (s.ws.readyState > 1 ? null : undefined));
    assert.equal(s.ws.readyState, WebSocket.OPEN, JSON.stringify(s.frames));
    return s;
  };
  /** Still open and answering. */
  const alive = async (s: Socket) => {
    const acks = s.frames.filter((f) => f.type === 'heartbeatAck').length;
    s.ws.send(JSON.stringify({ type: 'heartbeat' }));
    await eventually('another heartbeatAck', async () => (s.frames.filter((f) => f.type === 'heartbeatAck').length > acks ? true : undefined));
  };
  const friends = (node: number, headers: Record<string, string>) => p.socialNodes[node].call('GET', '/v1/friends', { token, headers });
  const nodes = [0, 1];

  /** Polls until `check` holds on every node; fails when that took longer than the bound. Returns the time taken. */
  const withinBound = async (what: string, since: number, check: (node: number) => Promise<boolean>) => {
    for (const node of nodes) {
      while (!(await check(node))) {
        assert.ok(Date.now() - since < BOUND_MS, `${what} on node ${node + 1} took longer than ${BOUND_MS} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return Date.now() - since;
  };
  const refusedOverHttp = (headers: Record<string, string>, code: string) => async (node: number) => {
    const r = await friends(node, headers);
    assert.ok(r.status === 200 || r.status === 401, JSON.stringify(r.body));
    return r.status === 401 && r.body.code === code;
  };
  /** New sockets with these credentials are refused on both nodes: to a browser (Origin) an error frame, then 4401 with the code. */
  const refusedSockets = async (o: { clientKey?: string; headers?: Record<string, string> }, code: string) => {
    for (const node of nodes) {
      const s = await open(node, { ...o, headers: { ...o.headers, origin: 'https://game.example' } });
      assert.deepEqual(await s.closed, { code: 4401, reason: code });
      assert.deepEqual(s.frames.map((f) => [f.type, f.data.code]), [['error', code]]);
    }
  };
  /** An open socket told why (error frame game_credentials_revoked) and closed with 4005. */
  const revoked = async (s: Socket) => {
    assert.deepEqual(await s.closed, { code: 4005, reason: 'game_credentials_revoked' });
    assert.deepEqual(s.frames.at(-1)?.type, 'error');
    assert.equal(s.frames.at(-1)?.data.code, 'game_credentials_revoked');
  };

  const newGame = async (name: string): Promise<Game> => {
    const r = await p.registry.call('POST', '/games', { token: devToken, body: { DisplayName: name } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return { gameId: r.body.Game.GameId, clientKey: r.body.Game.ClientKey, pair: { 'x-platform-game-key': r.body.Game.ApiKey, 'x-platform-game-secret': r.body.ApiSecret } };
  };
  const ck = (clientKey: string) => ({ 'x-platform-client-key': clientKey });

  before(async () => {
    // Social's registry cache keeps its default (10 s): only the notice can make the refusal prompt.
    p = await startPlatform({ socialNodes: 2 });
    const dev = await p.registry.call('POST', '/developers/register', { body: { Email: `creds.${tag}@e2e.test`, Password: PASSWORD, DisplayName: 'Studio' } });
    assert.equal(dev.status, 201);
    devToken = dev.body.Token;
    const guest = await p.auth.call('POST', '/guest', { body: { device_fingerprint: `creds-${tag}` } });
    assert.equal(guest.status, 200);
    token = guest.body.access_token;
  });
  after(async () => {
    for (const s of sockets) s.ws.terminate();
    await p?.close();
  });

  it('regenerate-key: the old secret is refused by both nodes within 1 s over HTTP and on new sockets; open sockets close 4005', async () => {
    const g = await newGame('Kart Racer');
    // Cached on both nodes, and a socket on each with the pair, one with the client key (it stays).
    for (const node of nodes) assert.equal((await friends(node, g.pair)).status, 200);
    const withPair = [await ready(0, { headers: g.pair }), await ready(1, { headers: g.pair })];
    const withClientKey = await ready(1, { clientKey: g.clientKey });

    const r = await p.registry.call('POST', `/games/${g.gameId}/regenerate-key`, { token: devToken });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const since = Date.now();
    const fresh = { ...g.pair, 'x-platform-game-secret': r.body.ApiSecret };
    await withinBound('refusing the old secret', since, refusedOverHttp(g.pair, 'invalid_game_credentials'));
    for (const s of withPair) await revoked(s);
    await refusedSockets({ headers: g.pair }, 'invalid_game_credentials');
    // The new secret and the client key work on both nodes.
    for (const node of nodes) {
      assert.equal((await friends(node, fresh)).status, 200);
      assert.equal((await friends(node, ck(g.clientKey))).status, 200);
      await ready(node, { headers: fresh });
    }
    await alive(withClientKey);
  });

  it('regenerate-client-key: the old key is refused by both nodes within 1 s; its sockets close 4005, the pair’s stay', async () => {
    const g = await newGame('Puzzle');
    for (const node of nodes) assert.equal((await friends(node, ck(g.clientKey))).status, 200);
    const withKey = [await ready(0, { clientKey: g.clientKey }), await ready(1, { headers: ck(g.clientKey) })];
    const withPair = await ready(0, { headers: g.pair });

    const r = await p.registry.call('POST', `/games/${g.gameId}/regenerate-client-key`, { token: devToken });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const since = Date.now();
    await withinBound('refusing the old client key', since, refusedOverHttp(ck(g.clientKey), 'invalid_client_key'));
    for (const s of withKey) await revoked(s);
    await refusedSockets({ clientKey: g.clientKey }, 'invalid_client_key');
    for (const node of nodes) {
      assert.equal((await friends(node, ck(r.body.ClientKey))).status, 200);
      await ready(node, { clientKey: r.body.ClientKey });
    }
    await alive(withPair);
  });

  it('DELETE /games/{id}: key + secret and client key are refused by both nodes within 1 s; every socket of the game closes 4005', async () => {
    const g = await newGame('Deleted');
    const other = await newGame('Kept');
    for (const node of nodes) {
      assert.equal((await friends(node, g.pair)).status, 200);
      assert.equal((await friends(node, ck(g.clientKey))).status, 200);
    }
    const ofGame = [await ready(0, { headers: g.pair }), await ready(1, { clientKey: g.clientKey }), await ready(1, { headers: g.pair })];
    const ofOther = await ready(1, { clientKey: other.clientKey });

    const r = await p.registry.call('DELETE', `/games/${g.gameId}`, { token: devToken });
    assert.equal(r.status, 204);
    const since = Date.now();
    await withinBound('refusing the deleted game’s pair', since, refusedOverHttp(g.pair, 'invalid_game_credentials'));
    await withinBound('refusing the deleted game’s client key', since, refusedOverHttp(ck(g.clientKey), 'invalid_client_key'));
    for (const s of ofGame) await revoked(s);
    await refusedSockets({ headers: g.pair }, 'invalid_game_credentials');
    await refusedSockets({ clientKey: g.clientKey }, 'invalid_client_key');
    await alive(ofOther);
    for (const node of nodes) assert.equal((await friends(node, ck(other.clientKey))).status, 200);
  });

  it('a visibility change reaches both nodes at once (the cached game context is dropped), sockets stay', async () => {
    const g = await newGame('Visible');
    const h = await newGame('Viewer');
    // The player's rich presence set in G, seen from H by their own… the owner sees everything; use a friend.
    const friendGuest = await p.auth.call('POST', '/guest', { body: { device_fingerprint: `creds-friend-${tag}` } });
    const friendToken = friendGuest.body.access_token as string;
    const me = await p.social.call('GET', '/v1/me', { token });
    const req = await p.social.call('POST', '/v1/friends/requests', { token: friendToken, body: { toPublicId: me.body.publicId } });
    assert.equal(req.status, 201, JSON.stringify(req.body));
    const friendMe = await p.social.call('GET', '/v1/me', { token: friendToken });
    assert.equal((await p.social.call('POST', `/v1/friends/requests/${friendMe.body.publicId}/accept`, { token })).status, 200);
    const set = await p.social.call('POST', '/v1/presence', { token, headers: g.pair, body: { state: 'online', richPresence: { activity: 'Boss fight' } } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const seenFromH = async (node: number) => {
      const r = await p.socialNodes[node].call('GET', '/v1/friends', { token: friendToken, headers: h.pair });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body[0].richPresence;
    };
    for (const node of nodes) assert.equal(await seenFromH(node), undefined, 'isolated games share nothing');
    const socket = await ready(0, { headers: h.pair });
    for (const game of [g, h]) {
      const r = await p.registry.call('PATCH', `/games/${game.gameId}`, { token: devToken, body: { CrossGameVisibility: 'full' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const since = Date.now();
    // The presence stored the origin game's setting when set: set it again, then H reads it as full on both nodes.
    assert.equal((await p.social.call('POST', '/v1/presence', { token, headers: g.pair, body: { richPresence: { activity: 'Boss fight' } } })).status, 200);
    await withinBound('the new visibility', since, async (node) => (await seenFromH(node))?.activity === 'Boss fight');
    await alive(socket);
  });
});
