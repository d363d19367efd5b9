// The grant-role CLI (docs/auth.md, "Sanctions"), run as a process the way the first admin is made: against the
// test's PostgreSQL schema when DATABASE_URL is set, else against a stopped embedded database (--offline). The
// granted admin then uses the role endpoint.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEmbeddedPostgres, type Database, type Env } from '@platform/kit';
import { nodeCommand } from '@platform/kit/testing';
import type { AuthApp } from '../src/app.js';
import { buildApp } from '../src/service.js';
import { readAuthConfig } from '../src/config.js';
import { openAuthStores } from '../src/service.js';
import { bearer, FAST_ENV, GOOD_PASSWORD, harness, type Harness } from './support/harness.js';

const CLI = path.resolve(import.meta.dirname, '../src/grant-role.ts');

/** The CLI as a process with this environment (DATABASE_URL and REDIS_URL only when given). */
function cli(env: Env, ...args: string[]) {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  delete childEnv.DATABASE_URL;
  delete childEnv.REDIS_URL;
  const command = nodeCommand(CLI, { ...childEnv, ...FAST_ENV, ...env });
  return spawnSync(process.execPath, [...command.args, ...args], { env: command.env, encoding: 'utf8' });
}

/** The embedded stores of DATA_DIR (the service as the CLI finds it), an app on them, and how to close both. */
async function openEmbedded(env: Env): Promise<{ db: Database; app: AuthApp; closeAll(): Promise<void> }> {
  const config = readAuthConfig({ ...FAST_ENV, ...env });
  const stores = await openAuthStores(config);
  const app = await buildApp(config, stores);
  return {
    db: stores.db,
    app,
    async closeAll() {
      await app.close();
      await stores.db.close();
      await stores.state.close();
    },
  };
}

describe('grant-role CLI', () => {
  let h: Harness | undefined;
  before(async () => {
    // PostgreSQL only: the embedded case opens its own database files below.
    if (process.env.DATABASE_URL) h = await harness();
  });
  after(() => h?.close());

  it('usage errors exit 2 before any database is opened: no DATABASE_URL without --offline, an unknown role or option, nothing to grant', () => {
    const env = { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'grant-role-')), AUTH_MASTER_KEY: randomBytes(32).toString('hex') };
    for (const args of [['a@example.test', 'admin'], ['a@example.test', 'root', '--offline'], ['a@example.test', 'admin', '--force'], ['--offline']]) {
      const r = cli(env, ...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  it('grants admin by email (any case); the admin then sets roles through the endpoint; an unknown account exits 1', async () => {
    let db: Database;
    let app: AuthApp;
    let env: Env;
    let closeAll: () => Promise<void>;
    if (h?.tdb.url) {
      // PostgreSQL: the test's own schema, the service running beside the CLI.
      env = { DATABASE_URL: h?.tdb.url, AUTH_DB_SCHEMA: h!.tdb.schema!, AUTH_MASTER_KEY: h!.config.masterKey!.toString('hex'), DATA_DIR: h!.config.dataDir };
      ({ db } = h!.tdb);
      app = h!.app;
      closeAll = async () => {};
    } else {
      // Embedded: the service stopped while the CLI writes (--offline), started again after.
      env = { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'grant-role-')), AUTH_MASTER_KEY: randomBytes(32).toString('hex') };
      ({ db, app, closeAll } = await openEmbedded(env));
    }
    const e = `first-admin-${randomBytes(3).toString('hex')}@example.test`;
    assert.equal((await app.inject({ method: 'POST', url: '/register', payload: { email: e, password: GOOD_PASSWORD } })).statusCode, 201);
    const offline = h?.tdb.url ? [] : ['--offline'];
    if (!h?.tdb.url) await closeAll();

    const ok = cli(env, e.toUpperCase(), 'admin', ...offline);
    assert.equal(ok.status, 0, ok.stderr);
    const out = JSON.parse(ok.stdout.trim().split('\n').pop()!);
    assert.deepEqual(out.roles, ['player', 'admin']);
    if (h?.tdb.url) assert.equal(cli(env, 'nobody@example.test', 'admin').status, 1);

    if (!h?.tdb.url) {
      ({ db, app, closeAll } = await openEmbedded(env));
    }
    try {
      const token = (await app.inject({ method: 'POST', url: '/login', payload: { email: e, password: GOOD_PASSWORD } })).json().access_token;
      const granted = await app.inject({ method: 'PUT', url: `/admin/accounts/${out.id}/roles`, headers: bearer(token), payload: { roles: ['player', 'admin', 'moderator'] } });
      assert.equal(granted.statusCode, 200, granted.body);
      const audit = await db.query<{ detail: { by: string } }>(`SELECT detail FROM audit_log WHERE account_id = $1 AND event = 'role_change' ORDER BY at`, [out.id]);
      assert.deepEqual(
        audit.rows.map((r) => r.detail.by),
        ['cli', out.id],
      );
    } finally {
      await closeAll();
    }
  });

  it("--offline finds npm start's database (DATA_DIR/pg, auth's schema); a data directory without one exits 1 and creates nothing", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'grant-role-host-'));
    const env = { DATA_DIR: dataDir, AUTH_MASTER_KEY: randomBytes(32).toString('hex') };
    const config = readAuthConfig({ ...FAST_ENV, ...env });
    // What npm start leaves: one embedded PostgreSQL at DATA_DIR/pg holding auth's schema.
    const embedded = await openEmbeddedPostgres(path.join(dataDir, 'pg'));
    const stores = await openAuthStores(config, embedded);
    const app = await buildApp(config, stores);
    const e = `host-admin-${randomBytes(3).toString('hex')}@example.test`;
    assert.equal((await app.inject({ method: 'POST', url: '/register', payload: { email: e, password: GOOD_PASSWORD } })).statusCode, 201);
    await app.close();
    await stores.state.close();
    await embedded.close();

    const ok = cli(env, e, 'moderator', '--offline');
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout.trim().split('\n').pop()!).roles, ['player', 'moderator']);
    assert.ok(!existsSync(path.join(dataDir, 'auth', 'pg')), 'no stray database beside the platform one');

    const empty = mkdtempSync(path.join(tmpdir(), 'grant-role-empty-'));
    const none = cli({ ...env, DATA_DIR: empty }, e, 'moderator', '--offline');
    assert.equal(none.status, 1, none.stderr);
    assert.match(none.stderr, /no embedded database/);
    assert.deepEqual(readdirSync(empty), []);
  });
});
