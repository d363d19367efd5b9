// One PGlite shared by several services of a process (npm start): each Database view sees only its own schema,
// whatever the interleaving of statements and transactions.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db.js';
import { openEmbeddedPostgres } from '../src/pglite.js';

describe('embedded PostgreSQL shared by schema views', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-embedded-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each view in its own schema across interleaved statements and transactions', async () => {
    const pg = await openEmbeddedPostgres('memory://');
    const a = await openDatabase({ schema: 'svc_a', embedded: pg });
    const b = await openDatabase({ schema: 'svc_b', embedded: pg });
    // Same table name, different columns: a statement run under the wrong search_path fails.
    await a.exec(`CREATE TABLE items (id int PRIMARY KEY, a_only text NOT NULL)`);
    await b.exec(`CREATE TABLE items (id int PRIMARY KEY, b_only int NOT NULL)`);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? a.transaction(async (tx) => {
              await tx.query(`INSERT INTO items (id, a_only) VALUES ($1, $2)`, [i, `a${i}`]);
              await new Promise((r) => setTimeout(r, 1));
              await tx.query(`UPDATE items SET a_only = a_only || '!' WHERE id = $1`, [i]);
            })
          : b.query(`INSERT INTO items (id, b_only) VALUES ($1, $2)`, [i, i * 10]),
      ),
    );
    const ra = await a.query<{ n: number; ok: boolean }>(`SELECT count(*)::int AS n, bool_and(a_only LIKE '%!') AS ok FROM items`);
    const rb = await b.query<{ n: number; sum: number }>(`SELECT count(*)::int AS n, sum(b_only)::int AS sum FROM items`);
    assert.deepEqual(ra.rows[0], { n: 20, ok: true });
    assert.deepEqual(rb.rows[0], { n: 20, sum: 10 * (0 + 2 + 4 + 6 + 8 + 10 + 12 + 14 + 16 + 18 + 20 + 22 + 24 + 26 + 28 + 30 + 32 + 34 + 36 + 38) });
    assert.equal((await a.query<{ s: string }>(`SELECT current_schema() AS s`)).rows[0].s, 'svc_a');
    assert.equal((await b.query<{ s: string }>(`SELECT current_schema() AS s`)).rows[0].s, 'svc_b');
    await pg.close();
  });

  it('rolls back one view’s failed transaction without touching the other, and closing a view leaves the instance open', async () => {
    const pg = await openEmbeddedPostgres('memory://');
    const a = await openDatabase({ schema: 'svc_a', embedded: pg });
    const b = await openDatabase({ schema: 'svc_b', embedded: pg });
    await a.exec(`CREATE TABLE t (v int)`);
    await b.exec(`CREATE TABLE t (v int)`);
    const failing = a.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (1)`);
      throw new Error('boom');
    });
    const other = b.query(`INSERT INTO t VALUES (2)`);
    await assert.rejects(failing, /boom/);
    await other;
    await a.close();
    assert.equal((await b.query<{ n: number }>(`SELECT count(*)::int AS n FROM t`)).rows[0].n, 1);
    // A script that sets its own search_path does not leak into the next statement of another view.
    await b.exec(`SET search_path TO svc_a`);
    assert.equal((await b.query<{ s: string }>(`SELECT current_schema() AS s`)).rows[0].s, 'svc_b');
    assert.equal((await a.query<{ n: number }>(`SELECT count(*)::int AS n FROM t`)).rows[0].n, 0);
    await pg.close();
  });

  it('keeps every schema on disk across a reopen', async () => {
    const first = await openEmbeddedPostgres(path.join(dir, 'pg'));
    for (const s of ['one', 'two']) {
      const db = await first.database(s);
      await db.exec(`CREATE TABLE kept (name text)`);
      await db.query(`INSERT INTO kept VALUES ($1)`, [s]);
    }
    await first.close();
    const again = await openEmbeddedPostgres(path.join(dir, 'pg'));
    for (const s of ['one', 'two']) {
      const db = await again.database(s);
      assert.deepEqual((await db.query(`SELECT name FROM kept`)).rows, [{ name: s }]);
    }
    await again.close();
  });
});
