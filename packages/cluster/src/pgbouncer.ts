/**
 * A private PgBouncer (Debian's `pgbouncer`) in transaction pooling mode in front of a PostgreSQL, for tests that
 * restart the server behind it. Its configuration (docs/deployment.md, "PostgreSQL behind PgBouncer") is written to a
 * temporary directory; it listens on a free port. PgBouncer refuses to run as root: then it runs as `postgres`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports.js';

/** The pgbouncer binary (Debian installs it in /usr/sbin), or undefined. */
export function pgbouncerBinary(): string | undefined {
  for (const p of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']) if (existsSync(p)) return p;
  return undefined;
}

export interface PgBouncerOptions {
  /** The PostgreSQL behind it (127.0.0.1:serverPort). */
  serverPort: number;
  /** Users PgBouncer lets in (auth_type = trust: the names must be in its auth_file). */
  users: string[];
  /** default_pool_size: server connections per database and user. */
  poolSize?: number;
  /** ignore_startup_parameters (e.g. `options`: a pooler that drops the startup option setting the schema). */
  ignoreStartupParameters?: string[];
}

export interface PgBouncer {
  port: number;
  /** postgres://<user>@127.0.0.1:<port>/<database> */
  url(user: string, database: string): string;
  /** The log so far (for failure messages). */
  log(): string;
  destroy(): Promise<void>;
}

export async function startPgBouncer(opts: PgBouncerOptions): Promise<PgBouncer> {
  const bin = pgbouncerBinary();
  if (!bin) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  const logFile = path.join(dir, 'pgbouncer.log');
  writeFileSync(path.join(dir, 'userlist.txt'), opts.users.map((u) => `"${u}" ""`).join('\n') + '\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${opts.serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_client_conn = 1000',
      // As in docs/deployment.md: a refused server login is retried after 1 s (default 15 s), so service resumes
      // within about a second of PostgreSQL being back; a client waits for a server connection at most 10 s.
      'server_login_retry = 1',
      'query_wait_timeout = 10',
      ...(opts.ignoreStartupParameters?.length ? [`ignore_startup_parameters = ${opts.ignoreStartupParameters.join(',')}`] : []),
      `logfile = ${logFile}`,
      '',
    ].join('\n'),
  );
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    for (const f of [dir, ini, path.join(dir, 'userlist.txt')]) chownSync(f, uid, gid);
  }
  const child: ChildProcess = spawn(bin, [...(root ? ['-u', 'postgres'] : []), ini], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const log = () => {
    try {
      return execFileSync('tail', ['-n', '50', logFile]).toString();
    } catch {
      return '';
    }
  };
  try {
    await waitForPort(port, 10_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`pgbouncer did not start: ${log()}`, { cause: err });
  }
  return {
    port,
    url: (user, database) => `postgres://${user}@127.0.0.1:${port}/${database}`,
    log,
    async destroy() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
