// Configuration, start-up, super-admin seeding and the signing key.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '@platform/kit';
import { readRegistryConfig, startRegistry, DEFAULT_IMPORT_ALLOWLIST, loadOrCreateMasterKey } from '../src/index.js';
import { harness } from './helpers.js';
import { nodeCommand } from '@platform/kit/testing';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

describe('configuration', () => {
  it('has documented defaults', () => {
    const c = readRegistryConfig({});
    assert.equal(c.schema, 'registry');
    assert.equal(c.adminEmail, 'admin@localhost');
    assert.equal(c.adminPassword, undefined);
    assert.equal(c.tokenTtlSeconds, 43_200);
    assert.equal(c.keyCacheTtlMs, 5000);
    assert.equal(c.moduleMaxBytes, 8 * 1024 * 1024);
    assert.deepEqual(c.importAllowlist, DEFAULT_IMPORT_ALLOWLIST);
    assert.ok(c.importAllowlist.includes('platform.*'));
    assert.equal(c.masterKey, undefined);
    assert.equal(c.authUrl, 'https://127.0.0.1:8443');
    assert.equal(c.authCaFile, undefined);
    assert.equal(c.authInternalKey, undefined);
    assert.equal(readRegistryConfig({ REGISTRY_MASTER_KEY: 'ab'.repeat(32) }).masterKey!.length, 32);
  });

  it('names every bad variable', () => {
    const bad: Record<string, string> = {
      REGISTRY_MODULE_MAX_BYTES: 'lots',
      REGISTRY_TOKEN_TTL_SECONDS: '5',
      REGISTRY_MASTER_KEY: 'short',
      REGISTRY_ADMIN_EMAIL: 'nobody',
      REGISTRY_ADMIN_PASSWORD: 'short',
      REGISTRY_MODULE_IMPORT_ALLOWLIST: 'platform',
      REGISTRY_KEY_CACHE_TTL_MS: '-1',
      REGISTRY_AUTH_URL: 'ftp://auth',
      REGISTRY_AUTH_CA_FILE: '/nonexistent/auth-ca.pem',
    };
    for (const [name, value] of Object.entries(bad)) {
      assert.throws(() => readRegistryConfig({ [name]: value }), (err: Error) => err instanceof ConfigError && err.message.includes(name), name);
    }
  });

  it('stops the process with a message naming the variable', () => {
    const command = nodeCommand(main, { ...process.env, REGISTRY_MODULE_MAX_BYTES: 'huge', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'reg-')) });
    const r = spawnSync(process.execPath, command.args, {
      env: command.env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /REGISTRY_MODULE_MAX_BYTES/);
  });
});

describe('start-up', () => {
  it('starts on embedded storage, makes a master key file (0600) and serves over HTTP', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'reg-'));
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', REGISTRY_ADMIN_PASSWORD: 'start-up password', DATABASE_URL: '', REDIS_URL: '' };
    const running = await startRegistry(env, { port: 0, handleSignals: false });
    try {
      // No metrics listener unless REGISTRY_METRICS_PORT is set.
      assert.equal(running.metricsUrl, undefined);
      const file = path.join(dataDir, 'registry', 'master.key');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(loadOrCreateMasterKey(dataDir).created, false);
      const port = (running.app.server.address() as { port: number }).port;
      const r = await fetch(`http://127.0.0.1:${port}/developers/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Email: 'admin@localhost', Password: 'start-up password' }),
      });
      assert.equal(r.status, 200);
      assert.equal((await r.json()).Role, 'super-admin');
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    } finally {
      await running.close();
    }
    assert.ok(readFileSync(path.join(dataDir, 'registry', 'master.key'), 'utf8').trim().length === 64);
  });

  it('refuses to start when the master key cannot decrypt the signing key', async () => {
    const h = await harness();
    try {
      await assert.rejects(h.build({ masterKey: randomBytes(32) }), /REGISTRY_MASTER_KEY/);
    } finally {
      await h.drop();
    }
  });
});

describe('super-admin seeding', () => {
  const login = (app: Awaited<ReturnType<typeof harness>>['app'], Email: string, Password: string) =>
    app.inject({ method: 'POST', url: '/developers/login', payload: { Email, Password } });

  it('is idempotent; a changed password takes effect; a changed email demotes the old admin', async () => {
    const h = await harness({ adminEmail: 'boss@example.test', adminPassword: 'first password!' });
    try {
      const again = await h.build();
      assert.equal((await login(again, 'boss@example.test', 'first password!')).statusCode, 200);
      const admins = async () => (await h.db.query<{ email: string }>(`SELECT email FROM developers WHERE role = 'super-admin'`)).rows.map((r) => r.email);
      assert.deepEqual(await admins(), ['boss@example.test']);
      assert.equal((await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM developers`)).rows[0].n, 1);

      const changed = await h.build({ adminEmail: 'boss@example.test', adminPassword: 'second password!' });
      assert.equal((await login(changed, 'boss@example.test', 'second password!')).statusCode, 200);
      assert.equal((await login(changed, 'boss@example.test', 'first password!')).statusCode, 401);

      const moved = await h.build({ adminEmail: 'new-boss@example.test', adminPassword: 'third password!' });
      assert.deepEqual(await admins(), ['new-boss@example.test']);
      const old = await login(moved, 'boss@example.test', 'second password!');
      assert.equal(old.json().Role, 'developer');
      const token = (await login(moved, 'new-boss@example.test', 'third password!')).json().Token;
      assert.equal((await moved.inject({ url: '/admin/developers', headers: { authorization: `Bearer ${token}` } })).statusCode, 200);
      // The demoted account's old token no longer opens /admin.
      const oldToken = old.json().Token;
      assert.equal((await moved.inject({ url: '/admin/developers', headers: { authorization: `Bearer ${oldToken}` } })).statusCode, 403);
    } finally {
      await h.drop();
    }
  });

  it('generates a password when none is configured, shows it once and keeps it', async () => {
    const shown: string[] = [];
    const h = await harness({ adminEmail: 'gen@example.test', adminPassword: undefined }, { announce: (t) => shown.push(t) });
    try {
      assert.equal(shown.length, 1);
      const password = /Generated password \(shown only this once\): (\S+)/.exec(shown[0])![1];
      assert.ok(password.length >= 20);
      await h.build();
      assert.equal(shown.length, 1, 'a later start does not print it again');
      const r = await login(h.app, 'gen@example.test', password);
      assert.equal(r.statusCode, 200);
      assert.equal(r.json().Role, 'super-admin');
    } finally {
      await h.drop();
    }
  });

  it('promotes an existing developer with a fresh password when the configured email is theirs', async () => {
    const h = await harness();
    try {
      const reg = await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: 'taken@example.test', Password: 'developer pw 1', DisplayName: 'T' } });
      assert.equal(reg.statusCode, 201);
      const shown: string[] = [];
      const next = await h.build({ adminEmail: 'taken@example.test', adminPassword: undefined }, { announce: (t) => shown.push(t) });
      assert.equal(shown.length, 1);
      assert.equal((await login(next, 'taken@example.test', 'developer pw 1')).statusCode, 401);
      const password = /: (\S+)\n/.exec(shown[0].split('\n').find((l) => l.includes('Generated'))! + '\n')![1];
      assert.equal((await login(next, 'taken@example.test', password)).json().Role, 'super-admin');
    } finally {
      await h.drop();
    }
  });
});
