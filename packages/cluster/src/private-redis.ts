/**
 * Private highly available Redis deployments for the failover tests, made of Debian's redis-server and
 * redis-sentinel on free ports in a temporary directory: a Redis Cluster (3 primaries, 3 replicas, made with
 * `redis-cli --cluster create`) and a primary with one replica watched by 3 sentinels. Their primaries are
 * killed on purpose, so they are never the shared ones (CI's cluster on 7000-7005).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sleep, waitForPort } from './ports.js';

/** True when redis-server, redis-cli and redis-sentinel are installed. */
export function redisHaAvailable(): boolean {
  return ['redis-server', 'redis-cli', 'redis-sentinel'].every((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0);
}

const portTaken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });

/**
 * `count` consecutive free ports whose cluster-bus ports (+10000) are free too. Random bases in 20000-29999,
 * so suites running at once rarely meet; a taken port makes it try another base.
 */
async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const taken = await Promise.all([...ports, ...ports.map((p) => p + 10_000)].map(portTaken));
    if (!taken.some(Boolean)) return base;
  }
  throw new Error('no free run of ports for a private Redis deployment');
}

const cli = (port: number, ...args: string[]) => execFileSync('redis-cli', ['-p', String(port), ...args], { stdio: 'pipe' }).toString();

interface RedisProcess {
  port: number;
  child?: ChildProcess;
  start(): Promise<void>;
  kill(): Promise<void>;
}

function redisProcess(bin: string, port: number, dir: string, args: string[]): RedisProcess {
  const p: RedisProcess = {
    port,
    async start() {
      mkdirSync(dir, { recursive: true });
      p.child = spawn(bin, args, { cwd: dir, stdio: 'ignore' });
      await waitForPort(port, 10_000);
    },
    async kill() {
      const c = p.child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
  };
  return p;
}

export interface PrivateRedisCluster {
  /** Seed nodes for REDIS_CLUSTER_NODES. */
  seeds: string[];
  /** The port of the primary that serves a key's (or a channel's) hash slot now. */
  primaryFor(key: string): number;
  /** The ports of the primaries now. */
  primaries(): number[];
  /** SIGKILL one node (its replica takes over after cluster-node-timeout). */
  kill(port: number): Promise<void>;
  /** Starts a killed node again: it rejoins, as a replica of whoever took over. */
  restart(port: number): Promise<void>;
  destroy(): Promise<void>;
}

/** 6 nodes, 3 primaries and 3 replicas; a primary's loss is noticed after 1 s (cluster-node-timeout). */
export async function startPrivateRedisCluster(): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-cluster-'));
  const base = await freePortRun(6);
  const nodes = Array.from({ length: 6 }, (_, i) => {
    const port = base + i;
    const d = path.join(dir, String(port));
    return redisProcess('redis-server', port, d, [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', d, '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
      ...['--cluster-node-timeout', '1000', '--save', '', '--appendonly', 'no'],
    ]);
  });
  await Promise.all(nodes.map((n) => n.start()));
  const seeds = nodes.map((n) => `127.0.0.1:${n.port}`);
  execFileSync('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', '1', '--cluster-yes'], { stdio: 'pipe' });
  const alive = () => nodes.filter((n) => n.child && n.child.exitCode === null && n.child.signalCode === null);
  const clusterOk = () => alive().every((n) => /cluster_state:ok/.test(cli(n.port, 'cluster', 'info')));
  for (let i = 0; i < 100 && !clusterOk(); i++) await sleep(100);
  /** Slot ranges → primary port, from a live node's CLUSTER SHARDS-like view (CLUSTER SLOTS). */
  const slotOwner = (slot: number): number => {
    for (const n of alive()) {
      try {
        const lines = cli(n.port, '--no-raw', 'cluster', 'nodes').split('\n').filter(Boolean);
        for (const line of lines) {
          const f = line.split(' ');
          if (!f[2].includes('master') || f[2].includes('fail')) continue;
          for (const range of f.slice(8)) {
            const [lo, hi] = range.split('-').map(Number);
            if (slot >= lo && slot <= (hi ?? lo)) return Number(f[1].split(':')[1].split('@')[0]);
          }
        }
      } catch {
        /* try the next node */
      }
    }
    throw new Error(`no primary serves slot ${slot}`);
  };
  return {
    seeds,
    primaryFor: (key) => slotOwner(Number(cli(alive()[0].port, 'cluster', 'keyslot', key).trim())),
    primaries: () => [...new Set([0, 5461, 10923].map(slotOwner))],
    kill: (port) => nodes.find((n) => n.port === port)!.kill(),
    restart: (port) => nodes.find((n) => n.port === port)!.start(),
    async destroy() {
      await Promise.all(nodes.map((n) => n.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateSentinel {
  /** host:port of each sentinel (REDIS_SENTINELS). */
  sentinels: string[];
  /** The name the sentinels watch (REDIS_SENTINEL_NAME). */
  name: string;
  /** The port of the primary the sentinels name now. */
  primary(): number;
  kill(port: number): Promise<void>;
  restart(port: number): Promise<void>;
  destroy(): Promise<void>;
}

/** A primary, one replica and 3 sentinels (quorum 2); the primary is declared down after 1 s. */
export async function startPrivateSentinel(): Promise<PrivateSentinel> {
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-sentinel-'));
  const base = await freePortRun(5);
  const name = 'platform';
  const [primaryPort, replicaPort] = [base, base + 1];
  const data = (port: number, extra: string[] = []) =>
    redisProcess('redis-server', port, path.join(dir, String(port)), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra]);
  const servers = [data(primaryPort), data(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)])];
  await Promise.all(servers.map((s) => s.start()));
  const sentinels = [base + 2, base + 3, base + 4].map((port) => {
    const d = path.join(dir, `sentinel-${port}`);
    mkdirSync(d, { recursive: true });
    const conf = path.join(d, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    return redisProcess('redis-sentinel', port, d, [conf]);
  });
  await Promise.all(sentinels.map((s) => s.start()));
  const primary = () => {
    for (const s of sentinels) {
      try {
        const out = cli(s.port, 'sentinel', 'get-master-addr-by-name', name).trim().split('\n');
        return Number(out[1]);
      } catch {
        /* the next sentinel */
      }
    }
    throw new Error('no sentinel answers');
  };
  // The sentinels have found the replica and each other before the test relies on them.
  for (let i = 0; i < 100; i++) {
    try {
      if (/num-other-sentinels\n2/.test(cli(sentinels[0].port, 'sentinel', 'master', name)) && /slave0/.test(cli(primaryPort, 'info', 'replication'))) break;
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  return {
    sentinels: sentinels.map((s) => `127.0.0.1:${s.port}`),
    name,
    primary,
    kill: (port) => servers.find((s) => s.port === port)!.kill(),
    restart: (port) => servers.find((s) => s.port === port)!.start(),
    async destroy() {
      await Promise.all([...servers, ...sentinels].map((s) => s.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
