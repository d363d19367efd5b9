/**
 * The storage port's types (db.ts opens it; pglite.ts implements it embedded). Their own module so that the embedded
 * adapter need not import db.ts, which imports it.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * false: planned afresh on every call instead of prepared once per connection. For statements whose
   * best plan depends on the call (a batch of N items joined against a table): PostgreSQL keeps a
   * prepared statement's generic plan for good, and one chosen while a table was small (a hash join over
   * a sequential scan, say) stays even after the table has grown by orders of magnitude.
   */
  prepare?: boolean;
}

export interface Queryable {
  query<R = Record<string, any>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
}

/** The connection pool now (metrics.ts reads it at each scrape). */
export interface PoolStats {
  backend: 'postgres' | 'pglite';
  /** Largest number of connections (PGlite: 1). */
  max: number;
  /** Connections open. */
  total: number;
  /** Connections open and idle. */
  idle: number;
  /** Callers waiting for a connection (PGlite: statements queued behind the running one). */
  waiting: number;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  readonly schema: string;
  stats?(): PoolStats;
  /** Runs fn inside one transaction; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script (migrations). */
  exec(sql: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
