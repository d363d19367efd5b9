// Delivery of the outbox (account.deleted, key_rotation) to configured targets over real HTTP.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccessTokenVerifier, staticKeyResolver, type AccessClaims } from '@platform/kit';
import { backoffSeconds } from '../src/index.js';
import { bearer, guest, harness, type Harness } from './support/harness.js';

interface Received {
  body: any;
  authorization?: string;
  idempotencyKey?: string;
}

/** A webhook receiver answering with the statuses it is told to (then 200). */
async function receiver() {
  const received: Received[] = [];
  let statuses: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      res.statusCode = statuses.shift() ?? 200;
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answer(...s: number[]) {
      statuses = s;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

async function deleteAccount(h: Harness) {
  const g = await guest(h.app);
  const r = await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(g.access_token) });
  assert.equal(r.statusCode, 202);
  return g.account_id;
}

const deliveries = async (h: Harness, target: string) =>
  (
    await h.tdb.db.query<{ topic: string; attempts: number; delivered_at: Date | null; last_error: string | null; account_id: string | null }>(
      `SELECT o.topic, d.attempts, d.delivered_at, d.last_error, o.payload->>'account_id' AS account_id
         FROM outbox_deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE d.target = $1 ORDER BY o.created_at`,
      [target],
    )
  ).rows;

describe('outbox delivery', () => {
  let a: Awaited<ReturnType<typeof receiver>>;
  let b: Awaited<ReturnType<typeof receiver>>;
  let h: Harness;
  before(async () => {
    a = await receiver();
    b = await receiver();
    // Long poll interval: the test drives passes with runOnce().
    h = await harness({ AUTH_OUTBOX_TARGETS: `${a.url},${b.url}`, AUTH_OUTBOX_POLL_MS: '60000', AUTH_OUTBOX_MAX_BACKOFF_SECONDS: '1' });
  });
  after(async () => {
    await h.close();
    await a.close();
    await b.close();
  });

  it('posts account.deleted to every target with a server-role token, and records each acknowledgement', async () => {
    const accountId = await deleteAccount(h);
    await h.app.auth.outbox.runOnce();
    for (const t of [a, b]) {
      const got = t.received.find((r) => r.body.account_id === accountId && r.body.type === 'account.deleted');
      assert.ok(got, 'delivered');
      assert.equal(got.body.type, 'account.deleted');
      assert.equal(got.idempotencyKey, got.body.id);
      const token = got.authorization!.replace(/^Bearer /, '');
      const verify = createAccessTokenVerifier({ issuer: h.config.issuer, audience: h.config.audience, keys: staticKeyResolver(() => h.app.auth.keys.publicKeys()) });
      const claims: AccessClaims = await verify(token);
      assert.deepEqual(claims.roles, ['server']);
      assert.equal(claims.sub, 'service:auth');
      assert.ok(claims.exp - claims.iat <= 60);
      const rows = (await deliveries(h, t.url)).filter((r) => r.account_id === accountId && r.topic === 'account.deleted');
      assert.equal(rows.length, 1);
      assert.ok(rows[0].delivered_at);
    }
    const o = await h.tdb.db.query<{ delivered_at: Date | null }>(`SELECT delivered_at FROM outbox WHERE topic = 'account.deleted' AND payload->>'account_id' = $1`, [accountId]);
    assert.ok(o.rows[0].delivered_at, 'the notice is closed once every target acknowledged');
  });

  it('retries a failing target with backoff until it acknowledges; the other target is not resent', async () => {
    // Two notices per deletion (revocation and account.deleted), delivered together: each fails twice.
    a.answer(503, 503, 500, 500);
    const accountId = await deleteAccount(h);
    await h.app.auth.outbox.runOnce();
    let rowA = (await deliveries(h, a.url)).find((r) => r.account_id === accountId && r.topic === 'account.deleted')!;
    assert.equal(rowA.delivered_at, null);
    assert.match(rowA.last_error!, /HTTP 503/);
    const rowB = (await deliveries(h, b.url)).find((r) => r.account_id === accountId && r.topic === 'account.deleted')!;
    assert.ok(rowB.delivered_at);
    // Not due yet: a pass right now sends nothing.
    const before = a.received.length;
    await h.app.auth.outbox.runOnce();
    assert.equal(a.received.length, before);
    // Make it due (instead of waiting for the backoff), twice.
    for (let i = 0; i < 2; i++) {
      await h.tdb.db.query(`UPDATE outbox_deliveries SET next_attempt_at = now() - interval '1 second' WHERE target = $1 AND delivered_at IS NULL`, [a.url]);
      await h.app.auth.outbox.runOnce();
    }
    rowA = (await deliveries(h, a.url)).find((r) => r.account_id === accountId && r.topic === 'account.deleted')!;
    assert.ok(rowA.delivered_at);
    assert.equal(rowA.attempts, 3);
    assert.equal(rowA.last_error, null);
    assert.equal(b.received.filter((r) => r.body.account_id === accountId && r.body.type === 'account.deleted').length, 1);
  });

  it('acknowledged notices are purged after a week; pending ones stay', async () => {
    const pending = await deleteAccount(h);
    const done = await deleteAccount(h);
    // Set the states directly: one acknowledged eight days ago, one still pending.
    await h.tdb.db.query(`UPDATE outbox SET delivered_at = now() - interval '8 days' WHERE payload->>'account_id' = $1`, [done]);
    await h.tdb.db.query(`UPDATE outbox SET delivered_at = NULL WHERE payload->>'account_id' = $1`, [pending]);
    assert.ok((await h.app.auth.outbox.purgeDelivered()) >= 1);
    const left = await h.tdb.db.query<{ id: string }>(`SELECT payload->>'account_id' AS id FROM outbox WHERE topic = 'account.deleted' AND payload->>'account_id' = ANY($1::text[])`, [[pending, done]]);
    assert.deepEqual(left.rows.map((r) => r.id), [pending]);
  });

  it('backoff doubles from 1 s up to the cap', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 10].map((n) => backoffSeconds(n, 300)), [1, 2, 4, 8, 16, 300]);
    assert.equal(backoffSeconds(60, 300), 300);
  });

  it('an emergency key rotation writes a key_rotation notice', async () => {
    const g = await guest(h.app);
    await h.tdb.db.query(`UPDATE accounts SET roles = roles || '{admin}' WHERE id = $1`, [g.account_id]);
    const fresh = await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: 'device-restore-1' } });
    assert.equal(fresh.statusCode, 200, fresh.body);
    const r = await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(fresh.json().access_token), payload: { emergency: true } });
    assert.equal(r.statusCode, 200, r.body);
    await h.app.auth.outbox.runOnce();
    const got = a.received.find((x) => x.body.type === 'key_rotation' && x.body.kid === r.json().kid);
    assert.ok(got, 'key_rotation delivered');
  });
});

