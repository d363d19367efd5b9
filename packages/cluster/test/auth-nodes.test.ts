/**
 * Three auth node processes on one PostgreSQL schema and one Redis database
 * behave as one service ("One source from many nodes").
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StateStore } from '@platform/kit';
import {
  eventually,
  schemaPool,
  type SchemaPool,
  skipWithoutSharedStores,
  startAuthCluster,
  type AuthCluster,
  type ClusterClient,
  onSuiteStores,
  clusterIfAny,
} from '../src/index.js';
import { PASSWORD, email, fingerprint, peekPaseto, register } from './support.js';

const skip = skipWithoutSharedStores();

// On the cluster when CI has one (auth on one Redis: balancer.test.ts, faults.test.ts and the e2e suites).
for (const kind of clusterIfAny()) describe(`auth: three nodes, one service (${kind})`, { skip }, () => {
  let cluster: AuthCluster;
  let db: SchemaPool;
  let state: StateStore;
  let c: ClusterClient[];

  onSuiteStores('cl_auth', 11, {
    async start(suite) {
      cluster = await startAuthCluster({
        nodes: 3,
        ...suite,
        // Default key refresh (30 s): a rotation seen within the 10 s below came over auth:key_rotation.
        env: { AUTH_LOCKOUT_THRESHOLD: '3', AUTH_RATE_LOGIN_PER_IP_EMAIL: '5' },
      });
      c = [0, 1, 2].map((i) => cluster.client(i, { attempts: 1 }));
      db = schemaPool(suite.databaseUrl, suite.schema);
      state = await suite.openState();
    },
    async stop() {
      await cluster?.close();
      await db?.end();
      await state?.close();
    },
  }, kind);

  it('serves the same JWKS and issuer on every node', async () => {
    const sets = await Promise.all(c.map((x) => x.get('/.well-known/jwks.json')));
    for (const s of sets) assert.equal(s.status, 200);
    assert.ok(sets[0].body.keys.length >= 1);
    assert.deepEqual(sets[1].body, sets[0].body);
    assert.deepEqual(sets[2].body, sets[0].body);
    const mail = email('iss');
    await register(c[0], mail);
    const issuers = new Set<string>();
    for (const x of c) {
      const r = await x.post('/login', { email: mail, password: PASSWORD });
      assert.equal(r.status, 200);
      const { kid, claims } = peekPaseto(r.body.access_token);
      assert.ok(sets[0].body.keys.some((k: { kid: string }) => k.kid === kid), 'signed with a key of the shared set');
      issuers.add(claims.iss);
    }
    assert.deepEqual([...issuers], [cluster.issuer]);
  });

  it('accepts on node B a refresh token issued by node A, and detects its reuse on node C', async () => {
    const a = await register(c[0], email('refresh'));
    const r1 = await c[1].post('/refresh', { refresh_token: a.refresh_token });
    assert.equal(r1.status, 200, JSON.stringify(r1.body));
    const me = await c[2].get('/account', { token: r1.body.access_token });
    assert.equal(me.status, 200);
    const reuse = await c[2].post('/refresh', { refresh_token: a.refresh_token });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, 'token_reused');
    // The whole chain is dead on every node.
    const after = await c[0].post('/refresh', { refresh_token: r1.body.refresh_token });
    assert.equal(after.status, 401);
  });

  it('enforces on node B a lockout counted on nodes A and C', async () => {
    const mail = email('lock');
    await register(c[0], mail);
    // Threshold 3: failures on three different nodes lock the credential.
    for (const x of [c[0], c[2], c[0]]) {
      const r = await x.post('/login', { email: mail, password: 'wrong password 123' });
      assert.equal(r.status, 401);
    }
    const locked = await c[1].post('/login', { email: mail, password: PASSWORD });
    assert.equal(locked.status, 423);
    assert.equal(locked.body.code, 'account_locked');
    const { rows } = await db.query(`SELECT node_id FROM audit_log WHERE event = 'lockout'`);
    assert.equal(rows.length, 1, 'one lockout entry');
  });

  it('shares the login rate limit across nodes', async () => {
    const mail = email('rate'); // unknown email: 401s that never lock
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await c[i % 3].post('/login', { email: mail, password: 'whatever 12345' })).status);
    assert.deepEqual(codes, [401, 401, 401, 401, 401]);
    for (const x of c) {
      const r = await x.post('/login', { email: mail, password: 'whatever 12345' });
      assert.equal(r.status, 429);
      assert.equal(r.body.code, 'rate_limited');
      assert.ok(Number(r.headers['retry-after']) > 0);
    }
  });

  it('puts a logout on node A into the deny set node B reads', async () => {
    const a = await register(c[0], email('logout'));
    assert.equal((await c[1].get('/account', { token: a.access_token })).status, 200);
    const out = await c[0].post('/logout', undefined, { token: a.access_token });
    assert.equal(out.status, 204);
    const { sid, jti } = peekPaseto(a.access_token).claims;
    assert.ok(await state.setHas('deny:sid', sid), 'sid in the shared deny set');
    assert.ok(await state.setHas('deny:jti', jti), 'jti in the shared deny set');
    for (const x of [c[1], c[2]]) {
      const r = await x.get('/account', { token: a.access_token });
      assert.equal(r.status, 401);
      assert.equal(r.body.code, 'invalid_token');
    }
    assert.equal((await c[2].post('/refresh', { refresh_token: a.refresh_token })).status, 401);
  });

  it('writes the serving node id into the audit log', async () => {
    const mail = email('audit');
    const { account_id } = await register(c[0], mail);
    for (const x of c) assert.equal((await x.post('/login', { email: mail, password: PASSWORD })).status, 200);
    const { rows } = await db.query(
      `SELECT DISTINCT node_id FROM audit_log WHERE account_id = $1 AND event = 'login' ORDER BY node_id`,
      [account_id],
    );
    assert.deepEqual(rows.map((r) => r.node_id), ['auth-1', 'auth-2', 'auth-3']);
  });

  it('uses on every node a key rotated in an emergency on one node', async () => {
    const mail = email('admin');
    const { account_id } = await register(c[0], mail);
    await db.query(`UPDATE accounts SET roles = roles || '{admin}' WHERE id = $1`, [account_id]);
    const admin = await c[1].post('/login', { email: mail, password: PASSWORD });
    assert.equal(admin.status, 200);
    const oldKid = peekPaseto(admin.body.access_token).kid;
    const rot = await c[1].post('/admin/keys/rotate', { emergency: true }, { token: admin.body.access_token });
    assert.equal(rot.status, 200, JSON.stringify(rot.body));
    const newKid: string = rot.body.kid;
    assert.notEqual(newKid, oldKid);
    let refreshToken: string = admin.body.refresh_token;
    for (const x of c) {
      // The rotation message on auth:key_rotation reaches every node.
      await eventually(async () => {
        const jwks = await x.get('/.well-known/jwks.json');
        const kids = jwks.body.keys.map((k: { kid: string }) => k.kid);
        return kids.includes(newKid) && kids.includes(oldKid);
      }, 10_000, `${x.baseUrl} publishing the new key`);
      const t = await x.post('/refresh', { refresh_token: refreshToken });
      assert.equal(t.status, 200, JSON.stringify(t.body));
      refreshToken = t.body.refresh_token;
      assert.equal(peekPaseto(t.body.access_token).kid, newKid, `${x.baseUrl} signs with the new key`);
    }
    // A token signed with the old key still verifies everywhere (no retire_previous).
    for (const x of c) assert.equal((await x.get('/account', { token: admin.body.access_token })).status, 200);
  });

  it('creates a guest once for a retried Idempotency-Key, whichever node gets the retry', async () => {
    const device = fingerprint();
    const key = `idem-${Date.now()}`;
    const answers = await Promise.all(c.map((x) => x.post('/guest', { device_fingerprint: device }, { headers: { 'idempotency-key': key } })));
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(new Set(answers.map((a) => a.body.account_id)).size, 1);
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM identities WHERE provider = 'guest' AND provider_user_id = $1`,
      [answers[0].body.account_id],
    );
    assert.equal(rows[0].n, 1);
  });
});
