/**
 * Does the time of `POST /password/reset-request` (and `/email/verify/resend`) tell a known address from an
 * unknown one? (docs/auth.md, "Email flows".) Not part of `npm run bench`: run it alone,
 *
 *   node --conditions=development --import tsx bench/email-enumeration.ts
 *
 * on PGlite, or on PostgreSQL and Redis with DATABASE_URL and REDIS_URL (a throwaway schema and key prefix). One
 * auth app in this process (plain HTTP on loopback, mail to a mailbox directory), timed by a client process one
 * request at a time. Known and unknown addresses are interleaved in a random order, so drift on the shared machine
 * weighs on both. Per endpoint it prints the median and p90 of each and their ratio, and of the request the client
 * sends right after each (does the deferred work of a known address slow it?).
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testDatabase, testStateStore } from '@platform/kit/testing';
import { buildApp, migrateAuth, readAuthConfig } from '@platform/auth';
import { percentile } from './lib.js';

const ROUNDS = Number(process.env.BENCH_EMAIL_ROUNDS ?? 400);
const dir = mkdtempSync(path.join(tmpdir(), 'bench-email-'));
const tdb = await testDatabase('auth');
const tstate = await testStateStore();
await migrateAuth(tdb.db);
const config = readAuthConfig({
  DATA_DIR: dir,
  LOG_LEVEL: 'silent',
  AUTH_MASTER_KEY: randomBytes(32).toString('hex'),
  AUTH_PASSWORD_MEMORY_KIB: '1024',
  AUTH_PASSWORD_TIME_COST: '1',
  AUTH_RATE_GENERAL_PER_IP: '100000000',
  AUTH_RATE_LOGIN_PER_IP: '100000000',
  AUTH_RATE_EMAIL_PER_IP: '100000000',
  AUTH_RATE_EMAIL_PER_ADDRESS: '100000000',
  // BENCH_MAIL_DEFER_MAX_MS=0: the deferred work starts with the answer, as before issue 25 item 8.
  AUTH_MAIL_DEFER_MAX_MS: process.env.BENCH_MAIL_DEFER_MAX_MS ?? '1500',
});
const app = await buildApp(config, { db: tdb.db, state: tstate.state });

const known: string[] = [];
for (let i = 0; i < 50; i++) {
  const email = `bench-known-${i}-${randomBytes(3).toString('hex')}@example.test`;
  const r = await app.inject({ method: 'POST', url: '/register', payload: { email, password: 'a long bench passphrase' } });
  if (r.statusCode !== 201) throw new Error(`register: ${r.statusCode} ${r.body}`);
  known.push(email);
}
await app.auth.mailer.idle();

// The client is another process (as a prober would be): the service's deferred work (the lookup, the insert, the
// mail) runs on this process's thread after the answer is sent, and an in-process client would be timed behind it.
// It pauses 30 ms between requests so each is timed on a quiet service.
const CLIENT = `
const [base, plan] = [process.argv[1], JSON.parse(process.argv[2])];
const out = [];
for (const [kind, url, email] of plan) {
  const t0 = performance.now();
  const r = await fetch(base + url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 202) throw new Error(url + ': ' + r.status);
  // The asker's next request, at once: the deferred work of a known address ran while it waited (issue 25 item 8).
  const t1 = performance.now();
  await (await fetch(base + '/.well-known/jwks.json')).text();
  out.push([kind, ms, performance.now() - t1]);
  await new Promise((res) => setTimeout(res, 30));
}
console.log(JSON.stringify(out));
`;
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

const rows: string[] = [];
for (const url of ['/password/reset-request', '/email/verify/resend']) {
  // A random order (not strict alternation): what the previous request left behind weighs on known and unknown alike.
  const plan: [string, string, string][] = [];
  for (let i = 0; i < 20; i++) plan.push(['warm', url, known[i % known.length]]);
  for (let i = 0, k = 0, u = 0; k < ROUNDS || u < ROUNDS; i++) {
    if ((Math.random() < 0.5 && k < ROUNDS) || u >= ROUNDS) plan.push(['known', url, known[k++ % known.length]]);
    else plan.push(['unknown', url, `bench-unknown-${u++}-${randomBytes(3).toString('hex')}@example.test`]);
  }
  // Asynchronously: this process serves the requests meanwhile.
  const child = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CLIENT, base, JSON.stringify(plan)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const timed = JSON.parse(child.stdout) as [string, number, number][];
  const a = timed.filter(([k]) => k === 'known').map(([, ms]) => ms).sort((x, y) => x - y);
  const b = timed.filter(([k]) => k === 'unknown').map(([, ms]) => ms).sort((x, y) => x - y);
  const an = timed.filter(([k]) => k === 'known').map(([, , ms]) => ms).sort((x, y) => x - y);
  const bn = timed.filter(([k]) => k === 'unknown').map(([, , ms]) => ms).sort((x, y) => x - y);
  await app.auth.mailer.idle();
  const f = (v: number | null) => (v === null ? '-' : v.toFixed(2));
  const [ka, ua] = [percentile(a, 0.5), percentile(b, 0.5)];
  rows.push(
    `${url.padEnd(26)} known p50 ${f(ka)} ms p90 ${f(percentile(a, 0.9))} ms | unknown p50 ${f(ua)} ms p90 ${f(percentile(b, 0.9))} ms | unknown/known p50 ${ka && ua ? (ua / ka).toFixed(2) : '-'}`,
    `${'  the next request'.padEnd(26)} known p50 ${f(percentile(an, 0.5))} ms p90 ${f(percentile(an, 0.9))} ms | unknown p50 ${f(percentile(bn, 0.5))} ms p90 ${f(percentile(bn, 0.9))} ms`,
  );
}
console.log(`${tdb.db.kind}, ${ROUNDS} rounds each`);
for (const r of rows) console.log(r);
await app.close();
await tdb.drop();
await tstate.drop();
rmSync(dir, { recursive: true, force: true });
