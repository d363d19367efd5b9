// npm start's embedded defaults (one process, memory state, one PGlite): the registry's game credential notices
// reach social through the memory bus the host shares between them (docs/registry.md, "Credential notices"), so a
// replaced secret or client key and a deleted game's credentials are refused within 1 s (social's cache keeps its
// default 10 s) and a socket opened with a replaced client key closes with 4005. Free ports throughout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { requestJson } from '@platform/kit';
import { startHost, type RunningHost } from '../src/index.js';
import { embeddedHostEnv } from './support.js';

const BOUND_MS = 1000;

describe('npm start (embedded): game credentials revoked at once', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-game-credentials-'));
  let host: RunningHost;
  let ca: string;
  let urls: { auth: string; registry: string; social: string };
  let devToken: string;
  let token: string;
  const call = (url: string, method: string, p: string, o: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) =>
    requestJson(method, url + p, { body: o.body, headers: { ...o.headers, ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) }, ca, timeoutMs: 30_000 });
  const friends = (headers: Record<string, string>) => call(urls.social, 'GET', '/v1/friends', { token, headers });
  /** Polls until social refuses these credentials with `code`; fails past the bound. */
  const refusedWithin = async (headers: Record<string, string>, code: string, since: number) => {
    for (;;) {
      const r = await friends(headers);
      if (r.status === 401 && r.body.code === code) return;
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(Date.now() - since < BOUND_MS, `still accepted after ${BOUND_MS} ms`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };

  before(async () => {
    const { env, authPort, socialPort, registryPort } = await embeddedHostEnv(dir, 'host-credentials-admin');
    host = await startHost(env, { registryPort, log: () => {} });
    ca = readFileSync(host.caFile, 'utf8');
    urls = { auth: `https://127.0.0.1:${authPort}`, registry: `http://127.0.0.1:${registryPort}`, social: `https://127.0.0.1:${socialPort}` };
    const admin = await call(urls.registry, 'POST', '/developers/login', { body: { Email: 'admin@localhost', Password: 'host-credentials-admin' } });
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    devToken = admin.body.Token;
    const guest = await call(urls.auth, 'POST', '/guest', { body: { device_fingerprint: 'host-credentials-device' } });
    assert.equal(guest.status, 200, JSON.stringify(guest.body));
    token = guest.body.access_token;
  });
  after(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('regenerate-key, regenerate-client-key (its socket closes 4005) and delete are refused by social within 1 s', async () => {
    const game = await call(urls.registry, 'POST', '/games', { token: devToken, body: { DisplayName: 'Embedded' } });
    assert.equal(game.status, 201, JSON.stringify(game.body));
    const { GameId: gameId, ApiKey: apiKey, ClientKey: clientKey } = game.body.Game;
    const pair = { 'x-platform-game-key': apiKey, 'x-platform-game-secret': game.body.ApiSecret };
    assert.equal((await friends(pair)).status, 200);
    assert.equal((await friends({ 'x-platform-client-key': clientKey })).status, 200);

    const regenerated = await call(urls.registry, 'POST', `/games/${gameId}/regenerate-key`, { token: devToken });
    assert.equal(regenerated.status, 200);
    await refusedWithin(pair, 'invalid_game_credentials', Date.now());
    const fresh = { ...pair, 'x-platform-game-secret': regenerated.body.ApiSecret };
    assert.equal((await friends(fresh)).status, 200);

    // A socket with the client key (as a browser opens it), set up before the rotation.
    const ws = new WebSocket(`${urls.social.replace(/^https/, 'wss')}/v1/ws?clientKey=${encodeURIComponent(clientKey)}`, ['bearer', token], { ca });
    const frames: { type: string; data: any }[] = [];
    ws.on('message', (m) => frames.push(JSON.parse(m.toString())));
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'heartbeat' }));
    while (!frames.some((f) => f.type === 'heartbeatAck')) await new Promise((r) => setTimeout(r, 20));

    const rotated = await call(urls.registry, 'POST', `/games/${gameId}/regenerate-client-key`, { token: devToken });
    assert.equal(rotated.status, 200);
    await refusedWithin({ 'x-platform-client-key': clientKey }, 'invalid_client_key', Date.now());
    assert.deepEqual(await closed, { code: 4005, reason: 'game_credentials_revoked' });
    assert.equal(frames.at(-1)?.data.code, 'game_credentials_revoked');
    assert.equal((await friends({ 'x-platform-client-key': rotated.body.ClientKey })).status, 200);

    assert.equal((await call(urls.registry, 'DELETE', `/games/${gameId}`, { token: devToken })).status, 204);
    const since = Date.now();
    await refusedWithin(fresh, 'invalid_game_credentials', since);
    await refusedWithin({ 'x-platform-client-key': rotated.body.ClientKey }, 'invalid_client_key', since);
  });
});
