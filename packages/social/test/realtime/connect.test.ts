// The WebSocket handshake: 400 without an upgrade, refusals in band (an error frame, then close 4000 + status:
// 4401, 4400, 4503), token in the header, the bearer subprotocol or the query, API-key mode, tenancy (game key
// and secret, the client key in a header or the clientKey query), tokens kept out of logs, TLS, and shutdown.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOrCreateTls, tls13Options } from '@platform/kit';
import { captureLogs } from '@platform/kit/testing';
import { buildApp, readSocialConfig } from '../../src/index.js';
import { ISSUER, startHarness, type Harness } from '../support.js';
import { BROWSER, connect, listen, refused, type Rejected } from './support.js';

// One harness (database, stores, key set, registry) for both groups: a harness start is the slow part.
let h: Harness;
let url: { ws: string; http: string };
const logs = captureLogs();
before(async () => {
  h = await startHarness({ SOCIAL__AUTH__APIKEY: 'server-to-server-key-0123456789', LOG_LEVEL: 'info' }, { logStream: logs.stream });
  url = await listen(h.app);
});
after(async () => {
  await h.close();
});

describe('realtime: connecting', () => {

  it('GET /v1/ws without an upgrade is 400 upgrade_required, with or without credentials', async () => {
    const u = await h.user('Ann');
    for (const headers of [{}, { authorization: `Bearer ${u.token}` }] as Record<string, string>[]) {
      const r = await fetch(`${url.http}/v1/ws`, { headers });
      assert.equal(r.status, 400);
      assert.equal((await r.json()).code, 'upgrade_required');
    }
  });

  it('the spec’s statuses on the handshake for a client without Origin (401, 400); in band for a browser (4401, 4400)', async () => {
    const u = await h.user('Nob');
    // Not a browser (no Origin, as a game engine or `ws` sends): the HTTP status and the error body, no socket.
    for (const [p, status, code] of [
      [connect(url.ws, null), 401, 'unauthorized'],
      [connect(url.ws, 'not-a-token', { via: 'subprotocol' }), 401, 'unauthorized'],
      [connect(url.ws, u.token, { headers: { 'x-platform-game-key': 'k' } }), 400, 'incomplete_game_credentials'],
      [connect(`${url.ws}?clientKey=ck_unknown`, u.token), 401, 'invalid_client_key'],
    ] as const) {
      const err = await p.then(
        () => assert.fail(`${code}: the socket opened`),
        (e: Rejected) => e,
      );
      assert.deepEqual([err.status, err.body.code, err.headers['content-type']], [status, code, 'application/json; charset=utf-8']);
      assert.ok(err.body.requestId && err.body.message);
    }
    // A browser (Origin): it cannot read a refused handshake's status, so the socket opens to say why and closes.
    await refused(connect(url.ws, null, { headers: BROWSER }), 401, 'unauthorized');
    await refused(connect(url.ws, 'not-a-token', { via: 'subprotocol', headers: BROWSER }), 401, 'unauthorized');
    await refused(connect(url.ws, u.token, { headers: { ...BROWSER, 'x-platform-game-key': 'k' } }), 400, 'incomplete_game_credentials');
    await refused(connect(`${url.ws}?clientKey=ck_unknown`, u.token, { headers: BROWSER }), 401, 'invalid_client_key');
  });

  it('refuses missing, malformed, foreign and expired tokens with 401 unauthorized', async () => {
    await refused(connect(url.ws, null), 401, 'unauthorized');
    await refused(connect(url.ws, 'not-a-token'), 401, 'unauthorized');
    await refused(connect(url.ws, await h.keys.sign('acct-x', { key: 'other' })), 401, 'unauthorized');
    await refused(connect(url.ws, await h.keys.sign('acct-x', { expOffsetSec: -120 })), 401, 'unauthorized');
    await refused(connect(url.ws, await h.keys.sign('acct-x', { aud: 'someone-else' }), { via: 'query' }), 401, 'unauthorized');
    await refused(connect(url.ws, 'garbage', { via: 'subprotocol' }), 401, 'unauthorized');
    // A wrong API key, or an API key without X-User-Id.
    await refused(connect(url.ws, null, { headers: { 'x-api-key': 'wrong-key-wrong-key-wrong', 'x-user-id': 'acct-y' } }), 401, 'unauthorized');
    await refused(connect(url.ws, null, { headers: { 'x-api-key': 'server-to-server-key-0123456789' } }), 401, 'unauthorized');
  });

  it('accepts the token in the Authorization header, the bearer subprotocol (echoed) and the access_token query', async () => {
    const u = await h.user('Bea');
    for (const via of ['header', 'subprotocol', 'query'] as const) {
      const c = await connect(url.ws, u.token, { via });
      assert.equal(c.protocol, via === 'subprotocol' ? 'bearer' : '');
      c.send({ type: 'heartbeat' });
      assert.equal((await c.next('heartbeatAck')).data.presence, 'live');
      await c.close();
    }
    // JWT as well as PASETO.
    const jwtUser = await h.user('Cid', { format: 'jwt' });
    const c = await connect(url.ws, jwtUser.token, { via: 'subprotocol' });
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    await c.close();
  });

  it('API-key mode: X-Api-Key + X-User-Id act as that account', async () => {
    const c = await connect(url.ws, null, { headers: { 'x-api-key': 'server-to-server-key-0123456789', 'x-user-id': 'acct-server-side', 'x-user-handle': 'Bot' } });
    c.send({ type: 'presenceUpdate', state: 'away' });
    const upd = await c.next('presenceUpdated');
    assert.equal(upd.data.state, 'away');
    assert.match(upd.data.publicId, /^p_/);
    await c.close();
  });

  it('tenancy headers: a bad pair is 401 invalid_game_credentials, half a pair 400, a good pair sets the game', async () => {
    const u = await h.user('Dee');
    const game = h.registry.addGame('full');
    await refused(connect(url.ws, u.token, { headers: { 'x-platform-game-key': game.key, 'x-platform-game-secret': 'nope' } }), 401, 'invalid_game_credentials');
    await refused(connect(url.ws, u.token, { headers: { 'x-platform-game-key': game.key } }), 400, 'incomplete_game_credentials');
    const c = await connect(url.ws, u.token, { headers: { 'x-platform-game-key': game.key, 'x-platform-game-secret': game.secret } });
    c.send({ type: 'presenceUpdate', richPresence: { activity: 'Racing' } });
    const upd = await c.next('presenceUpdated');
    assert.deepEqual(upd.data.richPresence, { activity: 'Racing', joinable: false, originGameId: game.gameId });
    await c.close();
  });

  it('client key: the X-Platform-Client-Key header or the clientKey query set the game; unknown 4401, ambiguous 4400', async () => {
    const u = await h.user('Cliff');
    const game = h.registry.addGame('isolated');
    const key = encodeURIComponent(game.clientKey);
    for (const [target, headers] of [
      [`${url.ws}?clientKey=${key}`, {}],
      [url.ws, { 'x-platform-client-key': game.clientKey }],
      [`${url.ws}?clientKey=${key}`, { 'x-platform-client-key': game.clientKey }],
    ] as [string, Record<string, string>][]) {
      const c = await connect(target, u.token, { via: 'subprotocol', headers });
      c.send({ type: 'presenceUpdate', richPresence: { activity: 'Racing' } });
      assert.deepEqual((await c.next('presenceUpdated')).data.richPresence, { activity: 'Racing', joinable: false, originGameId: game.gameId });
      await c.close();
    }
    await refused(connect(`${url.ws}?clientKey=ck_unknown`, u.token, { via: 'subprotocol' }), 401, 'invalid_client_key');
    await refused(connect(url.ws, u.token, { headers: { 'x-platform-client-key': 'ck_unknown' } }), 401, 'invalid_client_key');
    const other = h.registry.addGame('isolated');
    await refused(connect(`${url.ws}?clientKey=${key}`, u.token, { headers: { 'x-platform-client-key': other.clientKey } }), 400, 'ambiguous_game_credentials');
    await refused(
      connect(`${url.ws}?clientKey=${key}`, u.token, { headers: { 'x-platform-game-key': game.key, 'x-platform-game-secret': game.secret } }),
      400,
      'ambiguous_game_credentials',
    );
    // Authentication first: a client key without a token is 4401 unauthorized.
    await refused(connect(`${url.ws}?clientKey=${key}`, null), 401, 'unauthorized');
  });

  it('an upgrade to another path is 404; the registry being down is 503', async () => {
    const u = await h.user('Eve');
    await refused(connect(url.ws.replace('/v1/ws', '/v1/other'), u.token), 404, 'route_not_found');
    const game = h.registry.addGame('full');
    h.registry.setDown(true);
    try {
      await refused(connect(url.ws, u.token, { headers: { 'x-platform-game-key': game.key, 'x-platform-game-secret': game.secret } }), 503, 'registry_unavailable');
    } finally {
      h.registry.setDown(false);
    }
  });

  it('tokens never reach the logs (query, subprotocol, header)', async () => {
    const u = await h.user('Fay');
    for (const via of ['header', 'subprotocol', 'query'] as const) {
      const c = await connect(url.ws, u.token, { via });
      await c.close();
    }
    await refused(connect(url.ws, u.token + 'x', { via: 'query' }), 401, 'unauthorized');
    const text = logs.text();
    assert.ok(text.includes('websocket upgrade'), 'the upgrade is logged');
    assert.ok(text.includes('access_token=[REDACTED]'), 'the query token is redacted');
    assert.ok(!text.includes(u.token), 'a token reached the logs');
    assert.ok(!text.includes(u.token.slice(10, 60)), 'part of a token reached the logs');
  });

  it('a token under a percent-encoded parameter name (read by the gateway as access_token) is redacted too', async () => {
    const [u, other] = await h.users('Gus', 'Hal');
    const t = encodeURIComponent(u.token);
    for (const query of [`access%5Ftoken=${t}`, `%61CCESS_TOKEN=x&%61ccess%5ftoken=${t}`, `x=1&access_token=${t}&access_token=${encodeURIComponent(other.token)}`]) {
      // The gateway decodes the name (URLSearchParams), so each of these upgrades with the token.
      const c = await connect(`${url.ws}?${query}`, null);
      await c.close();
    }
    const text = logs.text();
    assert.ok(text.includes('access%5Ftoken=[REDACTED]'), 'the encoded name is kept, its value redacted');
    for (const token of [u.token, other.token]) {
      assert.ok(!text.includes(token.slice(10, 60)) && !text.includes(encodeURIComponent(token).slice(10, 60)), 'a token reached the logs');
    }
  });
});

