// The storage port on PGlite always and on PostgreSQL when DATABASE_URL is set, as the run reaches it: straight, or
// through PgBouncer in transaction mode (DATABASE_POOLER=transaction, as in CI). Both ways are checked wherever
// PostgreSQL is: a straight run also runs pooler mode (the schema set per transaction) on the same server, and a run
// through the pooler also runs straight to DATABASE_DIRECT_URL when set (CI: the PostgreSQL behind the pooler).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate, isUniqueViolation, splitSql, openDatabase } from '../src/db.js';
import { testDatabase, testDatabasePooler, type TestDatabase } from '../src/testing.js';
import type { DatabasePooler } from '../src/db.js';
import { wrapDbError } from '../src/db-errors.js';

const runPooler = testDatabasePooler();
const backends: [string, string | null, DatabasePooler][] = [['pglite', null, 'none']];
if (process.env.DATABASE_URL) {
  backends.push([`postgres${runPooler === 'transaction' ? ' through a transaction pooler' : ''}`, process.env.DATABASE_URL, runPooler]);
  if (runPooler === 'none') backends.push(['postgres with DATABASE_POOLER=transaction', process.env.DATABASE_URL, 'transaction']);
  else if (process.env.DATABASE_DIRECT_URL) backends.push(['postgres straight (DATABASE_DIRECT_URL)', process.env.DATABASE_DIRECT_URL, 'none']);
}

const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
writeFileSync(
  path.join(dir, '0001_items.sql'),
  `-- a comment; with a semicolon
CREATE TABLE items (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name text NOT NULL UNIQUE, note text DEFAULT 'a;b', data jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX items_created ON items (created_at);`,
);
writeFileSync(path.join(dir, '0002_more.sql'), `ALTER TABLE items ADD COLUMN size int NOT NULL DEFAULT 0;`);

