/**
 * `node --import tsx bench/startup.ts [--root <checkout>] [--script start] [--restarts N] [--out file.json]`: how fast `npm start`
 * brings the whole platform up, and how much memory it holds.
 *
 * Runs the root package.json's `start` script (through `sh -c`, as npm would, without npm's own process) in a
 * fresh DATA_DIR with the embedded defaults (no DATABASE_URL / REDIS_URL), then:
 *   - first start: spawn → registry, auth and social all answering /healthz with 200 (empty DATA_DIR);
 *   - restart: SIGTERM, wait for the exit, start again on the same DATA_DIR, same measure (N times);
 *   - RSS: the sum of VmRSS over the whole process tree (the start script and every descendant), sampled
 *     every 100 ms while starting (peak) and once 2 s after all three answer (settled).
 * `--root` measures another checkout (e.g. a `git worktree` of an older commit) with this same script; `--script`
 * another package.json script (`start:dev`: the sources through tsx).
 * The services' fixed ports (3004, 8443, 9443) must be free.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { ROOT, request, sleep } from './lib.js';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const root = path.resolve(opt('root') ?? ROOT);
const restarts = Number(opt('restarts') ?? 3);
const scriptName = opt('script') ?? 'start';
const startScript: string = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts[scriptName];
const HEALTH = {
  registry: 'http://127.0.0.1:3004/healthz',
  auth: 'https://127.0.0.1:8443/healthz',
  social: 'https://127.0.0.1:9443/healthz',
};

/** The pid and every descendant (from /proc/<pid>/task/<tid>/children). */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${out[i]}/task`)) {
        const kids = readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // the process exited between the reads
    }
  }
  return out;
}

function treeRssMb(pid: number): number {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // exited
    }
  }
  return kb / 1024;
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await request(url)).status === 200;
  } catch {
    return false;
  }
}

interface Run {
  kind: 'first' | 'restart';
  readyMs: number;
  /** each service's own time to its first 200 */
  perServiceMs: Record<string, number>;
  peakRssMb: number;
  settledRssMb: number;
  processes: number;
  stopMs: number;
}

async function once(kind: Run['kind'], dataDir: string): Promise<Run> {
  const t0 = performance.now();
  // `exec`: the shell becomes the script's process, so SIGTERM reaches the start script itself (as Ctrl-C would).
  const simple = !/[;&|]/.test(startScript);
  const child: ChildProcess = spawn('sh', ['-c', simple ? `exec ${startScript}` : startScript], {
    detached: !simple,
    cwd: root,
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'REDIS_URL', 'NODE_OPTIONS'].includes(k))),
      PATH: `${path.join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (c) => (log = (log + c).slice(-20_000)));
  child.stderr!.on('data', (c) => (log = (log + c).slice(-20_000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(child.pid!))), 100);
  const perServiceMs: Record<string, number> = {};
  const deadline = Date.now() + 120_000;
  while (Object.keys(perServiceMs).length < 3) {
    if (exited) throw new Error(`the start script exited: ${log}`);
    if (Date.now() > deadline) throw new Error(`not healthy after 120 s: ${log}`);
    await Promise.all(
      Object.entries(HEALTH).map(async ([name, url]) => {
        if (perServiceMs[name] === undefined && (await healthy(url))) perServiceMs[name] = Math.round(performance.now() - t0);
      }),
    );
    await sleep(50);
  }
  const readyMs = Math.max(...Object.values(perServiceMs));
  await sleep(2000);
  clearInterval(sampler);
  const settledRssMb = treeRssMb(child.pid!);
  const processes = tree(child.pid!).length;
  peak = Math.max(peak, settledRssMb);
  const s0 = performance.now();
  await new Promise<void>((resolve) => {
    if (exited) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    // A compound script (`a && b`) runs in its own process group: the signal goes to the group.
    if (simple) child.kill('SIGTERM');
    else process.kill(-child.pid!, 'SIGTERM');
  });
  const stopMs = Math.round(performance.now() - s0);
  // Stragglers of the tree (a service the script failed to stop) would hold the ports for the next run.
  for (let i = 0; (await Promise.all(Object.values(HEALTH).map(healthy))).some(Boolean); i++) {
    if (i === 100) throw new Error('a service still answers 10 s after the start script exited');
    await sleep(100);
  }
  return { kind, readyMs, perServiceMs, peakRssMb: Math.round(peak), settledRssMb: Math.round(settledRssMb), processes, stopMs };
}

const busy = (await Promise.all(Object.values(HEALTH).map(healthy))).some(Boolean);
if (busy) {
  console.error('a service already answers on 3004/8443/9443; stop it first');
  process.exit(1);
}
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-startup-'));
const runs: Run[] = [];
try {
  runs.push(await once('first', dataDir));
  for (let i = 0; i < restarts; i++) runs.push(await once('restart', dataDir));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const rs = runs.filter((r) => r.kind === 'restart');
let commit = '';
try {
  commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
} catch {}
console.log(`${scriptName}: ${startScript}   (${root} @ ${commit})`);
console.log('| run | all healthy | registry | auth | social | peak RSS | settled RSS | processes | stop |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of runs) {
  const p = r.perServiceMs;
  console.log(
    `| ${r.kind} | ${(r.readyMs / 1000).toFixed(2)} s | ${(p.registry / 1000).toFixed(2)} s | ${(p.auth / 1000).toFixed(2)} s | ${(p.social / 1000).toFixed(2)} s | ${r.peakRssMb} MB | ${r.settledRssMb} MB | ${r.processes} | ${(r.stopMs / 1000).toFixed(2)} s |`,
  );
}
if (rs.length) {
  console.log(
    `restart median: ${(median(rs.map((r) => r.readyMs)) / 1000).toFixed(2)} s, settled RSS median ${median(rs.map((r) => r.settledRssMb))} MB, peak RSS median ${median(rs.map((r) => r.peakRssMb))} MB`,
  );
}
const out = opt('out') ?? path.join(ROOT, 'bench', 'results', `startup-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ root, commit, scriptName, startScript, runs }, null, 2) + '\n');
console.log(`written ${out}`);
