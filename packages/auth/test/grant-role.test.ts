// The grant-role CLI (docs/auth.md, "Sanctions"): run as a process against a stopped embedded database, the
// way the first admin is made; the granted admin then uses the role endpoint.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { readAuthConfig } from '../src/config.js';
import { openAuthStores } from '../src/start.js';
import { bearer, FAST_ENV, GOOD_PASSWORD } from './support/harness.js';

describe('grant-role CLI', () => {
  it('the grant-role CLI makes the first admin on a stopped embedded database (and refuses bad usage)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'grant-role-'));
    const env = { ...FAST_ENV, DATA_DIR: dir, AUTH_MASTER_KEY: randomBytes(32).toString('hex') };
    const config = readAuthConfig(env);
    const open = async () => {
      const stores = await openAuthStores(config);
      return { stores, app: await buildApp(config, stores) };
    };
    let { stores, app } = await open();
    const e = `first-admin-${randomBytes(3).toString('hex')}@example.test`;
    assert.equal((await app.inject({ method: 'POST', url: '/register', payload: { email: e, password: GOOD_PASSWORD } })).statusCode, 201);
    await app.close();
    await stores.db.close();
    await stores.state.close();

    const cli = (...args: string[]) => {
      const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
      delete childEnv.DATABASE_URL;
      delete childEnv.REDIS_URL;
      return spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', path.resolve(import.meta.dirname, '../src/grant-role.ts'), ...args], {
        env: childEnv,
        encoding: 'utf8',
      });
    };
    assert.equal(cli(e, 'admin').status, 2, 'refuses the embedded database without --offline');
    assert.equal(cli('--offline').status, 2);
    assert.equal(cli(e, 'root', '--offline').status, 2);
    assert.equal(cli('nobody@example.test', 'admin', '--offline').status, 1);
    const ok = cli(e.toUpperCase(), 'admin', '--offline');
    assert.equal(ok.status, 0, ok.stderr);
    const out = JSON.parse(ok.stdout.trim().split('\n').pop()!);
    assert.deepEqual(out.roles, ['player', 'admin']);

    ({ stores, app } = await open());
    try {
      const token = (await app.inject({ method: 'POST', url: '/login', payload: { email: e, password: GOOD_PASSWORD } })).json().access_token;
      const granted = await app.inject({ method: 'PUT', url: `/admin/accounts/${out.id}/roles`, headers: bearer(token), payload: { roles: ['player', 'admin', 'moderator'] } });
      assert.equal(granted.statusCode, 200, granted.body);
      const audit = await stores.db.query(`SELECT detail FROM audit_log WHERE account_id = $1 AND event = 'role_change' ORDER BY at`, [out.id]);
      assert.equal(audit.rows[0].detail.by, 'cli');
    } finally {
      await app.close();
      await stores.db.close();
      await stores.state.close();
    }
  });

});
