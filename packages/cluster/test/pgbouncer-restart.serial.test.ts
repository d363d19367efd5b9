/**
 * PostgreSQL restarted under load, behind PgBouncer in transaction mode (docs/deployment.md, "PostgreSQL behind
 * PgBouncer"): two auth nodes (DATABASE_POOLER=transaction) carry sign-ups and refreshes through a PRIVATE PgBouncer in
 * front of a PRIVATE PostgreSQL (initdb'd into a temporary directory; the shared one is never stopped) while that
 * PostgreSQL is stopped (pg_ctl -m fast: every connection cut) and started again. The services must answer 503 with
 * Retry-After meanwhile (never a 500 or a hang), answer again within RECOVERY_MS of the server being back, and every
 * acknowledged write must be there afterwards: each 201 sign-up's account, and each session's last 200 refresh token
 * (still the one that refreshes).
 *
 * The nodes connect as role `auth`, whose schema `auth` is first on PostgreSQL's default search_path ("$user",
 * public): the zero-cost way db.ts takes behind a pooler (the suite's main CI run covers the SET LOCAL way).
 * Serial: it starts its own servers and loads the machine; skipped when initdb, pgbouncer or redis-server are missing
 * (REQUIRE_PGBOUNCER=1, as in CI, fails instead).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { openDatabase } from '@platform/kit';
import {
  eventually,
  pgbouncerBinary,
  postgresBinDir,
  sleep,
  startAuthCluster,
  startPgBouncer,
  startPrivatePostgres,
  startPrivateRedis,
  type AuthCluster,
  type ClusterClient,
  type PgBouncer,
  type PrivatePostgres,
  type PrivateRedis,
} from '../src/index.js';
import { PASSWORD, email, fingerprint } from './support.js';

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const missing = [!postgresBinDir() && 'PostgreSQL server binaries (initdb)', !pgbouncerBinary() && 'pgbouncer', !hasRedis && 'redis-server'].filter(Boolean);
if (missing.length && process.env.REQUIRE_PGBOUNCER === '1') throw new Error(`REQUIRE_PGBOUNCER=1 but not installed: ${missing.join(', ')}`);
const skip = missing.length ? `not installed: ${missing.join(', ')}` : false;

/** How long after PostgreSQL is back every node must answer again. */
const RECOVERY_MS = 10_000;
/** How long PostgreSQL stays down. */
const DOWN_MS = 1_500;
const UNLIMITED = '1000000';
const WORKERS_PER_NODE = 3;

interface Tally {
  statuses: Map<number, number>;
  /** Answers neither 2xx nor 503 with Retry-After (500s above all), and network errors or timeouts. */
  bad: string[];
  /** Account ids of acknowledged (201) sign-ups. */
  signedUp: string[];
  /** Per session (acknowledged sign-up) the last acknowledged refresh token; a session whose last refresh was not acknowledged is dropped. */
  sessions: Map<string, string>;
  refreshes: number;
}

