// The registry's game credential notices (docs/registry.md, "Credential notices"): one on the bus for every
// change that revokes a credential or changes the game context it gives, after the change, with exactly what a
// subscriber needs to tell which credentials it revokes (kit revokesCredential) and nothing secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  GAME_CREDENTIALS_CHANNEL,
  gameSecretDigest,
  parseGameCredentialsNotice,
  revokesCredential,
  type GameCredentialRef,
  type GameCredentialsNotice,
  type StateStore,
} from '@platform/kit';
import { captureLogs, testStateStore, type TestStateStore } from '@platform/kit/testing';
import { bearer, createGame, harness, loginAdmin, registerDeveloper, type Dev, type Harness } from './helpers.js';

describe('game credential notices', () => {
  let h: Harness;
  let bus: TestStateStore;
  let dev: Dev;
  const notices: GameCredentialsNotice[] = [];
  const raw: string[] = [];
  let waiters: (() => void)[] = [];

  /** The next `n` notices (a marker published after the call proves nothing else is on its way). */
  const next = async (n: number): Promise<GameCredentialsNotice[]> => {
    const marker = JSON.stringify({ marker: Math.random() });
    const seen = new Promise<void>((resolve) => {
      const check = () => (raw.includes(marker) ? resolve() : waiters.push(check));
      check();
    });
    await bus.state.publish(GAME_CREDENTIALS_CHANNEL, marker);
    await seen;
    raw.length = 0;
    assert.equal(notices.length, n, JSON.stringify(notices));
    return notices.splice(0);
  };
  const call = (method: 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
    h.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

  before(async () => {
    // The notices go to a bus of their own (npm start's shared store; production: the one Redis).
    bus = await testStateStore();
    h = await harness({}, { bus: bus.state as StateStore });
    dev = await registerDeveloper(h.app);
    await bus.state.subscribe(GAME_CREDENTIALS_CHANNEL, (m) => {
      raw.push(m);
      const n = parseGameCredentialsNotice(m);
      if (n) notices.push(n);
      const w = waiters;
      waiters = [];
      w.forEach((f) => f());
    });
  });
  after(async () => {
    await h.drop();
    await bus.drop();
  });

  it('regenerate-key names the replaced secret by its digest; only credentials with that secret are revoked', async () => {
    const g = await createGame(h.app, dev.token);
    const r = await call('POST', `/games/${g.gameId}/regenerate-key`, dev.token);
    assert.equal(r.statusCode, 200);
    const [n] = await next(1);
    assert.deepEqual({ ...n, at: undefined }, { change: 'secret_replaced', gameId: g.gameId, apiKey: g.apiKey, revokedSecretDigest: gameSecretDigest(g.apiSecret), at: undefined });
    assert.ok(Math.abs(Date.parse(n.at) - Date.now()) < 60_000);
    const pair = (secret: string): GameCredentialRef => ({ gameId: g.gameId, kind: 'pair', apiKey: g.apiKey, secretDigest: gameSecretDigest(secret) });
    assert.equal(revokesCredential(n, pair(g.apiSecret)), true);
    assert.equal(revokesCredential(n, pair(r.json().ApiSecret)), false, 'the new secret');
    assert.equal(revokesCredential(n, { gameId: g.gameId, kind: 'client', clientKey: g.clientKey }), false, 'the client key');
    // Nothing secret travels: neither secret, nor the new secret's digest.
    const text = JSON.stringify(n);
    for (const s of [g.apiSecret, r.json().ApiSecret, gameSecretDigest(r.json().ApiSecret)]) assert.ok(!text.includes(s));
    // Twice in a row: the second names the first new secret.
    await call('POST', `/games/${g.gameId}/regenerate-key`, dev.token);
    assert.equal((await next(1))[0].revokedSecretDigest, gameSecretDigest(r.json().ApiSecret));
  });

  it('regenerate-client-key names the replaced key; DELETE revokes every credential of the game', async () => {
    const g = await createGame(h.app, dev.token);
    const r = await call('POST', `/games/${g.gameId}/regenerate-client-key`, dev.token);
    assert.equal(r.statusCode, 200);
    const [n] = await next(1);
    assert.deepEqual({ ...n, at: undefined }, { change: 'client_key_replaced', gameId: g.gameId, apiKey: g.apiKey, clientKey: g.clientKey, at: undefined });
    assert.equal(revokesCredential(n, { gameId: g.gameId, kind: 'client', clientKey: g.clientKey }), true);
    assert.equal(revokesCredential(n, { gameId: g.gameId, kind: 'client', clientKey: r.json().ClientKey }), false);

    assert.equal((await call('DELETE', `/games/${g.gameId}`, dev.token)).statusCode, 204);
    const [d] = await next(1);
    assert.deepEqual({ ...d, at: undefined }, { change: 'game_deleted', gameId: g.gameId, apiKey: g.apiKey, clientKey: r.json().ClientKey, at: undefined });
    for (const cred of [
      { gameId: g.gameId, kind: 'client', clientKey: 'ck_any' },
      { gameId: g.gameId, kind: 'pair', apiKey: g.apiKey, secretDigest: 'any' },
    ] as GameCredentialRef[]) {
      assert.equal(revokesCredential(d, cred), true);
      assert.equal(revokesCredential(d, { ...cred, gameId: 'another-game' }), false);
    }
  });

  it('a visibility change is announced (it revokes nothing); other edits, refusals and 404s announce nothing', async () => {
    const g = await createGame(h.app, dev.token);
    assert.equal((await call('PATCH', `/games/${g.gameId}`, dev.token, { DisplayName: 'Renamed', Settings: { a: 1 } })).statusCode, 200);
    await next(0);
    assert.equal((await call('PATCH', `/games/${g.gameId}`, dev.token, { CrossGameVisibility: 'summary' })).statusCode, 200);
    const [n] = await next(1);
    assert.deepEqual({ ...n, at: undefined }, { change: 'visibility_changed', gameId: g.gameId, apiKey: g.apiKey, clientKey: g.clientKey, at: undefined });
    assert.equal(revokesCredential(n, { gameId: g.gameId, kind: 'client', clientKey: g.clientKey }), false);
    // A change of the game's guest restrictions is announced the same way (social's cached game context is stale).
    assert.equal((await call('PATCH', `/games/${g.gameId}`, dev.token, { GuestRestricted: ['reports'] })).statusCode, 200);
    const [gr] = await next(1);
    assert.deepEqual({ ...gr, at: undefined }, { change: 'visibility_changed', gameId: g.gameId, apiKey: g.apiKey, clientKey: g.clientKey, at: undefined });
    // Another developer's game: 404, and no notice.
    const stranger = await registerDeveloper(h.app);
    for (const [method, url] of [
      ['POST', `/games/${g.gameId}/regenerate-key`],
      ['POST', `/games/${g.gameId}/regenerate-client-key`],
      ['DELETE', `/games/${g.gameId}`],
    ] as const) {
      assert.equal((await call(method, url, stranger.token)).statusCode, 404);
    }
    await next(0);
    // The super-admin's changes are announced like the owner's.
    const admin = await loginAdmin(h.app);
    assert.equal((await call('POST', `/games/${g.gameId}/regenerate-client-key`, admin.token)).statusCode, 200);
    assert.equal((await next(1))[0].change, 'client_key_replaced');
  });

  it('a bus that is down does not fail the change: the new secret is shown, the old refused here, the failure logged', async () => {
    // A store whose publishes fail (Redis unreachable; the memory store cannot fail).
    const down: StateStore = { ...bus.state, publish: () => Promise.reject(new Error('connection refused')) };
    const logs = captureLogs();
    const node = await h.build({ logLevel: 'info' }, { bus: down, logStream: logs.stream });
    const g = await createGame(node, dev.token);
    const r = await node.inject({ method: 'POST', url: `/games/${g.gameId}/regenerate-key`, headers: bearer(dev.token) });
    assert.equal(r.statusCode, 200, r.body);
    const validate = (secret: string) => node.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: g.apiKey, ApiSecret: secret } });
    assert.equal((await validate(g.apiSecret)).statusCode, 401);
    assert.equal((await validate(r.json().ApiSecret)).statusCode, 200);
    const line = logs.lines().find((l) => l.msg?.startsWith('game credentials change not announced'));
    assert.ok(line, logs.text());
    assert.deepEqual([line.gameId, line.change], [g.gameId, 'secret_replaced']);
    for (const secret of [g.apiSecret, r.json().ApiSecret]) assert.ok(!logs.text().includes(secret), 'no secret in the log');
  });

  it('a subscriber reads only well-formed notices of the known kinds', () => {
    const ok = { change: 'game_deleted', gameId: 'g', apiKey: 'gk_x', at: new Date().toISOString() };
    assert.ok(parseGameCredentialsNotice(JSON.stringify(ok)));
    for (const bad of ['', 'null', '[]', '{', JSON.stringify({ ...ok, change: 'something_new' }), JSON.stringify({ ...ok, gameId: 1 }),
      JSON.stringify({ ...ok, change: 'secret_replaced' }), JSON.stringify({ ...ok, change: 'client_key_replaced' })]) {
      assert.equal(parseGameCredentialsNotice(bad), undefined, bad);
    }
  });
});
