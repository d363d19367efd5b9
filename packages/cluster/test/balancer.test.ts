/**
 * Two auth nodes behind a real HAProxy (TLS at the balancer, re-encrypted to
 * the nodes, GET /healthz checks). Clients go through the balancer while one
 * node is stopped (SIGTERM: drained) or crashes (SIGKILL); clients that retry
 * on 502/503/timeout succeed, and afterwards every account and session a
 * client was told about exists exactly once in the database.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  ClusterClient,
  eventually,
  haproxyAvailable,
  schemaPool,
  type SchemaPool,
  skipWithoutSharedStores,
  sleep,
  startAuthCluster,
  startHaproxy,
  type AuthCluster,
  type Haproxy,
  onSuiteStores,
} from '../src/index.js';
import { PASSWORD, email, fingerprint, peekPaseto, register } from './support.js';

const skip = skipWithoutSharedStores() || ((await haproxyAvailable()) ? false : 'haproxy is not installed (apt-get install haproxy; .ci/run does)');
const UNLIMITED = '1000000';

interface Told {
  guests: Map<string, string>; // idempotency key → account id
  sessions: Set<string>;
  failures: string[];
  ops: number;
  /** Refreshes whose outcome was unknown (502 or a cut connection): the client signed in again, as documented. */
  reSignIns: number;
  /** Client-side retries (502/503/504, network, timeout): what the balancer could not hide. */
  retries: { status: number; network: number; timeout: number };
}

