/**
 * Private PostgreSQL and Redis servers for fault tests: they are stopped and
 * restarted on purpose, so they must never be the shared ones. PostgreSQL is
 * initdb'd into a temporary directory (as the `postgres` user when running as
 * root) and listens on a free port with its socket in that directory.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports.js';

/** The bin directory of the newest installed PostgreSQL (Debian layout), or PATH. */
export function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length) return path.join(base, versions[0], 'bin');
  }
  return undefined;
}

/** A server of this test run's own, to stop, freeze and restart without touching the shared one. */
export interface PrivateServer {
  port: number;
  url: string;
  start(): Promise<void>;
  /** PostgreSQL: pg_ctl stop -m fast (connections terminated). Redis: SIGKILL (every key gone). The port closes. */
  stop(): Promise<void>;
  /** SIGSTOP the server (and PostgreSQL's backends): connections stay open, nothing answers (a partition). */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  destroy(): Promise<void>;
}

export type PrivatePostgres = PrivateServer;

function asPostgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-private-'));
  const data = path.join(dir, 'data');
  const user = asPostgresUser();
  if (user) {
    chmodSync(dir, 0o700);
    chownSync(dir, user.uid, user.gid);
  }
  const port = await freePort();
  const run = (cmd: string, args: string[]) =>
    execFileSync(path.join(bin, cmd), args, { stdio: 'pipe', ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { PATH: process.env.PATH ?? '', LANG: 'C' } });
  /** The postmaster (first line of postmaster.pid) and its direct children, by process id. */
  const signalServer = (sig: NodeJS.Signals) => {
    const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString().split('\n').map(Number).filter(Boolean);
    for (const p of [pid, ...children]) process.kill(p, sig);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const pg: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-w', 'start']);
      await waitForPort(port, 10_000);
    },
    async stop() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    freeze() {
      signalServer('SIGSTOP');
    },
    thaw() {
      signalServer('SIGCONT');
    },
    async destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}

export type PrivateRedis = PrivateServer;

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  const r: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdio: 'ignore',
      });
      const c = child;
      exited = new Promise((res) => c.once('exit', () => res()));
      await waitForPort(port, 10_000);
    },
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async destroy() {
      child?.kill('SIGCONT');
      await r.stop();
    },
  };
  await r.start();
  return r;
}
