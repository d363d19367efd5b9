/** Database failures as the services (and the logs) see them: codes and object names, never values. */
import { AppError } from './errors.js';
import { kitError } from './error-codes.js';

/**
 * What the services (and the logs) get of a failed statement: the SQLSTATE code, the constraint, table and
 * column it names, and a message that names objects only. Never the statement's parameters (PGlite attaches
 * them to its errors as `params`), the row (`detail`: "Failing row contains (…, <password hash>, …)", "Key
 * (email)=(…)") or a message quoting a value ("invalid input syntax for type uuid: \"…\"").
 */
export class DatabaseError extends Error {
  /** SQLSTATE (`23505`), or the system error code of a connection failure (`ECONNREFUSED`). */
  readonly code?: string;
  readonly constraint?: string;
  readonly table?: string;
  readonly column?: string;
  readonly routine?: string;
  constructor(err: unknown) {
    const e = (err ?? {}) as { code?: unknown; message?: unknown; constraint?: unknown; table?: unknown; column?: unknown; routine?: unknown };
    const code = typeof e.code === 'string' ? e.code : undefined;
    super(safeDatabaseMessage(code, typeof e.message === 'string' ? e.message : 'database error'));
    this.name = 'DatabaseError';
    this.code = code;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    this.constraint = str(e.constraint);
    this.table = str(e.table);
    this.column = str(e.column);
    this.routine = str(e.routine);
  }
}

/**
 * SQLSTATE classes whose messages name objects (constraints, columns, relations) and never values:
 * connection (08), integrity (23), transaction state (25, 40), syntax and access (42), resources (53, 54),
 * object state (55), operator intervention (57), system (58). Class 22 (data exception) quotes the value, and
 * P0/XX/others can carry anything: for those only the code is kept.
 */
const VALUE_FREE_CLASSES = new Set(['08', '23', '25', '40', '42', '53', '54', '55', '57', '58']);

function safeDatabaseMessage(code: string | undefined, message: string): string {
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return message; // a client-side or system error (no row, no values)
  return VALUE_FREE_CLASSES.has(code.slice(0, 2)) ? message : `database error (SQLSTATE ${code})`;
}

/** Every failure leaves as a DatabaseError; connection-level ones become 503 with a stable code instead of a 500. */
export function wrapDbError(err: unknown): never {
  if (err instanceof AppError) throw err;
  const e = err instanceof DatabaseError ? err : new DatabaseError(err);
  const connectionCodes = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03'];
  if (
    // Class 08 is "connection exception": PgBouncer answers 08P01 while it cannot reach PostgreSQL ("pgbouncer cannot
    // connect to server", "server conn crashed?", "query_wait_timeout", "server login has been failing, …").
    (e.code && (connectionCodes.includes(e.code) || e.code.startsWith('08'))) ||
    /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|Query read timeout/i.test(e.message)
  ) {
    throw kitError('database_unavailable', 'The database is unavailable; retry later', undefined, { cause: e });
  }
  throw e;
}