describe('auth behind HAProxy: drain and crash under load', { skip }, () => {
  let cluster: AuthCluster;
  let lb: Haproxy;
  let db: SchemaPool;

  onSuiteStores('cl_lb', 12, {
    async start(suite) {
      cluster = await startAuthCluster({
        nodes: 2,
        ...suite,
        env: {
          AUTH_TRUST_PROXY: '127.0.0.1',
          AUTH_RATE_GENERAL_PER_IP: UNLIMITED,
          AUTH_RATE_LOGIN_PER_IP: UNLIMITED,
          AUTH_RATE_LOGIN_PER_IP_EMAIL: UNLIMITED,
          AUTH_RATE_GUEST_PER_IP: UNLIMITED,
          AUTH_GUEST_SCORE_SLOW: UNLIMITED,
          AUTH_GUEST_SCORE_REFUSE: UNLIMITED,
          AUTH_RATE_REFRESH_PER_IP: UNLIMITED,
        },
      });
      lb = await startHaproxy({
        backends: cluster.nodes.map((n) => ({ name: n.name, host: '127.0.0.1', port: n.port })),
        backendTls: true,
        tls: { cert: cluster.ca, key: readFileSync(cluster.keyPath, 'utf8') },
        checkIntervalMs: 500,
        fall: 2,
        rise: 2,
      });
      await eventually(async () => Object.values(await lb.states()).every((s) => s === 'UP'), 10_000, 'both nodes UP in HAProxy');
      db = schemaPool(suite.databaseUrl, suite.schema);
    },
    async stop() {
      await lb?.stop();
      await cluster?.close();
      await db?.end();
    },
  });

  /** `clients` concurrent clients doing `perClient` operations each, spread over about `spreadMs`. */
  async function stream(opts: { clients: number; perClient: number; spreadMs: number; refresh: boolean }): Promise<Told> {
    const told: Told = { guests: new Map(), sessions: new Set(), failures: [], ops: 0, reSignIns: 0, retries: { status: 0, network: 0, timeout: 0 } };
    const pause = opts.spreadMs / opts.perClient;
    const sid = (token: string) => peekPaseto(token).claims.sid as string;
    await Promise.all(
      Array.from({ length: opts.clients }, async (_, ci) => {
        const client = new ClusterClient({ baseUrl: lb.url, ca: cluster.ca, attempts: 8, backoffMs: 100, timeoutMs: 15_000 });
        const mail = email(`lb${ci}`);
        const first = await register(client, mail);
        told.sessions.add(sid(first.access_token));
        let refreshToken = first.refresh_token;
        try {
          for (let i = 0; i < opts.perClient; i++) {
            const kind = i % 3;
            try {
              if (kind === 0) {
                // A retried /guest carries the same Idempotency-Key and device.
                const key = `k-${randomBytes(8).toString('hex')}`;
                const r = await client.post('/guest', { device_fingerprint: fingerprint() }, { headers: { 'idempotency-key': key } });
                if (r.status !== 200) throw new Error(`guest ${r.status} ${JSON.stringify(r.body)}`);
                told.guests.set(key, r.body.account_id);
                told.sessions.add(sid(r.body.access_token));
              } else if (kind === 1 || !opts.refresh) {
                const r = await client.post('/login', { email: mail, password: PASSWORD });
                if (r.status !== 200) throw new Error(`login ${r.status} ${JSON.stringify(r.body)}`);
                told.sessions.add(sid(r.body.access_token));
              } else {
                // A refresh is retried only when certainly not processed; when its outcome is
                // unknown (a 502 or a cut connection while a node shuts down) the client
                // signs in again instead of risking a reuse (docs/deployment.md).
                const r = await client
                  .post('/refresh', { refresh_token: refreshToken }, { notIdempotent: true })
                  .catch((err: Error) => ({ status: 0, body: { error: err.message } }) as const);
                if (r.status === 502 || r.status === 0) {
                  told.reSignIns++;
                  const again = await client.post('/login', { email: mail, password: PASSWORD });
                  if (again.status !== 200) throw new Error(`re-sign-in ${again.status} ${JSON.stringify(again.body)}`);
                  refreshToken = again.body.refresh_token;
                  told.sessions.add(sid(again.body.access_token));
                } else {
                  if (r.status !== 200) throw new Error(`refresh ${r.status} ${JSON.stringify(r.body)}`);
                  refreshToken = r.body.refresh_token;
                  told.sessions.add(sid(r.body.access_token));
                }
              }
              told.ops++;
            } catch (err) {
              told.failures.push((err as Error).message);
            }
            await sleep(pause);
          }
        } finally {
          for (const k of ['status', 'network', 'timeout'] as const) told.retries[k] += client.retries[k];
          client.close();
        }
      }),
    );
    return told;
  }

  async function assertExactlyOnce(told: Told) {
    assert.deepEqual(told.failures, [], 'every operation succeeded for a retrying client');
    const ids = [...told.guests.values()];
    assert.equal(new Set(ids).size, ids.length, 'each Idempotency-Key got its own account');
    const accounts = await db.query(`SELECT count(*)::int AS n FROM accounts WHERE id = ANY($1::uuid[])`, [ids]);
    assert.equal(accounts.rows[0].n, ids.length, 'every guest account the clients were told about exists');
    const identities = await db.query(
      `SELECT provider_user_id, count(*)::int AS n FROM identities WHERE provider = 'guest' AND provider_user_id = ANY($1::text[]) GROUP BY 1`,
      [ids],
    );
    assert.equal(identities.rowCount, ids.length);
    assert.ok(identities.rows.every((r) => r.n === 1), 'one guest identity per account');
    const keys = await db.query(`SELECT count(*)::int AS n FROM guest_idempotency`);
    assert.equal(keys.rows[0].n, told.guests.size, 'no guest was created twice (one idempotency row per key)');
    const sessions = await db.query(`SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1::uuid[])`, [[...told.sessions]]);
    assert.equal(sessions.rows[0].n, told.sessions.size, 'every session the clients were told about exists');
  }

  it('drains a node stopped with SIGTERM while clients sign in and refresh', async (t) => {
    const [a] = cluster.nodes;
    const sawDown = (async () => {
      await sleep(2500);
      await a.stop();
      await eventually(async () => (await lb.states())[a.name]?.startsWith('DOWN'), 10_000, `${a.name} marked DOWN`);
      await sleep(1500);
      await a.start();
      await eventually(async () => (await lb.states())[a.name] === 'UP', 10_000, `${a.name} UP again`);
    })();
    const told = await stream({ clients: 4, perClient: 60, spreadMs: 9000, refresh: true });
    await sawDown;
    t.diagnostic(`ops ${told.ops}, re-sign-ins ${told.reSignIns}, client retries ${JSON.stringify(told.retries)}, failures ${JSON.stringify(told.failures)}`);
    assert.ok(told.ops >= 240, `ops ${told.ops}`);
    await assertExactlyOnce(told);
    const served = await db.query(`SELECT DISTINCT node_id FROM audit_log WHERE event = 'login' ORDER BY 1`);
    assert.deepEqual(served.rows.map((r) => r.node_id), ['auth-1', 'auth-2'], 'both nodes served');
  });

  it('survives a node crash (SIGKILL): retried guests and sign-ins end exactly once', async (t) => {
    await db.query(`TRUNCATE guest_idempotency`);
    const [, b] = cluster.nodes;
    const crash = (async () => {
      await sleep(1500);
      await b.kill();
      await eventually(async () => (await lb.states())[b.name]?.startsWith('DOWN'), 10_000, `${b.name} marked DOWN`);
      await b.start();
      await eventually(async () => (await lb.states())[b.name] === 'UP', 10_000, `${b.name} UP again`);
    })();
    // No refreshes here: a refresh whose answer died with the node is spent, and
    // its retry is a reuse (docs/auth.md: no grace window).
    const told = await stream({ clients: 3, perClient: 30, spreadMs: 5000, refresh: false });
    await crash;
    t.diagnostic(`ops ${told.ops}, re-sign-ins ${told.reSignIns}, client retries ${JSON.stringify(told.retries)}, failures ${JSON.stringify(told.failures)}`);
    await assertExactlyOnce(told);
  });
});
