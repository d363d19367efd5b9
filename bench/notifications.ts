/**
 * The notification inbox's statements on a full inbox (docs/social.md, "Notifications", "Cost"): storing one
 * (mute and block check and insert in one statement) against a plain one-row INSERT (a write
 * commits, a read does not: the WAL flush is most of a write's time), and the first page with its unread count
 * (what GET /v1/notifications runs), a page deep behind a cursor and an unread page against a `SELECT 1` round
 * trip; each measured in alternating slices with its baseline (the machine is shared; only same-run ratios mean
 * much).
 *
 *   node --conditions=development --import tsx bench/notifications.ts [iterations]
 *
 * PostgreSQL at DATABASE_URL (a fresh schema, dropped at the end); embedded PGlite without it.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { migrate, type Database } from '@platform/kit';
import { testDatabase } from '@platform/kit/testing';
import { inboxPage, insertNotification, trimInboxes, unreadCount } from '../packages/social/src/queries/notifications.js';
import { BENCH, percentile } from './lib.js';

const CAP = 500;
const ITERATIONS = Number(process.argv[2] ?? 2000);
const SLICE = 50;

async function user(db: Database, name: string): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO users (account_id, public_id, display_name, name_key, discriminator) VALUES ($1, $2, $3, lower($3), '0001') RETURNING id`,
    [`acct-${randomUUID()}`, `p_${randomUUID()}`, `${name}${randomUUID().slice(0, 6)}`],
  );
  return r.rows[0].id;
}

type Step = () => Promise<unknown>;

/** Runs `work` and `baseline` in alternating slices; latencies in ms. */
async function measure(work: Step, baseline: Step) {
  const w: number[] = [];
  const b: number[] = [];
  for (let done = 0; done < ITERATIONS; done += SLICE) {
    for (const [fn, out] of [[work, w], [baseline, b]] as const) {
      for (let i = 0; i < SLICE; i++) {
        const t = process.hrtime.bigint();
        await fn();
        out.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return { p50: percentile(s, 0.5)!, p99: percentile(s, 0.99)!, perSec: Math.round(1000 / (xs.reduce((a, x) => a + x, 0) / xs.length)) };
  };
  return { work: stats(w), baseline: stats(b) };
}

async function main(): Promise<void> {
  const t = await testDatabase('bench_notif');
  const db = t.db;
  try {
    await migrate(db, path.join(BENCH, '../packages/social/migrations'));
    const reader = await user(db, 'Reader');
    const actor = await user(db, 'Actor');
    const insert = () => insertNotification(db, { userId: reader, kind: 'friendRequestReceived', actorId: actor, data: { requestId: randomUUID() }, createdAt: new Date() });
    for (let i = 0; i < CAP; i++) await insert();
    const deep = (await inboxPage(db, { userId: reader, beforeSeq: null, unreadOnly: false, limit: 250 })).at(-1)!.seq;
    await db.query('CREATE TABLE plain_rows (id bigserial PRIMARY KEY, user_id uuid NOT NULL, data jsonb NOT NULL)');
    const plainInsert = () => db.query('INSERT INTO plain_rows (user_id, data) VALUES ($1, $2::jsonb)', [reader, JSON.stringify({ requestId: randomUUID() })]);
    const ping = () => db.query('SELECT 1');
    const rows: [string, Step, string, Step][] = [
      ['store one (mute/block check + insert)', insert, 'plain INSERT', plainInsert],
      ['first page of 20 + unread count', async () => Promise.all([inboxPage(db, { userId: reader, beforeSeq: null, unreadOnly: false, limit: 21 }), unreadCount(db, reader)]), 'SELECT 1', ping],
      ['page of 20 at position 250 (cursor)', () => inboxPage(db, { userId: reader, beforeSeq: deep, unreadOnly: false, limit: 21 }), 'SELECT 1', ping],
      ['unread page of 20', () => inboxPage(db, { userId: reader, beforeSeq: null, unreadOnly: true, limit: 21 }), 'SELECT 1', ping],
    ];
    console.log(`${t.url ? 'PostgreSQL' : 'PGlite'}, inbox of ${CAP}, ${ITERATIONS} each, alternating with the baseline in slices of ${SLICE}`);
    console.log('| statement | p50 ms | p99 ms | per s (one connection) | baseline | its p50 ms | ratio (p50) |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, fn, baseName, base] of rows) {
      const m = await measure(fn, base);
      console.log(`| ${name} | ${m.work.p50.toFixed(3)} | ${m.work.p99.toFixed(3)} | ${m.work.perSec} | ${baseName} | ${m.baseline.p50.toFixed(3)} | ${(m.work.p50 / m.baseline.p50).toFixed(2)} |`);
    }
    const t0 = process.hrtime.bigint();
    const trimmed = await trimInboxes(db, CAP);
    console.log(`the purge's trim to the cap of ${CAP}: ${trimmed} rows in ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
  } finally {
    await t.drop();
  }
}

await main();
