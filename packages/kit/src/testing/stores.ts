/**
 * Test stores: each test file gets its own database schema (PostgreSQL) or in-memory PGlite, and its own Redis key
 * prefix, so files run in parallel. With DATABASE_URL / REDIS_URL set (CI) the real servers are used.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { openDatabase, type Database, type DatabasePooler } from '../db.js';
import { openStateStore, type StateStore } from '../state/index.js';

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
  url: string | null;
  drop(): Promise<void>;
}

/** A state store with a unique key prefix on Redis (REDIS_URL), or in memory. */
export async function testStateStore(url: string | null = process.env.REDIS_URL ?? null): Promise<TestStateStore> {
  const prefix = `t:${suffix()}:`;
  const state = await openStateStore({ url: url ?? undefined, prefix });
  return {
    state,
    prefix,
    url,
    async drop() {
      await state.close();
      if (url) await dropRedisPrefix(url, prefix);
    },
  };
}


/** Deletes every key under a prefix (a test's, or a test platform's REDIS_KEY_PREFIX). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await r.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await r.quit();
  }
}