describe('realtime: TLS and shutdown', () => {

  it('works over TLS 1.3 (wss) with the same rules', async () => {
    const tls = await loadOrCreateTls({ dir: mkdtempSync(path.join(tmpdir(), 'social-ws-tls-')) });
    const config = readSocialConfig({ SOCIAL__AUTH__JWKSURL: h.keys.url, SOCIAL__AUTH__ISSUER: ISSUER, SOCIAL__REGISTRY__URL: h.registry.url, LOG_LEVEL: 'silent' });
    const app = await buildApp(config, { db: h.db.db, state: h.state.state, https: tls13Options(tls) });
    try {
      const url = await listen(app, true);
      const u = await h.user('Gus');
      await refused(connect(url.ws, null, { ca: tls.cert }), 401, 'unauthorized');
      const c = await connect(url.ws, u.token, { via: 'subprotocol', ca: tls.cert });
      assert.equal(c.protocol, 'bearer');
      c.send({ type: 'heartbeat' });
      await c.next('heartbeatAck');
      await c.close();
    } finally {
      await app.close();
    }
  });

  it('closing the service (SIGTERM path) closes sockets with 1001; a draining node refuses connections with 4503', async () => {
    const config = readSocialConfig({ SOCIAL__AUTH__JWKSURL: h.keys.url, SOCIAL__AUTH__ISSUER: ISSUER, SOCIAL__REGISTRY__URL: h.registry.url, SOCIAL__TLS__MODE: 'http', LOG_LEVEL: 'silent' });
    const app = await buildApp(config, { db: h.db.db, state: h.state.state });
    const url = await listen(app);
    const u = await h.user('Hal');
    const a = await connect(url.ws, u.token);
    const b = await connect(url.ws, u.token, { via: 'query' });
    a.send({ type: 'heartbeat' });
    await a.next('heartbeatAck');
    assert.equal(app.realtime.connections(), 2);
    const closing = app.realtime.drain();
    assert.equal((await a.closed).code, 1001);
    assert.equal((await b.closed).code, 1001);
    await closing;
    assert.equal((await refused(connect(url.ws, u.token), 503, 'shutting_down')).retryAfterSeconds, 1);
    assert.equal((await refused(connect(url.ws, u.token, { headers: BROWSER }), 503, 'shutting_down')).retryAfterSeconds, 1);
    assert.equal(app.realtime.connections(), 0);
    await app.close();

    // app.close() alone (what serve() runs on SIGTERM) drains too.
    const app2 = await buildApp(config, { db: h.db.db, state: h.state.state });
    const url2 = await listen(app2);
    const c = await connect(url2.ws, u.token);
    const closed = c.closed;
    await app2.close();
    assert.equal((await closed).code, 1001);
  });
});
