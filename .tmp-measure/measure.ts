// Round-trip cost of the pooler modes (not part of the repo): sequential single-row reads and 1-statement transactions.
import { openDatabase } from '../packages/kit/src/db.js';
import pg from 'pg';
const N = Number(process.env.N ?? 3000);
const dbName = `pgb_measure_${process.pid}`;
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const direct = `postgres://postgres@127.0.0.1:5432/${dbName}`;
const bouncer = `postgres://postgres@127.0.0.1:${process.env.PGB_PORT ?? 6491}/${dbName}`;
const cases: [string, string, 'none' | 'transaction', string][] = [
  ['direct, named prepared (today)', direct, 'none', 'svc'],
  ['direct, DATABASE_POOLER=transaction, SET LOCAL', direct, 'transaction', 'svc'],
  ['pgbouncer, role default schema (pinned)', bouncer, 'transaction', 'postgres'],
  ['pgbouncer, SET LOCAL per transaction', bouncer, 'transaction', 'svc'],
];
try {
  for (const [name, url, pooler, schema] of cases) {
    const db = await openDatabase({ url, schema, pooler, poolSize: 1 });
    await db.exec(`CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, v text); INSERT INTO items SELECT g, 'x' FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING`);
    for (let i = 0; i < 300; i++) await db.query(`SELECT v FROM items WHERE id = $1`, [i % 1000 + 1]);
    let t = performance.now();
    for (let i = 0; i < N; i++) await db.query(`SELECT v FROM items WHERE id = $1`, [i % 1000 + 1]);
    const q = ((performance.now() - t) * 1000) / N;
    t = performance.now();
    for (let i = 0; i < N; i++) await db.transaction((tx) => tx.query(`UPDATE items SET v = $2 WHERE id = $1`, [i % 1000 + 1, 'y']));
    const x = ((performance.now() - t) * 1000) / N;
    console.log(`${name}: query ${q.toFixed(0)} µs, 1-statement transaction ${x.toFixed(0)} µs`);
    await db.close();
  }
} finally {
  await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
}
