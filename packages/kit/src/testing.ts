/**
 * Test helpers: each test file gets its own database schema (PostgreSQL) or
 * in-memory PGlite, and its own Redis key prefix, so files run in parallel.
 * With DATABASE_URL / REDIS_URL set (CI) the real servers are used.
 */
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { generate } from 'selfsigned';
import { openDatabase, type Database } from './db.js';
import { openStateStore, type StateStore } from './state.js';

const suffix = () => randomBytes(5).toString('hex');

export interface TestDatabase {
  db: Database;
  url: string | null;
  schema: string;
  drop(): Promise<void>;
}

/** A fresh, empty schema on PostgreSQL (DATABASE_URL) or an in-memory PGlite. */
export async function testDatabase(service: string, url: string | null = process.env.DATABASE_URL ?? null): Promise<TestDatabase> {
  const schema = `t_${service}_${suffix()}`;
  const db = await openDatabase({ url: url ?? undefined, schema, poolSize: 5 });
  return {
    db,
    url,
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
      if (url) {
        const r = new Redis(url);
        let cursor = '0';
        do {
          const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length) await r.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        await r.quit();
      }
    },
  };
}

/** A log destination that keeps every line, to prove what is (not) logged. */
export function captureLogs(): { stream: Writable & { write(chunk: string): boolean }; text(): string; lines(): any[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    stream: stream as never,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

/** A certificate authority for tests of mutual TLS: its certificate, and client certificates it signs. */
export async function testCertificateAuthority(name: string): Promise<{ cert: string; client(commonName: string): Promise<{ cert: string; key: string }> }> {
  const ca = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true },
    ],
  } as never);
  return {
    cert: ca.cert,
    async client(commonName) {
      const c = await generate([{ name: 'commonName', value: commonName }], {
        keyType: 'ec',
        algorithm: 'sha256',
        ca: { key: ca.private, cert: ca.cert },
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true },
          { name: 'extKeyUsage', clientAuth: true },
        ],
      } as never);
      return { cert: c.cert, key: c.private };
    },
  };
}
