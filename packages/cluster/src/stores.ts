/**
 * Where cluster tests and benchmarks keep their data on the shared servers:
 * a fresh PostgreSQL schema per run (AUTH_DB_SCHEMA / SOCIAL__DATABASE__SCHEMA)
 * and a Redis database number per test file (redis://host:port/<n>), flushed
 * before use — the services need no key-prefix setting for that.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';

/** The shared servers, or a reason to skip. */
export function sharedStores(): { databaseUrl: string; redisUrl: string } | { skip: string } {
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    return { skip: 'cluster tests need the real PostgreSQL and Redis: set DATABASE_URL and REDIS_URL (CI does)' };
  }
  return { databaseUrl, redisUrl };
}

/** Why a suite on the shared servers skips (they are not configured), or false. */
export function skipWithoutSharedStores(): string | false {
  const stores = sharedStores();
  return 'skip' in stores ? stores.skip : false;
}

export const uniqueSchema = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/** REDIS_URL pointed at database `db` (0–15 on a default Redis). */
export function redisDbUrl(redisUrl: string, db: number): string {
  const u = new URL(redisUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Empties one Redis database (only ever one the cluster suite owns). */
export async function flushRedisDb(url: string): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await r.connect();
    await r.flushdb();
  } finally {
    r.disconnect();
  }
}

/**
 * How `databaseUrl` is reached: 'transaction' when it is the test run's DATABASE_URL and DATABASE_POOLER=transaction
 * says that is a PgBouncer in transaction mode (CI); a private server is reached straight.
 */
export function poolerFor(databaseUrl: string): 'none' | 'transaction' {
  return process.env.DATABASE_POOLER === 'transaction' && databaseUrl === process.env.DATABASE_URL ? 'transaction' : 'none';
}

/** Statements on one schema (schemaPool). */
export interface SchemaPool {
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  end(): Promise<void>;
}

/**
 * A small pg pool on a schema for assertions straight in the database. Through a transaction pooler (poolerFor) no
 * startup option sets the schema: each statement runs in a transaction of its own that sets it (SET LOCAL).
 */
export function schemaPool(databaseUrl: string, schema: string, pooler = poolerFor(databaseUrl)): SchemaPool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3, ...(pooler === 'transaction' ? {} : { options: `-c search_path=${schema}` }) });
  pool.on('error', () => {});
  if (pooler !== 'transaction') return { query: (sql, params) => pool.query(sql, params), end: () => pool.end() };
  return {
    async query(sql, params) {
      const c = await pool.connect();
      try {
        await c.query(`BEGIN; SET LOCAL search_path TO ${schema}`);
        const r = await c.query(sql, params);
        await c.query('COMMIT');
        return r;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        c.release();
      }
    },
    end: () => pool.end(),
  };
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await c.end();
  }
}

/** A test suite's own part of the shared servers: a fresh schema and one Redis database (options of startAuthCluster / startSocialCluster). */
export interface SuiteStores {
  databaseUrl: string;
  redisUrl: string;
  schema: string;
}

/** Claims a fresh schema (`<schemaPrefix>_<random>`) and Redis database `redisDb`, flushed before use. */
export async function claimSuiteStores(shared: { databaseUrl: string; redisUrl: string }, schemaPrefix: string, redisDb: number): Promise<SuiteStores> {
  const suite = { databaseUrl: shared.databaseUrl, redisUrl: redisDbUrl(shared.redisUrl, redisDb), schema: uniqueSchema(schemaPrefix) };
  await flushRedisDb(suite.redisUrl);
  return suite;
}

/** Drops the suite's schema and empties its Redis database (nothing when it was never claimed). */
export async function releaseSuiteStores(suite: SuiteStores | undefined): Promise<void> {
  if (!suite) return;
  await dropSchema(suite.databaseUrl, suite.schema);
  await flushRedisDb(suite.redisUrl);
}
