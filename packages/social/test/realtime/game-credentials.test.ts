// The registry's game credential notices on social's sockets (docs/social-realtime.md, close 4005), the notice
// published on the state store as the registry does (the real registry: e2e game-credentials.test.ts): sockets
// opened with a revoked credential get an error frame and close 4005 on every node, others stay; a socket whose
// upgrade checked its credential just before the notice is refused like a new one; unreadable notices change nothing.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeGameCredentialsNotice, GAME_CREDENTIALS_CHANNEL, gameSecretDigest, type GameCredentialsNotice } from '@platform/kit';
import { type Game, type TestUser } from '../support.js';
import { connect, refused, type Client, realtimeSuite } from './support.js';

describe('realtime: revoked game credentials', () => {
  const { h, nodeA, nodeB, clients, ready: setUp } = realtimeSuite({}, { second: {} });
  let u: TestUser;
  const pair = (g: Game) => ({ 'x-platform-game-key': g.key, 'x-platform-game-secret': g.secret });
  const ready = async (url: string, headers: Record<string, string>) => {
    return setUp(await connect(url, u.token, { headers }));
  };
  /** Still open and answering (meaningful once a later notice was seen handled on the socket's node). */
  const alive = async (c: Client) => {
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
  };
  const publish = (n: Omit<GameCredentialsNotice, 'at'>) =>
    h.state.state.publish(GAME_CREDENTIALS_CHANNEL, encodeGameCredentialsNotice({ ...n, at: new Date().toISOString() }));
  const revoked = async (c: Client) => {
    assert.deepEqual(await c.closed, { code: 4005, reason: 'game_credentials_revoked' });
    assert.equal(c.frames.at(-1)?.type, 'error');
    assert.equal(c.frames.at(-1)?.data.code, 'game_credentials_revoked');
  };

  before(async () => {
    u = await h.user('Gina');
  });

  it('a replaced secret closes the sockets opened with it on both nodes (4005), not those of another secret, game or the client key', async () => {
    const g = h.registry.addGame('isolated');
    const old = [await ready(nodeA.ws, pair(g)), await ready(nodeB.urls.ws, pair(g))];
    const byKey = await ready(nodeB.urls.ws, { 'x-platform-client-key': g.clientKey });
    const otherGame = await ready(nodeA.ws, pair(h.registry.addGame('isolated')));
    // Another secret of the game (one replaced earlier), then this one: notices of a channel arrive in order.
    await publish({ change: 'secret_replaced', gameId: g.gameId, apiKey: g.key, revokedSecretDigest: gameSecretDigest('an-earlier-secret') });
    await publish({ change: 'secret_replaced', gameId: g.gameId, apiKey: g.key, revokedSecretDigest: gameSecretDigest(g.secret) });
    for (const c of old) await revoked(c);
    assert.equal(old[0].frames.filter((f) => f.type === 'error').length, 1, 'one error frame, for the second notice');
    await alive(byKey);
    await alive(otherGame);
  });

  it('a replaced client key closes its sockets; a deleted game closes all of its sockets; a visibility change none', async () => {
    const g = h.registry.addGame('summary');
    const byKey = await ready(nodeA.ws, { 'x-platform-client-key': g.clientKey });
    const byPair = await ready(nodeA.ws, pair(g));
    await publish({ change: 'visibility_changed', gameId: g.gameId, apiKey: g.key, clientKey: g.clientKey });
    await publish({ change: 'client_key_replaced', gameId: g.gameId, apiKey: g.key, clientKey: g.clientKey });
    await revoked(byKey);
    await alive(byPair);
    const again = await ready(nodeB.urls.ws, pair(g));
    await publish({ change: 'game_deleted', gameId: g.gameId, apiKey: g.key, clientKey: 'ck_replacement' });
    await revoked(byPair);
    await revoked(again);
  });

  it('an upgrade whose credential was checked before the notice arrived is refused like a new one (4401)', async () => {
    const g = h.registry.addGame('isolated');
    h.registry.setDelay(300);
    try {
      // The registry answers after the notice: the socket would open with a revoked secret.
      const opening = connect(nodeA.ws, u.token, { headers: pair(g) });
      await new Promise((r) => setTimeout(r, 100));
      await publish({ change: 'secret_replaced', gameId: g.gameId, apiKey: g.key, revokedSecretDigest: gameSecretDigest(g.secret) });
      void opening.then((c) => clients.push(c), () => {});
      const stayedOpen = new Promise((_, reject) => setTimeout(() => reject(new Error('the socket stayed open')), 5000).unref());
      await Promise.race([refused(opening, 401, 'invalid_game_credentials'), stayedOpen]);
    } finally {
      h.registry.setDelay(0);
    }
  });

  it('unreadable notices and notices of other games change nothing', async () => {
    const g = h.registry.addGame('isolated');
    const c = await ready(nodeA.ws, { 'x-platform-client-key': g.clientKey });
    const sentinelGame = h.registry.addGame('isolated');
    const sentinel = await ready(nodeA.ws, pair(sentinelGame));
    for (const raw of ['not json', '{}', JSON.stringify({ change: 'game_deleted', gameId: g.gameId }), JSON.stringify({ change: 'later_kind', gameId: g.gameId, apiKey: g.key, at: 'x' })]) {
      await h.state.state.publish(GAME_CREDENTIALS_CHANNEL, raw);
    }
    await publish({ change: 'game_deleted', gameId: h.registry.addGame('isolated').gameId, apiKey: 'gk_other' });
    // Handled after the others: once the sentinel is closed, they were handled too.
    await publish({ change: 'game_deleted', gameId: sentinelGame.gameId, apiKey: sentinelGame.key });
    await revoked(sentinel);
    await alive(c);
    assert.equal((await h.req(u, 'GET', '/v1/friends', { clientKey: g.clientKey })).status, 200);
  });
});