describe('PostgreSQL restart behind PgBouncer (transaction mode) under load', { skip }, () => {
  let pgPrivate: PrivatePostgres;
  let redis: PrivateRedis;
  let bouncer: PgBouncer;
  let cluster: AuthCluster;
  let clients: ClusterClient[];
  let admin: pg.Pool;

  before(async () => {
    [pgPrivate, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    admin = new pg.Pool({ connectionString: pgPrivate.url, max: 2 });
    admin.on('error', () => {});
    // The service's role and its schema of the same name: first on the default search_path, no setting needed.
    await admin.query(`CREATE ROLE auth LOGIN; CREATE SCHEMA auth AUTHORIZATION auth; GRANT CREATE ON DATABASE postgres TO auth`);
    bouncer = await startPgBouncer({ serverPort: pgPrivate.port, users: ['auth', 'postgres'], poolSize: 8 });
    cluster = await startAuthCluster({
      nodes: 2,
      databaseUrl: bouncer.url('auth', 'postgres'),
      redisUrl: redis.url,
      schema: 'auth',
      env: {
        DATABASE_POOLER: 'transaction',
        AUTH_RATE_GENERAL_PER_IP: UNLIMITED,
        AUTH_RATE_LOGIN_PER_IP: UNLIMITED,
        AUTH_RATE_REFRESH_PER_IP: UNLIMITED,
        AUTH_RATE_GUEST_PER_IP: UNLIMITED,
        AUTH_GUEST_SCORE_SLOW: UNLIMITED,
        AUTH_GUEST_SCORE_REFUSE: UNLIMITED,
      },
    });
    // One attempt per request: the test sees every answer, and a hanging request fails it.
    clients = cluster.nodes.map((_, i) => cluster.client(i, { attempts: 1, timeoutMs: 20_000 }));
  });

  after(async () => {
    await cluster?.close();
    await admin?.end().catch(() => {});
    await bouncer?.destroy();
    await Promise.allSettled([pgPrivate?.destroy(), redis?.destroy()]);
  });

  /** Sign-ups and refreshes on client c until stop() says so. */
  async function worker(c: ClusterClient, t: Tally, running: () => boolean): Promise<void> {
    const record = (what: string, status: number, headers: Record<string, unknown>, body: unknown) => {
      t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1);
      const fine = status < 300 || (status === 503 && headers['retry-after'] !== undefined && (body as { code?: string })?.code === 'database_unavailable');
      if (!fine) t.bad.push(`${what} → ${status} ${headers['retry-after'] === undefined ? '(no Retry-After) ' : ''}${JSON.stringify(body)}`);
    };
    let session: { key: string; token: string } | undefined;
    while (running()) {
      try {
        if (!session) {
          const mail = email('bounce');
          const r = await c.post('/register', { email: mail, password: PASSWORD, device: { fingerprint: fingerprint() } });
          record('register', r.status, r.headers, r.body);
          if (r.status === 201) {
            t.signedUp.push(r.body.account_id);
            session = { key: mail, token: r.body.refresh_token };
            t.sessions.set(mail, r.body.refresh_token);
          } else await sleep(100);
        } else {
          const r = await c.post('/refresh', { refresh_token: session.token });
          record('refresh', r.status, r.headers, r.body);
          if (r.status === 200) {
            t.refreshes++;
            session.token = r.body.refresh_token;
            t.sessions.set(session.key, session.token);
          } else {
            // Not acknowledged: whether the old token was used up is not known (a COMMIT whose answer was lost), so
            // the session is left out of the check; the next round signs up afresh.
            t.sessions.delete(session.key);
            session = undefined;
            await sleep(100);
          }
          // Every few refreshes another account.
          if (session && Math.random() < 0.2) session = undefined;
        }
      } catch (err) {
        t.bad.push(`network: ${(err as Error).message}`);
        if (session) t.sessions.delete(session.key);
        session = undefined;
        await sleep(100);
      }
    }
  }

  it('refuses to start when statements would run in another schema than the configured one', async () => {
    // A pooler told to drop the startup option (a tempting "fix" for PgBouncer's refusal of it): without the check, a
    // service would create and read its tables in public.
    const dropping = await startPgBouncer({ serverPort: pgPrivate.port, users: ['postgres'], ignoreStartupParameters: ['options'] });
    try {
      await assert.rejects(openDatabase({ url: dropping.url('postgres', 'postgres'), schema: 'elsewhere' }), /statements run in schema public, not the configured elsewhere/);
      // The same pooler with DATABASE_POOLER=transaction: the schema is set per transaction, and the check passes.
      const db = await openDatabase({ url: dropping.url('postgres', 'postgres'), schema: 'elsewhere', pooler: 'transaction' });
      assert.equal((await db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s, 'elsewhere');
      await db.close();
    } finally {
      await dropping.destroy();
    }
  });

  it('answers 503 while PostgreSQL is down, recovers within the bound, and loses nothing acknowledged', async () => {
    const t: Tally = { statuses: new Map(), bad: [], signedUp: [], sessions: new Map(), refreshes: 0 };
    let load = true;
    const workers = clients.flatMap((c) => Array.from({ length: WORKERS_PER_NODE }, () => worker(c, t, () => load)));
    const recoveries: number[] = [];
    try {
      for (let round = 0; round < 2; round++) {
        await sleep(1000);
        const before = t.signedUp.length + t.refreshes;
        await pgPrivate.stop();
        await sleep(DOWN_MS);
        await pgPrivate.start();
        const back = Date.now();
        // Every node answers a write again within the bound.
        for (const c of clients) {
          await eventually(
            async () => (await c.post('/register', { email: email('back'), password: PASSWORD, device: { fingerprint: fingerprint() } })).status === 201,
            RECOVERY_MS,
            `a node signs up again within ${RECOVERY_MS} ms of PostgreSQL being back (pgbouncer log:\n${bouncer.log()}\nnodes:\n${cluster.nodes.map((n) => n.logs.slice(-3000)).join('\n')})`,
            100,
          );
        }
        recoveries.push(Date.now() - back);
        assert.ok(t.signedUp.length + t.refreshes > before, 'the load ran through the round');
      }
      await sleep(500);
    } finally {
      load = false;
      await Promise.all(workers);
    }
    const summary = {
      statuses: Object.fromEntries(t.statuses),
      signUps: t.signedUp.length,
      refreshes: t.refreshes,
      sessionsChecked: t.sessions.size,
      recoveryMs: recoveries,
    };
    console.log(`pgbouncer restart: ${JSON.stringify(summary)}`);
    assert.deepEqual(t.bad.slice(0, 10), [], `every answer is 2xx or 503 database_unavailable with Retry-After (${t.bad.length} others)`);
    assert.ok((t.statuses.get(503) ?? 0) > 0, 'the outage was seen (503s)');
    assert.ok(t.signedUp.length > 0 && t.refreshes > 0);

    // Every acknowledged sign-up is stored (read straight from PostgreSQL, not through the pooler).
    const { rows } = await admin.query<{ id: string }>(`SELECT id FROM auth.accounts WHERE id = ANY($1::uuid[])`, [t.signedUp]);
    const stored = new Set(rows.map((r) => r.id));
    const lost = t.signedUp.filter((m) => !stored.has(m));
    assert.deepEqual(lost, [], `${lost.length} of ${t.signedUp.length} acknowledged sign-ups lost`);
    // Every session's last acknowledged refresh token is the live one: the rotation it acknowledged was committed.
    const c = clients[0];
    const refused: string[] = [];
    for (const [mail, token] of t.sessions) {
      const r = await c.post('/refresh', { refresh_token: token });
      if (r.status !== 200) refused.push(`${mail}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    assert.deepEqual(refused, [], 'the last acknowledged refresh token of each session still refreshes');
  });
});
