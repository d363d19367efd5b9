/**
 * Storage port: PostgreSQL through `pg` when DATABASE_URL is set, embedded
 * PGlite otherwise. Both speak the same SQL, so one set of migrations serves
 * both. Each service lives in its own schema (search_path), so the services
 * can share one database or live in separate ones. Behind a transaction-mode
 * pooler (DATABASE_POOLER=transaction) no session state is relied on
 * (docs/decisions/0019-transaction-pooler.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { createHash } from 'node:crypto';
import { AppError } from './errors.js';
import { wrapDbError } from './db-errors.js';
import { openEmbeddedPostgres, type EmbeddedPostgres } from './pglite.js';
import type { Database, Queryable } from './db-types.js';

export { DatabaseError } from './db-errors.js';

export type { QueryResult, QueryOptions, Queryable, PoolStats, Database } from './db-types.js';

export interface DatabaseOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory; absent or 'memory://' keeps it in memory. */
  dataDir?: string;
  /** Schema owned by the service. */
  schema: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** Milliseconds to wait for a pooled connection before failing fast. */
  connectTimeoutMs?: number;
  /**
   * Without url: an embedded PostgreSQL this process already holds (several services over one PGlite, each
   * in its own schema) instead of a PGlite of its own at dataDir. Closing the Database leaves it open.
   */
  embedded?: EmbeddedPostgres;
  /**
   * 'transaction' (DATABASE_POOLER): url reaches PostgreSQL through a pooler in transaction mode (PgBouncer's
   * `pool_mode = transaction`), where consecutive statements may run on different server connections and no session
   * state survives a transaction. No startup options, unnamed statements only, and the schema chosen without
   * session state: by the role's own default (a role named like the schema, or `ALTER ROLE … SET search_path`),
   * checked at open, or else by `SET LOCAL search_path` in every transaction (docs/decisions/0019-transaction-pooler.md).
   */
  pooler?: DatabasePooler;
}

/** How DATABASE_URL reaches PostgreSQL: straight ('none') or through a transaction-mode pooler. */
export type DatabasePooler = 'none' | 'transaction';

/** Distinct statement texts prepared per pool (beyond it, statements run unnamed). */
const MAX_PREPARED = 2000;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (!SCHEMA_NAME.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  if (opts.url) return openPostgres(opts);
  if (opts.embedded) return opts.embedded.database(opts.schema);
  // A PGlite of its own: closing the Database closes it.
  const embedded = await openEmbeddedPostgres(opts.dataDir);
  const db = await embedded.database(opts.schema).catch(async (err) => {
    await embedded.close();
    throw err;
  });
  return { ...db, close: () => embedded.close() };
}

