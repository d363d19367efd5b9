// Tenancy against the REAL registry service, started as a separate process. The registry listens on
// port 3004 (fixed, not configurable), so this is the only social test file that uses it; when the port
// is taken (another run in progress) the file is skipped with a message rather than failing on a clash.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { befriend, startHarness, type Game, type Harness } from './support.js';
import { nodeCommand } from '@platform/kit/testing';

const REGISTRY = 'http://127.0.0.1:3004';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

async function call(method: string, url: string, body?: unknown, token?: string) {
  const r = await fetch(REGISTRY + url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json().catch(() => null)) as any };
}

describe('tenancy with the real registry', async () => {
  const free = await portFree(3004);
  let child: ChildProcess | undefined;
  let dir = '';
  let h: Harness;
  const games: Record<string, Game> = {};
  let devToken = '';

  before(async () => {
    if (!free) return;
    dir = mkdtempSync(path.join(tmpdir(), 'social-registry-'));
    const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env;
    const command = nodeCommand('packages/registry/src/main.ts', { ...rest, DATA_DIR: dir, HOST: '127.0.0.1', LOG_LEVEL: 'silent', REGISTRY_ADMIN_PASSWORD: 'admin-password-for-tests' });
    child = spawn(process.execPath, command.args, {
      cwd: root,
      env: command.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    for (let i = 0; ; i++) {
      const up = await fetch(`${REGISTRY}/healthz`).then((r) => r.ok, () => false);
      if (up) break;
      if (child.exitCode !== null || i > 600) throw new Error(`registry did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const reg = await call('POST', '/developers/register', { Email: 'social-test@example.com', Password: 'a long passphrase', DisplayName: 'Dev' });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    devToken = reg.body.Token;
    for (const visibility of ['full', 'summary', 'isolated'] as const) {
      const g = await call('POST', '/games', { DisplayName: `Game ${visibility}` }, reg.body.Token);
      assert.equal(g.status, 201, JSON.stringify(g.body));
      const patched = await call('PATCH', `/games/${g.body.Game.GameId}`, { CrossGameVisibility: visibility }, reg.body.Token);
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      games[visibility] = { key: g.body.Game.ApiKey, secret: g.body.ApiSecret, clientKey: g.body.Game.ClientKey, gameId: g.body.Game.GameId, visibility };
    }
    h = await startHarness({ SOCIAL__REGISTRY__URL: REGISTRY });
  });

  after(async () => {
    await h?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('resolves games and applies the cross-game contract; a wrong secret is 401', { skip: free ? false : 'port 3004 is in use' }, async () => {
    const owner = await h.user('RegOwner');
    const viewer = await h.user('RegViewer');
    await befriend(h, owner, viewer);
    const rich = { activity: 'Racing', joinable: true, sessionHandle: 's-1' };
    const set = await h.req(owner, 'POST', '/v1/presence', { body: { state: 'online', richPresence: rich }, game: games.full });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.richPresence.originGameId, games.full.gameId);
    const seen = async (g: Game) => (await h.req(viewer, 'GET', `/v1/presence/${owner.publicId}`, { game: g })).body.richPresence;
    assert.deepEqual(await seen(games.full), { ...rich, originGameId: games.full.gameId });
    assert.deepEqual(await seen(games.summary), { activity: 'Racing', joinable: false });
    assert.equal(await seen(games.isolated), undefined);
    const friend = (await h.req(viewer, 'GET', '/v1/friends', { game: games.full })).body[0];
    assert.equal(friend.sameGame, true);
    const bad = await h.req(viewer, 'GET', '/v1/friends', { game: { ...games.full, secret: 'gs_wrong' } });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.code, 'invalid_game_credentials');
    const unknown = await h.req(viewer, 'GET', '/v1/friends', { game: { ...games.full, key: 'gk_unknown' } });
    assert.equal(unknown.body.code, 'invalid_game_credentials');
  });

  it('a game’s GuestRestricted, set by its developer, replaces the deployment’s guest restrictions; null brings them back', { skip: free ? false : 'port 3004 is in use' }, async () => {
    const g = games.isolated;
    const guest = await h.user('RegGuest', { guest: true });
    const target = await h.user('RegTarget');
    const report = () => h.req(guest, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'spam' }, game: g });
    const party = () => h.req(guest, 'POST', '/v1/parties', { body: {}, game: g });
    // The deployment's default restricts reports.
    const refused = await report();
    assert.deepEqual([refused.status, refused.body.code, refused.body.feature], [403, 'guest_restricted', 'reports']);
    const set = await call('PATCH', `/games/${g.gameId}`, { GuestRestricted: ['party_create'] }, devToken);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    // Social's cached game context is dropped by the registry's notice, or lapses (SOCIAL_REGISTRY_CACHE_SECONDS).
    for (let i = 0; ; i++) {
      const r = await party();
      if (r.status === 403) {
        assert.equal(r.body.feature, 'party_create');
        break;
      }
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal((await h.req(guest, 'POST', `/v1/parties/${r.body.partyId}/leave`)).status, 200);
      if (i > 300) throw new Error('the game context never changed');
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal((await report()).status, 202);
    const back = await call('PATCH', `/games/${g.gameId}`, { GuestRestricted: null }, devToken);
    assert.equal(back.body.GuestRestricted, null);
  });

  it('a game’s GroupLimits, set by its developer, replace the deployment’s group limits (one clan per player)', { skip: free ? false : 'port 3004 is in use' }, async () => {
    const g = games.summary;
    const [player, leader] = await Promise.all([h.user('RegClanner'), h.user('RegLeader')]);
    const create = async (u: typeof player) => (await h.req(u, 'POST', '/v1/groups', { body: { name: `Clan ${randomUUID().slice(0, 8)}`, tag: 'CLN', joinPolicy: 'open' }, game: g })).body;
    await create(player);
    const other = await create(leader);
    const set = await call('PATCH', `/games/${g.gameId}`, { GroupLimits: { PerPlayer: 1 } }, devToken);
    assert.deepEqual(set.body.GroupLimits, { PerPlayer: 1 });
    // Social's cached game context is dropped by the registry's notice, or lapses: until then the join succeeds.
    for (let i = 0; ; i++) {
      const r = await h.req(player, 'POST', `/v1/groups/${other.groupId}/join`, { game: g });
      if (r.status === 409) {
        assert.equal(r.body.code, 'group_limit_reached');
        break;
      }
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal((await h.req(player, 'POST', `/v1/groups/${other.groupId}/leave`, { game: g })).status, 200);
      if (i > 300) throw new Error('the game context never changed');
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal((await call('PATCH', `/games/${g.gameId}`, { GroupLimits: null }, devToken)).body.GroupLimits, null);
  });

});
