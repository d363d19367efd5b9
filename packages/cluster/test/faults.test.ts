/**
 * Store outages, on PRIVATE PostgreSQL and Redis servers (the shared ones are
 * never stopped): readiness flips to 503 within a couple of seconds, requests
 * fail fast with 503 and a stable code instead of hanging, and service resumes
 * by itself when the store is back. Also: the outbox row written with a
 * deletion survives a crash of the node right after the 202.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import {
  eventually,
  skipWithoutSharedStores,
  startAuthCluster,
  startPrivatePostgres,
  startPrivateRedis,
  postgresBinDir,
  type AuthCluster,
  type ClusterClient,
  type JsonResponse,
  type PrivatePostgres,
  type PrivateRedis,
} from '../src/index.js';
import { PASSWORD, email, peekPaseto, register } from './support.js';

const skip = skipWithoutSharedStores() || (postgresBinDir() ? false : 'PostgreSQL server binaries (initdb) are not installed');

/** How long readiness may take to notice an outage or a recovery. */
const NOTICE_MS = 2500;

describe('auth through store outages (private PostgreSQL and Redis)', { skip }, () => {
  let pgPrivate: PrivatePostgres;
  let redisPrivate: PrivateRedis;
  let cluster: AuthCluster;
  let c: ClusterClient;
  let db: pg.Pool;
  // A notice target standing in for social/matchmaking: refuses (503) until told to accept.
  let accepting = false;
  const received: { id: string; type?: string; account_id?: string }[] = [];
  const target = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (!accepting) {
        res.writeHead(503).end();
        return;
      }
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });

  before(async () => {
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    [pgPrivate, redisPrivate] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    // Two nodes: the second one proves that rotation broadcasts survive a Redis restart.
    cluster = await startAuthCluster({
      nodes: 2,
      databaseUrl: pgPrivate.url,
      redisUrl: redisPrivate.url,
      schema: 'auth',
      env: {
        AUTH_OUTBOX_TARGETS: `http://127.0.0.1:${(target.address() as AddressInfo).port}/notices`,
        AUTH_OUTBOX_POLL_MS: '200',
        AUTH_OUTBOX_MAX_BACKOFF_SECONDS: '1',
      },
    });
    c = cluster.client(0, { attempts: 1, timeoutMs: 3000 }); // a hanging request fails the test
    db = new pg.Pool({ connectionString: pgPrivate.url, max: 2, options: '-c search_path=auth' });
    db.on('error', () => {});
  });

  after(async () => {
    await cluster?.close();
    await db?.end().catch(() => {});
    await Promise.allSettled([pgPrivate?.destroy(), redisPrivate?.destroy()]);
    target.close();
  });

  const ready = async () => (await c.get('/readyz')).status;
  /** Waits for /readyz to answer 503 (after `what`) and returns that answer. */
  const notReady = (what: string) =>
    eventually(async () => {
      const x = await c.get('/readyz');
      return x.status === 503 ? x : undefined;
    }, NOTICE_MS, `/readyz 503 after ${what}`);
  /** Waits for /readyz to answer 200 again (after `what`). */
  const readyAgain = (what: string) => eventually(async () => (await ready()) === 200, NOTICE_MS * 2, `/readyz 200 after ${what}`);
  /** Each request answers 503 with `code`, at once. */
  const allFailWith = async (code: string, ...requests: (() => Promise<JsonResponse>)[]) => {
    for (const req of requests) {
      const x = await req();
      assert.equal(x.status, 503, JSON.stringify(x.body));
      assert.equal(x.body.code, code);
    }
  };

  it('PostgreSQL down: /readyz 503, requests fail fast with database_unavailable, and service resumes', async () => {
    const mail = email('pgdown');
    const acct = await register(c, mail);
    assert.equal(await ready(), 200);
    await pgPrivate.stop();
    try {
      const r = await notReady('PostgreSQL stopped');
      assert.equal(r.body.checks.database, 'failing');
      assert.equal(r.body.checks.state, 'ok');
      await allFailWith(
        'database_unavailable',
        () => c.post('/login', { email: mail, password: PASSWORD }),
        () => c.post('/refresh', { refresh_token: acct.refresh_token }),
        () => c.get('/account', { token: acct.access_token }),
      );
      // Verifiers keep working: the key set is served from the node's cache.
      assert.equal((await c.get('/.well-known/jwks.json')).status, 200);
      assert.equal((await c.get('/healthz')).status, 200, 'liveness stays up: restarting the node would not help');
    } finally {
      await pgPrivate.start();
    }
    await readyAgain('PostgreSQL is back');
    const back = await c.post('/refresh', { refresh_token: acct.refresh_token });
    assert.equal(back.status, 200, JSON.stringify(back.body));
  });

  it('PostgreSQL frozen (no answers, connections open): /readyz 503 and requests end in 503 instead of hanging', async () => {
    const mail = email('pgfrozen');
    const acct = await register(c, mail);
    pgPrivate.freeze();
    try {
      // First on a pooled connection that is open but never answers: the kit's
      // query timeout (15 s) ends it with a 503, and the connection is dropped.
      const slow = cluster.client(0, { attempts: 1, timeoutMs: 20_000 });
      await allFailWith('database_unavailable', () => slow.post('/refresh', { refresh_token: acct.refresh_token }));
      await eventually(async () => (await c.get('/readyz')).status === 503, NOTICE_MS, '/readyz 503 while PostgreSQL is frozen');
      // New connections give up after the 2 s connect timeout.
      await allFailWith('database_unavailable', () => slow.post('/login', { email: mail, password: PASSWORD }));
    } finally {
      pgPrivate.thaw();
    }
    await readyAgain('PostgreSQL thaws');
  });

  it('Redis down: /readyz 503, sign-in fails closed with state_unavailable, and service resumes', async () => {
    const mail = email('redisdown');
    const acct = await register(c, mail);
    await redisPrivate.stop();
    try {
      const r = await notReady('Redis stopped');
      assert.equal(r.body.checks.state, 'failing');
      assert.equal(r.body.checks.database, 'ok');
      // Rate limits, lockout windows and the deny set live in Redis: without
      // them the service refuses rather than admit unchecked (fail closed).
      await allFailWith(
        'state_unavailable',
        () => c.post('/login', { email: mail, password: PASSWORD }),
        () => c.post('/guest', { device_fingerprint: 'fp-redis-down-0001' }),
        () => c.post('/refresh', { refresh_token: acct.refresh_token }),
        () => c.get('/account', { token: acct.access_token }),
      );
      assert.equal((await c.get('/.well-known/jwks.json')).status, 200);
    } finally {
      await redisPrivate.start();
    }
    await readyAgain('Redis is back');
    const back = await c.post('/login', { email: mail, password: PASSWORD });
    assert.equal(back.status, 200, JSON.stringify(back.body));
  });

  it('Redis frozen (no answers): requests end in 503 state_unavailable within the command timeout', async () => {
    const mail = email('redisfrozen');
    await register(c, mail);
    redisPrivate.freeze();
    try {
      await eventually(async () => (await c.get('/readyz')).status === 503, NOTICE_MS, '/readyz 503 while Redis is frozen');
      await allFailWith('state_unavailable', () => c.post('/login', { email: mail, password: PASSWORD }));
    } finally {
      redisPrivate.thaw();
    }
    await readyAgain('Redis thaws');
    assert.equal((await c.post('/login', { email: mail, password: PASSWORD })).status, 200);
  });

  it('still broadcasts an emergency key rotation to the other node after the Redis restart', async () => {
    const mail = email('rotadmin');
    const { account_id } = await register(c, mail);
    await db.query(`UPDATE accounts SET roles = roles || '{admin}' WHERE id = $1`, [account_id]);
    const admin = await c.post('/login', { email: mail, password: PASSWORD });
    assert.equal(admin.status, 200);
    const rot = await c.post('/admin/keys/rotate', { emergency: true }, { token: admin.body.access_token });
    assert.equal(rot.status, 200, JSON.stringify(rot.body));
    // Node 2 reloads keys every 30 s by default: within 10 s only the re-established subscription explains it.
    const other = cluster.client(1, { attempts: 1 });
    let refreshToken: string = admin.body.refresh_token;
    await eventually(
      async () => {
        const r = await other.post('/refresh', { refresh_token: refreshToken });
        if (r.status !== 200) throw new Error(`refresh ${r.status}`);
        refreshToken = r.body.refresh_token;
        return peekPaseto(r.body.access_token).kid === rot.body.kid;
      },
      10_000,
      'node 2 signing with the rotated key',
      250,
    );
  });

  it('keeps the outbox row of a deletion when the node is killed right after the 202', async () => {
    const acct = await register(c, email('outbox'));
    const del = await c.delete('/account', { token: acct.access_token });
    assert.equal(del.status, 202, JSON.stringify(del.body));
    await cluster.nodes[0].kill();
    // The deletion writes its account.deleted notice and, through the revocation path, a revocation notice.
    const all = async () => (await db.query(`SELECT id, topic, payload FROM outbox WHERE payload->>'account_id' = $1`, [acct.account_id])).rows;
    const rows = async () => (await all()).filter((r) => r.topic === 'account.deleted');
    assert.ok((await all()).some((r) => r.topic === 'revocation'), 'the revocation notice was written with it');
    const written = await rows();
    assert.equal(written.length, 1);
    assert.equal(written[0].topic, 'account.deleted');
    await cluster.nodes[0].start();
    // The retried deletion (its answer may have been lost with the node) is harmless.
    const again = await c.delete('/account', { token: acct.access_token });
    assert.equal(again.status, 202);
    assert.equal(again.body.deleted_at, del.body.deleted_at);
    const after = await rows();
    assert.equal(after.length, 1, 'no second notice');
    // The target was refusing all along; once it accepts, a node delivers the notice written before the crash.
    accepting = true;
    // If the killed node had claimed the delivery just before it died, the row waits out that claim's lease
    // (LEASE_SECONDS = 30 in auth's outbox) before another node retries it: allow for it.
    const got = await eventually(async () => received.find((n) => n.account_id === acct.account_id && n.type === 'account.deleted'), 40_000, 'the deletion notice delivered');
    assert.equal(got.id, written[0].id, 'the notice id of the row written before the crash');
  });
});
