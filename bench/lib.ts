/**
 * Bench plumbing: free ports, service processes, load-generator processes.
 * Every load generator is its own process; it prints one JSON line (its
 * result) as the last line of stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import https from 'node:https';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH = path.join(ROOT, 'bench');

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A plain request (no keep-alive), self-signed TLS accepted: bench setup only. */
export function request(url: string, opts: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method: opts.method ?? (payload ? 'POST' : 'GET'),
        rejectUnauthorized: false,
        agent: false,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (data += c));
        res.on('end', () => {
          let body: any = data;
          try {
            body = data ? JSON.parse(data) : undefined;
          } catch {}
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface Proc {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
  stderr(): string;
}

/** Starts `node [nodeArgs] --import tsx <script>` with env; waits until readyUrl answers 200. */
export async function startProcess(
  name: string,
  script: string,
  env: Record<string, string | undefined>,
  readyUrl: string,
  nodeArgs: string[] = [],
): Promise<Proc> {
  const child = spawn(process.execPath, [...nodeArgs, '--conditions=development', '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c) => (err = (err + c).slice(-8000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${name} exited during start: ${err}`);
    try {
      const r = await request(readyUrl);
      if (r.status === 200) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready after 60 s: ${err}`);
    }
    await sleep(200);
  }
  return {
    child,
    pid: child.pid!,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Runs a load generator `bench/load/<file>` in its own process with one JSON argument; returns its JSON result. */
export function runLoad<T = any>(file: string, args: unknown, env: Record<string, string | undefined> = {}, nodeArgs: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--conditions=development', '--import', 'tsx', path.join(BENCH, 'load', file), JSON.stringify(args)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (err = (err + c).slice(-8000)));
    child.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(last));
      } catch (e) {
        reject(new Error(`load ${file} failed (${(e as Error).message}): ${err}\n${out.slice(-2000)}`));
      }
    });
  });
}

/** Resident set size of a process in bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 100 ticks per second). */
async function cpuMsOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * Waits until every process in `pids` has been quiet (under `maxShare` of one core over a `windowMs`
 * window) or `timeoutMs` passed; returns how long it waited. After thousands of sockets connect, a
 * service still has their presence and registrations to work off: measuring latency before it is done
 * would measure that backlog, not the load being measured.
 */
export async function quiet(pids: number[], opts: { windowMs?: number; maxShare?: number; timeoutMs?: number } = {}): Promise<number> {
  const windowMs = opts.windowMs ?? 300;
  const maxShare = opts.maxShare ?? 0.05;
  const t0 = Date.now();
  for (;;) {
    const before = await Promise.all(pids.map(cpuMsOf));
    await sleep(windowMs);
    const after = await Promise.all(pids.map(cpuMsOf));
    if (after.every((a, i) => a - before[i] <= windowMs * maxShare) || Date.now() - t0 >= (opts.timeoutMs ?? 15_000)) return Date.now() - t0;
  }
}

export interface IpcLoad {
  /** The next message the generator sends (in order). */
  next<T = any>(): Promise<T>;
  send(msg: unknown): void;
  done: Promise<number | null>;
  kill(): void;
}

/** A long-lived load generator driven over IPC (socket holders: they must stay up while the parent measures). */
export function startIpcLoad(file: string, args: unknown, nodeArgs: string[] = []): IpcLoad {
  const child = spawn(process.execPath, [...nodeArgs, '--conditions=development', '--import', 'tsx', path.join(BENCH, 'load', file), JSON.stringify(args)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c) => (err = (err + c).slice(-4000)));
  const queue: unknown[] = [];
  const waiters: { resolve(v: any): void; reject(e: Error): void }[] = [];
  let exited = false;
  child.on('message', (m) => {
    const w = waiters.shift();
    if (w) w.resolve(m);
    else queue.push(m);
  });
  const done = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      for (const w of waiters.splice(0)) w.reject(new Error(`load ${file} exited (${code}): ${err}`));
      resolve(code);
    }),
  );
  return {
    next: <T>() =>
      queue.length ? Promise.resolve(queue.shift() as T) : exited ? Promise.reject(new Error(`load ${file} exited: ${err}`)) : new Promise<T>((resolve, reject) => waiters.push({ resolve, reject })),
    send: (m) => child.send(m as any),
    done,
    kill: () => {
      if (!exited) child.kill('SIGKILL');
    },
  };
}

export function percentile(sorted: number[], p: number): number | null {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
}

/** One measured figure beside its baseline, as run.ts prints and records it. */
export interface Figure {
  id: string;
  figure: string;
  value: number | null;
  unit: string;
  baselineName: string;
  baseline: number | null;
  /** value / baseline (for costs such as memory: baseline / value is not used; see `note`). */
  ratio: number | null;
  goal: string;
  pass: boolean | null;
  note?: string;
  extra?: Record<string, unknown>;
}