for (const [name, url, pooler] of backends) {
  describe(`database contract: ${name}`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await testDatabase('kit', url, pooler);
    });
    after(async () => {
      await t.drop();
    });

    it('applies numbered migrations once, in order', async () => {
      assert.deepEqual(await migrate(t.db, dir), ['0001_items.sql', '0002_more.sql']);
      assert.deepEqual(await migrate(t.db, dir), []);
      const r = await t.db.query<{ note: string; size: number }>(`INSERT INTO items (name) VALUES ('a') RETURNING note, size`);
      assert.deepEqual(r.rows[0], { note: 'a;b', size: 0 });
    });

    it('reports row counts and types the same way', async () => {
      const r = await t.db.query(`UPDATE items SET data = $1 WHERE name = 'a'`, [JSON.stringify({ x: 1 })]);
      assert.equal(r.rowCount, 1);
      const row = (await t.db.query<{ data: unknown; created_at: Date }>(`SELECT data, created_at FROM items`)).rows[0];
      assert.deepEqual(row.data, { x: 1 });
      assert.ok(row.created_at instanceof Date);
    });

    it('prepares parameterised statements once per connection, except those asked to plan per call (never through a pooler)', async () => {
      const prepared = `SELECT name FROM items WHERE name = ANY($1::text[]) /* prepared */`;
      const perCall = `SELECT name FROM items WHERE name = ANY($1::text[]) /* per call */`;
      const seen = await t.db.transaction(async (tx) => {
        assert.deepEqual((await tx.query(prepared, [['a', 'z']])).rows, [{ name: 'a' }]);
        assert.deepEqual((await tx.query(perCall, [['a', 'z']], { prepare: false })).rows, [{ name: 'a' }]);
        if (t.db.kind !== 'postgres') return null;
        return (await tx.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements`)).rows.map((r) => r.statement);
      });
      if (seen && pooler === 'transaction') {
        assert.deepEqual(seen, [], 'through a transaction pooler every statement is unnamed');
      } else if (seen) {
        assert.ok(seen.includes(prepared), 'the default is prepared');
        assert.ok(!seen.includes(perCall), 'prepare: false is not');
      }
    });

    it('rolls a failed transaction back', async () => {
      await assert.rejects(
        t.db.transaction(async (tx) => {
          await tx.query(`INSERT INTO items (name) VALUES ('b')`);
          await tx.query(`INSERT INTO items (name) VALUES ('a')`);
        }),
        (err) => isUniqueViolation(err),
      );
      const r = await t.db.query(`SELECT name FROM items WHERE name = 'b'`);
      assert.equal(r.rowCount, 0);
    });

    it('commits a transaction', async () => {
      const n = await t.db.transaction(async (tx) => {
        await tx.query(`INSERT INTO items (name) VALUES ('c')`);
        return (await tx.query(`SELECT count(*)::int AS n FROM items`)).rows[0].n;
      });
      assert.equal(n, 2);
    });

    it('keeps its tables in its own schema', async () => {
      const r = await t.db.query<{ table_schema: string }>(
        `SELECT table_schema FROM information_schema.tables WHERE table_name = 'items' AND table_schema = $1`,
        [t.schema],
      );
      assert.equal(r.rowCount, 1);
    });
  });
}

describe('database on PostgreSQL in pooler mode (DATABASE_POOLER=transaction)', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL' }, () => {
  const url = process.env.DATABASE_URL!;
  it('keeps two schemas apart on shared server connections, leaving no session state behind', async () => {
    const [a, b] = [await testDatabase('kit', url, 'transaction'), await testDatabase('kit', url, 'transaction')];
    try {
      // Same table name, different columns: a statement run under the other's search_path fails.
      await a.db.exec(`CREATE TABLE twin (a_only int); INSERT INTO twin VALUES (1)`);
      await b.db.exec(`CREATE TABLE twin (b_only text); INSERT INTO twin VALUES ('b')`);
      for (let i = 0; i < 20; i++) {
        const [ra, rb] = await Promise.all([
          a.db.query<{ a_only: number }>(`SELECT a_only FROM twin WHERE a_only = $1`, [1]),
          b.db.transaction(async (tx) => (await tx.query<{ b_only: string }>(`SELECT b_only FROM twin WHERE b_only = $1`, ['b']))),
        ]);
        assert.deepEqual([ra.rows, rb.rows], [[{ a_only: 1 }], [{ b_only: 'b' }]]);
      }
      // A plain client after them (through the pooler: on one of the same server connections) finds the defaults.
      const { default: Pg } = await import('pg');
      const raw = new Pg.Client({ connectionString: url });
      await raw.connect();
      try {
        for (let i = 0; i < 5; i++) assert.equal((await raw.query(`SHOW search_path`)).rows[0].search_path, '"$user", public');
      } finally {
        await raw.end();
      }
    } finally {
      await a.drop();
      await b.drop();
    }
  });

  it('refuses to start when DATABASE_URL is a transaction pooler and DATABASE_POOLER is not set', { skip: runPooler === 'transaction' ? false : 'DATABASE_URL is not a pooler' }, async () => {
    await assert.rejects(openDatabase({ url, schema: 'kit_not_pooled' }), /DATABASE_POOLER=transaction/);
  });
});

describe('splitSql', () => {
  it('splits on semicolons outside strings, comments and dollar bodies', () => {
    assert.deepEqual(splitSql(`SELECT ';'; -- x; y\nSELECT $$a;b$$;SELECT 1`), [`SELECT ';'`, `SELECT $$a;b$$`, `SELECT 1`]);
  });
});

describe('database errors', () => {
  it("turns PgBouncer's answers while PostgreSQL is away (SQLSTATE 08P01) into a 503 database_unavailable", () => {
    for (const message of ['pgbouncer cannot connect to server', 'server conn crashed?', 'query_wait_timeout']) {
      assert.throws(
        () => wrapDbError(Object.assign(new Error(message), { code: '08P01', severity: 'FATAL' })),
        (err: any) => err.status === 503 && err.code === 'database_unavailable',
      );
    }
  });

  it('turns an unreachable PostgreSQL into a 503 database_unavailable', async () => {
    await assert.rejects(openDatabase({ url: 'postgres://postgres@127.0.0.1:1/test', schema: 'x', connectTimeoutMs: 500 }), (err: any) => {
      assert.equal(err.status, 503);
      assert.equal(err.code, 'database_unavailable');
      return true;
    });
  });
});
