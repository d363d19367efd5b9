// A data directory of the older layout (DATA_DIR/<service>/pg, one PGlite per service process), written by the
// services started alone as before, opens in the one-process host: its data is copied into DATA_DIR/pg and the
// old directories are moved aside, not deleted. Embedded storage only (the layout question does not arise on
// PostgreSQL). Free ports throughout: the services' fixed ones may be held by other tests.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requestJson } from '@platform/kit';
import { startAuth } from '@platform/auth';
import { startRegistry } from '@platform/registry';
import { startSocial } from '@platform/social';
import { startHost } from '../src/index.js';
import { embeddedHostEnv } from './support.js';

describe('older data layout', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-old-layout-'));
  // Whatever is still running when an assertion fails, stopped in reverse order.
  const running: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    while (running.length) await running.pop()!().catch(() => {});
  };
  after(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is copied into DATA_DIR/pg on the first start of the host, the old directories moved aside', async () => {
    const { env, authPort, socialPort, registryPort } = await embeddedHostEnv(dir, 'old-layout-admin-password');
    const caFile = path.join(dir, 'ca', 'ca-cert.pem');
    const call = (url: string, method: string, p: string, body?: unknown, token?: string) =>
      requestJson(method, url + p, {
        body,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        ca: existsSync(caFile) ? readFileSync(caFile, 'utf8') : undefined,
        timeoutMs: 30_000,
      });
    const authUrl = `https://127.0.0.1:${authPort}`;
    const registryUrl = `http://127.0.0.1:${registryPort}`;
    const socialUrl = `https://127.0.0.1:${socialPort}`;

    // The older layout, written by the services as they start alone (each its own PGlite under DATA_DIR/<service>/pg).
    const auth = await startAuth(env, { handleSignals: false });
    running.push(() => auth.close());
    const registry = await startRegistry(env, { port: registryPort, handleSignals: false });
    running.push(() => registry.close());
    const social = await startSocial(
      { ...env, SOCIAL__AUTH__JWKSURL: `${authUrl}/.well-known/jwks.json`, SOCIAL__AUTH__CAFILE: caFile, SOCIAL__REGISTRY__URL: registryUrl },
      { handleSignals: false },
    );
    running.push(() => social.app.close());
    const admin = await call(registryUrl, 'POST', '/developers/login', { Email: 'admin@localhost', Password: 'old-layout-admin-password' });
    assert.equal(admin.status, 200);
    const game = await call(registryUrl, 'POST', '/games', { DisplayName: 'Kept across layouts' }, admin.body.Token);
    assert.equal(game.status, 201, JSON.stringify(game.body));
    const guest = await call(authUrl, 'POST', '/guest', { device_fingerprint: 'old-layout-device' });
    assert.equal(guest.status, 200, JSON.stringify(guest.body));
    const me = await call(socialUrl, 'GET', '/v1/me', undefined, guest.body.access_token);
    assert.equal(me.status, 200, JSON.stringify(me.body));
    await stopAll();
    for (const svc of ['auth', 'registry', 'social']) assert.ok(existsSync(path.join(dir, svc, 'pg', 'PG_VERSION')), svc);

    // The host: one PGlite at DATA_DIR/pg.
    const logs: string[] = [];
    const host = await startHost(env, { registryPort, log: (m) => logs.push(m) });
    running.push(() => host.close());
    {
      for (const svc of ['auth', 'registry', 'social']) {
        assert.ok(!existsSync(path.join(dir, svc, 'pg')), `${svc}/pg moved`);
        assert.ok(existsSync(path.join(dir, svc, 'pg.old-layout', 'PG_VERSION')), `${svc}/pg.old-layout kept`);
        assert.ok(logs.some((l) => l.includes(`moved ${path.join(dir, svc, 'pg')} aside`)), logs.join('\n'));
      }
      assert.equal(host.pgDir, path.join(dir, 'pg'));
      // Registry: the developer (its password hash), its game, and the token-signing key (encrypted with master.key).
      const again = await call(registryUrl, 'POST', '/developers/login', { Email: 'admin@localhost', Password: 'old-layout-admin-password' });
      assert.equal(again.status, 200);
      const games = await call(registryUrl, 'GET', '/games', undefined, again.body.Token);
      assert.equal(games.status, 200, JSON.stringify(games.body));
      assert.ok(JSON.stringify(games.body).includes('Kept across layouts'), JSON.stringify(games.body));
      // Auth: the session (the refresh token rotates) and the signing keys; social: the same user.
      const refreshed = await call(authUrl, 'POST', '/refresh', { refresh_token: guest.body.refresh_token });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      const meAgain = await call(socialUrl, 'GET', '/v1/me', undefined, refreshed.body.access_token);
      assert.equal(meAgain.status, 200, JSON.stringify(meAgain.body));
      assert.equal(meAgain.body.publicId, me.body.publicId);
      // Sequences keep their place: a new game is created next to the copied one.
      const second = await call(registryUrl, 'POST', '/games', { DisplayName: 'Made after the move' }, again.body.Token);
      assert.equal(second.status, 201, JSON.stringify(second.body));
    }
    await stopAll();

    // A second start finds nothing to copy and the same data.
    const logs2: string[] = [];
    const host2 = await startHost(env, { registryPort, log: (m) => logs2.push(m) });
    running.push(() => host2.close());
    {
      assert.deepEqual(logs2, []);
      const login = await call(registryUrl, 'POST', '/developers/login', { Email: 'admin@localhost', Password: 'old-layout-admin-password' });
      const games = await call(registryUrl, 'GET', '/games', undefined, login.body.Token);
      assert.ok(JSON.stringify(games.body).includes('Made after the move'), JSON.stringify(games.body));
    }
  });
});
