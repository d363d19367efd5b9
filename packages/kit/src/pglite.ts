/**
 * Embedded PostgreSQL (PGlite) for the development defaults. One PGlite is one connection; several services
 * in one process share it, each through a Database that runs its statements under its own schema: every
 * statement (a whole transaction) takes the one lock, and `SET search_path` is sent only when the schema
 * changes hands.
 */
import { mkdirSync } from 'node:fs';
import type { Database, PoolStats, QueryResult, Queryable } from './db-types.js';

export interface EmbeddedPostgres {
  readonly dataDir?: string;
  /** A Database over this instance in its own schema (made when missing). Its close() is a no-op. */
  database(schema: string): Promise<Database>;
  /** Closes the instance (after every statement already queued). */
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Opens PGlite at dataDir (made when missing; absent or 'memory://': in memory). */
export async function openEmbeddedPostgres(dataDir?: string): Promise<EmbeddedPostgres> {
  // Loaded on first use: a process on PostgreSQL never pays for the wasm module.
  const { PGlite } = await import('@electric-sql/pglite');
  const dir = dataDir && dataDir !== 'memory://' ? dataDir : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  const opening = dir ? PGlite.create(dir) : PGlite.create();
  opening.catch(() => {}); // awaited below
  // Nothing else of the kit is needed to open it (the @platform/kit/pglite entry): a host starts it first, and
  // the wasm compiles on background threads while the rest of the modules load.
  const { wrapDbError } = await import('./db-errors.js');
  const pg = await opening;
  let searchPath: string | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  /** Statements (or transactions) running or waiting for the one connection. */
  let queued = 0;
  const release = () => {
    queued--;
  };
  /** Runs fn alone on the connection, with search_path = schema (when given). */
  const exclusive = <T>(schema: string | undefined, fn: () => Promise<T>): Promise<T> => {
    queued++;
    const run = tail.then(async () => {
      if (schema !== undefined && searchPath !== schema) {
        searchPath = undefined;
        await pg.exec(`SET search_path TO ${schema}`);
        searchPath = schema;
      }
      return fn();
    });
    tail = run.then(release, release);
    return run;
  };
  const norm = <R>(r: { rows: R[]; affectedRows?: number }): QueryResult<R> => ({
    rows: r.rows,
    rowCount: Math.max(r.affectedRows ?? 0, r.rows.length),
  });

  const stats = (): PoolStats => ({ backend: 'pglite', max: 1, total: 1, idle: queued === 0 ? 1 : 0, waiting: Math.max(0, queued - 1) });
  const view = (schema: string): Database => ({
    kind: 'pglite',
    schema,
    stats,
    query: <R>(sql: string, params?: unknown[]) => exclusive(schema, async () => norm(await pg.query<R>(sql, params as unknown[]).catch(wrapDbError))),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      exclusive(schema, () =>
        pg
          .transaction(async (tx) =>
            fn({
              async query<R>(sql: string, params?: unknown[]) {
                return norm(await tx.query<R>(sql, params as unknown[]).catch(wrapDbError));
              },
            }),
          )
          .catch((err: unknown) => {
            // fn's own errors pass as they are; PGlite's (a failed COMMIT) are wrapped like every statement's.
            if (typeof (err as { severity?: unknown })?.severity === 'string') wrapDbError(err);
            throw err;
          }),
      ),
    exec: (sql: string) =>
      exclusive(schema, async () => {
        // A script may set its own search_path: the next statement sets it again.
        searchPath = undefined;
        await pg.exec(sql).catch(wrapDbError);
      }),
    ping: () => exclusive(schema, async () => void (await pg.query('SELECT 1').catch(wrapDbError))),
    close: async () => {},
  });

  return {
    dataDir: dir,
    async database(schema) {
      if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
      const db = view(schema);
      await exclusive(undefined, () => pg.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch(wrapDbError));
      return db;
    },
    close: () => exclusive(undefined, () => pg.close()),
  };
}
