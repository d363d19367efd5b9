// The storage port on PGlite always and on PostgreSQL when DATABASE_URL is set.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate, isUniqueViolation, splitSql, openDatabase } from '../src/db.js';
import { testDatabase, type TestDatabase } from '../src/testing.js';

const backends: [string, string | null][] = [['pglite', null]];
if (process.env.DATABASE_URL) backends.push(['postgres', process.env.DATABASE_URL]);

const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
writeFileSync(
  path.join(dir, '0001_items.sql'),
  `-- a comment; with a semicolon
CREATE TABLE items (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name text NOT NULL UNIQUE, note text DEFAULT 'a;b', data jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX items_created ON items (created_at);`,
);
writeFileSync(path.join(dir, '0002_more.sql'), `ALTER TABLE items ADD COLUMN size int NOT NULL DEFAULT 0;`);

for (const [name, url] of backends) {
  describe(`database contract: ${name}`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await testDatabase('kit', url);
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

    it('prepares parameterised statements once per connection, except those asked to plan per call', async () => {
      const prepared = `SELECT name FROM items WHERE name = ANY($1::text[]) /* prepared */`;
      const perCall = `SELECT name FROM items WHERE name = ANY($1::text[]) /* per call */`;
      const seen = await t.db.transaction(async (tx) => {
        assert.deepEqual((await tx.query(prepared, [['a', 'z']])).rows, [{ name: 'a' }]);
        assert.deepEqual((await tx.query(perCall, [['a', 'z']], { prepare: false })).rows, [{ name: 'a' }]);
        if (t.db.kind !== 'postgres') return null;
        return (await tx.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements`)).rows.map((r) => r.statement);
      });
      if (seen) {
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

describe('splitSql', () => {
  it('splits on semicolons outside strings, comments and dollar bodies', () => {
    assert.deepEqual(splitSql(`SELECT ';'; -- x; y\nSELECT $$a;b$$;SELECT 1`), [`SELECT ';'`, `SELECT $$a;b$$`, `SELECT 1`]);
  });
});

describe('database errors', () => {
  it('turns an unreachable PostgreSQL into a 503 database_unavailable', async () => {
    await assert.rejects(openDatabase({ url: 'postgres://postgres@127.0.0.1:1/test', schema: 'x', connectTimeoutMs: 500 }), (err: any) => {
      assert.equal(err.status, 503);
      assert.equal(err.code, 'database_unavailable');
      return true;
    });
  });
});
