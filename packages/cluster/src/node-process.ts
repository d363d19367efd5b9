/**
 * One service node as a real child process (`node packages/<svc>/dist/main.js` when the build is current, else
 * `node --import tsx packages/<svc>/src/main.ts`): its own port and environment, waited for on
 * /healthz, stopped gracefully (SIGTERM) or killed (SIGKILL), restarted with
 * the same environment. Output is kept (bounded) for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import http from 'node:http';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { nodeCommand } from '@platform/kit/testing';

/**
 * A node process compiles its sources through tsx on start: seconds on a quiet machine, and past 30 s on two cores
 * shared with three test files' nodes, browsers and databases (a CI run saw it). Generous, since a node that will
 * not start fails at once through its exit, not through this wait.
 */
const START_TIMEOUT_MS = 90_000;

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

export interface NodeSpec {
  /** Label in messages, e.g. `auth-1`. */
  name: string;
  /** Entry file relative to the repository root, e.g. packages/auth/src/main.ts */
  entry: string;
  /** Full environment of the node (the harness does not inherit secrets by accident). */
  env: Record<string, string>;
  port: number;
  protocol: 'https' | 'http';
  /** PEM to trust for the health probe (self-signed nodes). */
  ca?: string;
  /** Wait for /healthz this long on start (default START_TIMEOUT_MS). */
  startTimeoutMs?: number;
}

const MAX_LOG = 64 * 1024;

export class ServiceNode {
  private child: ChildProcess | undefined;
  private output = '';
  private exitPromise: Promise<number | null> | undefined;

  constructor(readonly spec: NodeSpec) {}

  get name(): string {
    return this.spec.name;
  }
  get port(): number {
    return this.spec.port;
  }
  get url(): string {
    return `${this.spec.protocol}://127.0.0.1:${this.spec.port}`;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }
  /** The last 64 KiB of the node's stdout and stderr. */
  get logs(): string {
    return this.output;
  }

  /** Spawns the process and resolves when /healthz answers 200. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.output = '';
    const command = nodeCommand(this.spec.entry, this.spec.env);
    const child = spawn(process.execPath, command.args, {
      cwd: REPO_ROOT,
      env: command.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      this.output = (this.output + b.toString('utf8')).slice(-MAX_LOG);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exitPromise = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const until = Date.now() + (this.spec.startTimeoutMs ?? START_TIMEOUT_MS);
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited during start (code ${child.exitCode}):\n${this.output.slice(-4000)}`);
      if ((await this.probe('/healthz').catch(() => 0)) === 200) return;
      if (Date.now() > until) {
        await this.kill();
        throw new Error(`${this.name} did not answer /healthz within ${this.spec.startTimeoutMs ?? START_TIMEOUT_MS} ms:\n${this.output.slice(-4000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Status code of GET path on this node (no retry), rejecting on connection errors. */
  probe(pathname: string, timeoutMs = 2000): Promise<number> {
    const mod = this.spec.protocol === 'https' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.get(`${this.url}${pathname}`, { ca: this.spec.ca, timeout: timeoutMs, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('timeout', () => req.destroy(new Error('probe timeout')));
      req.on('error', reject);
    });
  }

  /** SIGTERM: the kit's serve() drains in-flight requests and exits. Resolves with the exit code. */
  async stop(timeoutMs = 15_000): Promise<number | null> {
    return this.signal('SIGTERM', timeoutMs);
  }

  /** SIGKILL: a crash, nothing drains. */
  async kill(): Promise<number | null> {
    return this.signal('SIGKILL', 10_000);
  }

  async restart(): Promise<void> {
    if (this.running) await this.stop();
    await this.start();
  }

  private async signal(sig: NodeJS.Signals, timeoutMs: number): Promise<number | null> {
    const child = this.child;
    if (!child || !this.running) return child?.exitCode ?? null;
    child.kill(sig);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const result = await Promise.race([this.exitPromise!, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      child.kill('SIGKILL');
      return this.exitPromise!;
    }
    return result;
  }
}

/** Stops every node (SIGTERM in parallel); used in after() hooks. */
export async function stopAll(nodes: ServiceNode[]): Promise<void> {
  await Promise.allSettled(nodes.map((n) => n.stop()));
}

/**
 * Starts the first node alone (it migrates and creates shared keys), then the
 * rest together; on any failure kills them all and removes the cluster's dir.
 */
export async function startNodesInOrder(nodes: ServiceNode[], dir: string): Promise<void> {
  try {
    await nodes[0].start();
    await Promise.all(nodes.slice(1).map((n) => n.start()));
  } catch (err) {
    await Promise.allSettled(nodes.map((n) => n.kill()));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