async function openPostgres(opts: DatabaseOptions): Promise<Database> {
  const schema = opts.schema;
  const pooled = opts.pooler === 'transaction';
  // Loaded only for PostgreSQL: the embedded defaults never need it.
  const { default: Pg } = await import('pg');
  const pool = new Pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 2000,
    // Keeps a dead server from hanging requests forever.
    query_timeout: 15_000,
    // Straight to PostgreSQL the schema is the session's, set once per connection at its start. A transaction
    // pooler refuses the startup option (PgBouncer: "unsupported startup parameter: options"), and would hand the
    // session to other clients anyway: there the schema is chosen below.
    ...(pooled ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle client losing its connection must not crash the process; nor may one checked out, between the statements
  // of a transaction, that is told so (PgBouncer sends "server conn crashed?" the moment PostgreSQL goes away): its next
  // statement fails instead (database_unavailable), and the connection is not given back.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));

  // Parameterised statements are prepared once per connection (named by a digest of their text) and then
  // only bound and executed: measured in bench/ (docs/benchmarks.md), PostgreSQL skips parse and plan per call.
  // Bounded, so SQL built dynamically cannot grow every connection's statement cache without limit.
  // Through a transaction pooler, never: a statement prepared on one server connection is unknown on the next
  // (PgBouncer before 1.21 does not track them), so every statement is sent unnamed (parsed and planned per call).
  const prepared = new Map<string, string>();
  const statementName = (sql: string): string | undefined => {
    if (pooled) return undefined;
    let name = prepared.get(sql);
    if (!name && prepared.size < MAX_PREPARED) prepared.set(sql, (name = `s_${createHash('sha1').update(sql).digest('hex')}`));
    return name;
  };
  const asQueryable = (c: pg.Pool | pg.PoolClient): Queryable => ({
    async query(sql, params, options) {
      try {
        const name = params?.length && options?.prepare !== false ? statementName(sql) : undefined;
        const r = await (name ? c.query({ name, text: sql, values: params as unknown[] }) : c.query(sql, params as unknown[]));
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      } catch (err) {
        wrapDbError(err);
      }
    },
  });
  const base = asQueryable(pool);

  // Through a transaction pooler whose role does not already default to the schema, each transaction names it
  // itself (SET LOCAL ends with the transaction, so nothing is left on the server connection for the next client);
  // a statement outside a transaction runs in one of its own. Sent with BEGIN in one round trip.
  let scoped = false;
  const begin = () => (scoped ? `BEGIN; SET LOCAL search_path TO ${schema}` : 'BEGIN');
  const transaction = async <T>(fn: (tx: Queryable, client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch(wrapDbError);
    let broken = false;
    try {
      // BEGIN/COMMIT failing on a lost connection is an outage too (503, not 500).
      await client.query(begin()).catch(wrapDbError);
      const result = await fn(asQueryable(client), client);
      await client.query('COMMIT').catch(wrapDbError);
      return result;
    } catch (err) {
      // A connection that failed (or timed out) is not given back to the pool.
      broken = err instanceof AppError && err.code === 'database_unavailable';
      if (!broken) await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release(broken);
    }
  };

  try {
    await openSchema(pool, schema, pooled, (v) => (scoped = v), (fn) => transaction((tx) => fn(tx)));
  } catch (err) {
    await pool.end().catch(() => {});
    throw startupError(err, pooled);
  }

  const max = opts.poolSize ?? 10;
  return {
    kind: 'postgres',
    schema,
    query: (sql, params, options) => (scoped ? transaction((tx) => tx.query(sql, params, options)) : base.query(sql, params, options)),
    stats: () => ({ backend: 'postgres', max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    transaction: (fn) => transaction((tx) => fn(tx)),
    async exec(sql) {
      if (scoped) await transaction((_tx, client) => client.query(sql).catch(wrapDbError));
      else await pool.query(sql).catch(wrapDbError);
    },
    async ping() {
      await pool.query('SELECT 1').catch(wrapDbError);
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * Creates the schema when missing and checks that statements run in it. Tells `setScoped(true)` when each transaction
 * must name it (SET LOCAL): through a pooler whose role does not already default to it.
 */
async function openSchema(
  pool: pg.Pool,
  schema: string,
  pooled: boolean,
  setScoped: (scoped: boolean) => void,
  inTransaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>,
): Promise<void> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch(wrapDbError);
  const current = async (q: Queryable) => (await q.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s;
  const plain: Queryable = {
    async query(sql) {
      const r = await pool.query(sql).catch(wrapDbError);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
  };
  const scoped = pooled && (await current(plain)) !== schema;
  setScoped(scoped);
  // The schema every statement will run in, seen from inside (a pooler or proxy dropping the startup option, a
  // role's search_path naming another schema first): a service must never read or migrate someone else's tables.
  const seen = scoped ? await inTransaction(current) : await current(plain);
  if (seen !== schema) {
    throw new Error(
      `database: statements run in schema ${seen ?? '(none)'}, not the configured ${schema}` +
        (pooled ? '' : ' (behind a transaction-mode pooler such as PgBouncer, set DATABASE_POOLER=transaction)'),
    );
  }
}

/** A pooler refusing the startup option that sets the schema says what to set. */
function startupError(err: unknown, pooled: boolean): unknown {
  const text = `${(err as Error)?.message} ${(err as { cause?: Error })?.cause?.message}`;
  if (pooled || !/unsupported startup parameter: options/.test(text)) return err;
  return new Error('database: the server refused the startup option that sets the schema: DATABASE_URL reaches a pooler (PgBouncer?); set DATABASE_POOLER=transaction', {
    cause: err,
  });
}

/**
 * Applies numbered migrations (`0001_name.sql`, …) from a directory, once
 * each, in order. An advisory lock serialises nodes starting together.
 * `through`: only the versions up to this one (rebuilding an older database's tables).
 */
export async function migrate(db: Database, dir: string, opts: { through?: number } = {}): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f) && Number(f.slice(0, 4)) <= (opts.through ?? Infinity))
    .sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`migrate:${db.schema}`]);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const file of files) {
      const version = Number(file.slice(0, 4));
      if (done.has(version)) continue;
      const sql = readFileSync(path.join(dir, file), 'utf8');
      // Statements run one at a time inside the transaction (PGlite's
      // transaction API takes one statement per query).
      for (const stmt of splitSql(sql)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file]);
      applied.push(file);
    }
  });
  return applied;
}

/** Splits a migration script on semicolons outside quotes, comments and $$ bodies. */
export function splitSql(sql: string): string[] {
  const out: string[] = [];
  let cur = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      continue;
    }
    if (c === "'") {
      const end = sql.indexOf("'", i + 1);
      cur += sql.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '$' && sql[i + 1] === '$') {
      const end = sql.indexOf('$$', i + 2);
      cur += sql.slice(i, end + 2);
      i = end + 2;
      continue;
    }
    if (c === ';') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      i++;
      continue;
    }
    cur += c;
    i++;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** True when err is a unique-constraint violation (both backends use SQLSTATE 23505). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}
