/**
 * Where cluster tests and benchmarks keep their data on the shared servers:
 * a fresh PostgreSQL schema per run (AUTH_DB_SCHEMA / SOCIAL__DATABASE__SCHEMA)
 * and, on one Redis, a database number per test file (redis://host:port/<n>),
 * flushed before use; on the Redis Cluster (TEST_REDIS_CLUSTER_NODES, which has only
 * database 0) a fresh REDIS_KEY_PREFIX, deleted after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openStateStore, type StateStore } from '@platform/kit';
import { dropClusterPrefix } from '@platform/kit/testing';

/** The shared servers, or a reason to skip. */
export function sharedStores(): SharedStores | { skip: string } {
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    return { skip: 'cluster tests need the real PostgreSQL and Redis: set DATABASE_URL and REDIS_URL (CI does)' };
  }
  const clusterNodes = process.env.TEST_REDIS_CLUSTER_NODES?.split(',').filter(Boolean);
  return { databaseUrl, redisUrl, ...(clusterNodes?.length ? { clusterNodes } : {}) };
}

/** The shared servers: PostgreSQL, one Redis, and the Redis Cluster's seed nodes when CI started one. */
export interface SharedStores {
  databaseUrl: string;
  redisUrl: string;
  clusterNodes?: string[];
}

/** Which Redis a suite runs on: the one Redis, or the Redis Cluster. */
export type RedisKind = 'redis' | 'redis-cluster';

/** The Redis kinds the suites that depend on Redis run on: one Redis always, the cluster when there is one. */
export function redisKinds(): RedisKind[] {
  const shared = sharedStores();
  return 'skip' in shared || !shared.clusterNodes ? ['redis'] : ['redis', 'redis-cluster'];
}

/** The cluster when there is one, else one Redis: a suite whose one-Redis case other suites already cover. */
export function clusterIfAny(): RedisKind[] {
  return [redisKinds().at(-1)!];
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

/** A test suite's own part of the shared servers: a fresh schema and its own Redis keys (options of startAuthCluster / startSocialCluster). */
export interface SuiteStores {
  databaseUrl: string;
  /** The variables that give a node the suite's Redis (REDIS_URL, or REDIS_CLUSTER_NODES and REDIS_KEY_PREFIX). */
  redis: Record<string, string>;
  schema: string;
  /** A kit state store on the suite's Redis, to look at what the nodes keep there (close it after). */
  openState(): Promise<StateStore>;
}

/**
 * Claims a fresh schema (`<schemaPrefix>_<random>`) and, on one Redis, database `redisDb` flushed before use;
 * on the cluster, a key prefix of the schema's name.
 */
export async function claimSuiteStores(shared: SharedStores, schemaPrefix: string, redisDb: number, kind: RedisKind = 'redis'): Promise<SuiteStores> {
  const schema = uniqueSchema(schemaPrefix);
  if (kind === 'redis-cluster') {
    if (!shared.clusterNodes) throw new Error('no Redis Cluster: TEST_REDIS_CLUSTER_NODES is not set');
    const clusterNodes = shared.clusterNodes;
    const prefix = `${schema}:`;
    return {
      databaseUrl: shared.databaseUrl,
      schema,
      redis: { REDIS_CLUSTER_NODES: clusterNodes.join(','), REDIS_KEY_PREFIX: prefix },
      openState: () => openStateStore({ clusterNodes, prefix }),
    };
  }
  const url = redisDbUrl(shared.redisUrl, redisDb);
  await flushRedisDb(url);
  return { databaseUrl: shared.databaseUrl, schema, redis: { REDIS_URL: url }, openState: () => openStateStore({ url }) };
}

/** Drops the suite's schema and empties its Redis database or deletes its keys (nothing when it was never claimed). */
export async function releaseSuiteStores(suite: SuiteStores | undefined): Promise<void> {
  if (!suite) return;
  await dropSchema(suite.databaseUrl, suite.schema);
  if (suite.redis.REDIS_URL) await flushRedisDb(suite.redis.REDIS_URL);
  else await dropClusterPrefix(suite.redis.REDIS_CLUSTER_NODES.split(','), suite.redis.REDIS_KEY_PREFIX);
}