describe('outbox durability', () => {
  it('a notice written while no node delivers (a crash before delivery) is delivered by the next node', async () => {
    const t = await receiver();
    const h = await harness({ AUTH_OUTBOX_POLL_MS: '60000' }); // this node has no targets: nothing is sent
    try {
      const accountId = await deleteAccount(h);
      await h.app.auth.outbox.runOnce();
      assert.equal(t.received.length, 0);
      await h.app.close(); // "crash"
      const next = await h.node({ AUTH_OUTBOX_TARGETS: t.url, AUTH_OUTBOX_POLL_MS: '60000' });
      await next.auth.outbox.runOnce();
      assert.equal(t.received.filter((r) => r.body.account_id === accountId && r.body.type === 'account.deleted').length, 1);
    } finally {
      await h.close().catch(() => {});
      await t.close();
    }
  });

  it('two nodes delivering at once send each notice once (claims are skip-locked and leased)', async () => {
    const t = await receiver();
    const h = await harness({ AUTH_OUTBOX_POLL_MS: '60000' });
    try {
      const ids = [await deleteAccount(h), await deleteAccount(h), await deleteAccount(h)];
      const n1 = await h.node({ AUTH_OUTBOX_TARGETS: t.url, AUTH_OUTBOX_POLL_MS: '60000' });
      const n2 = await h.node({ AUTH_OUTBOX_TARGETS: t.url, AUTH_OUTBOX_POLL_MS: '60000' });
      await Promise.all([n1.auth.outbox.runOnce(), n2.auth.outbox.runOnce()]);
      for (const id of ids) assert.equal(t.received.filter((r) => r.body.account_id === id && r.body.type === 'account.deleted').length, 1, id);
    } finally {
      await h.close();
      await t.close();
    }
  });
});

describe('outbox configuration', () => {
  it('names bad targets, internal keys and CA files', async () => {
    const { readAuthConfig } = await import('../src/config.js');
    for (const [name, value] of [
      ['AUTH_OUTBOX_TARGETS', 'ftp://x'],
      ['AUTH_OUTBOX_TARGETS', 'not a url'],
      ['AUTH_INTERNAL_KEYS', 'registry'],
      ['AUTH_INTERNAL_KEYS', 'registry:short'],
      // The auth service's own name: a key under it would mint tokens social takes for auth's notices.
      ['AUTH_INTERNAL_KEYS', 'auth:0123456789abcdef0123'],
      ['AUTH_INTERNAL_KEYS', 'registry:0123456789abcdef0123,Auth:0123456789abcdef0124'],
      ['AUTH_OUTBOX_CA_FILE', '/nonexistent/ca.pem'],
      ['AUTH_DB_SCHEMA', 'Bad-Schema'],
    ]) {
      assert.throws(() => readAuthConfig({ [name]: value }), (err: Error) => err.message.includes(name) && !err.message.includes('short'), `${name}=${value}`);
    }
    const c = readAuthConfig({ AUTH_INTERNAL_KEYS: 'registry:0123456789abcdef0123, matchmaking:fedcba9876543210fedc' });
    assert.deepEqual([...c.internalKeys.keys()], ['registry', 'matchmaking']);
  });
});
