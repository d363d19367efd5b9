/**
 * Test stores: each test file gets its own database schema (PostgreSQL) or in-memory PGlite, and its own Redis key
 * prefix, so files run in parallel. With DATABASE_URL / REDIS_URL set (CI) the real servers are used.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { openDatabase, type Database, type DatabasePooler } from '../db.js';
import { openStateStore, type StateStore, type StateStoreOptions } from '../state/index.js';

const suffix = () => randomBytes(5).toString('hex');

/** DATABASE_POOLER of the test run: 'transaction' when DATABASE_URL is a PgBouncer in transaction mode (CI). */
export function testDatabasePooler(): DatabasePooler {
  return process.env.DATABASE_POOLER === 'transaction' ? 'transaction' : 'none';
}

export interface TestDatabase {
  db: Database;
  url: string | null;
  /** How url is reached (open more connections to the schema with it). */
  pooler: DatabasePooler;
  schema: string;
  drop(): Promise<void>;
}

/** A fresh, empty schema on PostgreSQL (DATABASE_URL) or an in-memory PGlite. */
export async function testDatabase(
  service: string,
  url: string | null = process.env.DATABASE_URL ?? null,
  // DATABASE_POOLER=transaction: the URL is a PgBouncer in transaction mode (CI runs the suite through one).
  pooler: DatabasePooler = testDatabasePooler(),
): Promise<TestDatabase> {
  const schema = `t_${service}_${suffix()}`;
  const db = await openDatabase({ url: url ?? undefined, schema, poolSize: 5, pooler });
  return {
    db,
    url,
    pooler,
    schema,
    async drop() {
      if (db.kind === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await db.close();
    },
  };
}

export interface TestStateStore {
  state: StateStore;
  prefix: string;
  /** The Redis the store is on (a URL, or a cluster's seed nodes); null in memory. */
  url: string | null;
  drop(): Promise<void>;
}

/** Where the test stores of this run live: REDIS_URL, or `url` given as a string or cluster options. */
export type TestRedis = string | Pick<StateStoreOptions, 'url' | 'clusterNodes'> | null;

/**
 * The stores the contract suites run on, by adapter name: memory always, `redis` with REDIS_URL and
 * `redis-cluster` with REDIS_CLUSTER_NODES (CI sets both).
 */
export function testRedisTargets(): [name: string, target: TestRedis][] {
  const list: [string, TestRedis][] = [['memory', null]];
  if (process.env.REDIS_URL) list.push(['redis', process.env.REDIS_URL]);
  if (process.env.REDIS_CLUSTER_NODES) list.push(['redis-cluster', { clusterNodes: process.env.REDIS_CLUSTER_NODES.split(',') }]);
  return list;
}

/** A state store with a unique key prefix on Redis (REDIS_URL, or the target given), or in memory. */
export async function testStateStore(target: TestRedis = process.env.REDIS_URL ?? null): Promise<TestStateStore> {
  const prefix = `t:${suffix()}:`;
  const opts: StateStoreOptions = typeof target === 'string' ? { url: target } : { ...target };
  const state = await openStateStore({ ...opts, prefix });
  const url = opts.url ?? (opts.clusterNodes?.length ? opts.clusterNodes.join(',') : null);
  return {
    state,
    prefix,
    url,
    async drop() {
      await state.close();
      if (opts.clusterNodes?.length) await dropClusterPrefix(opts.clusterNodes, prefix);
      else if (opts.url) await dropRedisPrefix(opts.url, prefix);
    },
  };
}

async function dropPrefixOn(r: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    // One DEL per key: on a cluster node the keys of one scan may lie in several slots.
    for (const key of keys) await r.del(key);
    cursor = next;
  } while (cursor !== '0');
}

/** Deletes every key under a prefix (a test's, or a test platform's REDIS_KEY_PREFIX). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url);
  try {
    await dropPrefixOn(r, prefix);
  } finally {
    await r.quit();
  }
}

/** The same on every primary of a Redis Cluster (seed nodes `host:port`). */
export async function dropClusterPrefix(seeds: readonly string[], prefix: string): Promise<void> {
  const cluster = new Cluster(seeds.map((s) => ({ host: s.split(':')[0], port: Number(s.split(':')[1]) })), { lazyConnect: true });
  try {
    await cluster.connect();
    // Asked, not taken from the client's view: after a failover the view may still call a replica a primary.
    const nodes = cluster.nodes('all');
    const roles = await Promise.all(nodes.map((node) => node.role().then((r) => r[0], () => 'unreachable')));
    await Promise.all(nodes.filter((_, i) => roles[i] === 'master').map((node) => dropPrefixOn(node, prefix)));
  } finally {
    cluster.disconnect();
  }
}
