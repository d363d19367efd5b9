/**
 * WebSocket figures. The bare-`ws` baselines always run; the social-node
 * figures need /v1/ws (the realtime layer): until it exists in this tree they
 * are reported as pending with the reason.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Figure } from './run.js';
import { freePort, percentile, request, ROOT, sleep, startIpcLoad, startProcess, type Proc } from './lib.js';

export interface SocketContext {
  want(id: string): boolean;
  common: Record<string, string>;
  authEnv: Record<string, string>;
  dataDir: string;
  procs: Proc[];
  log(m: string): void;
}

type Out = Omit<Figure, 'ratio'> & { ratio?: number | null };

const IDLE_SOCKETS = Number(process.env.BENCH_IDLE_SOCKETS ?? 19_000);
const CLIENT_PROCS = Number(process.env.BENCH_WS_CLIENT_PROCESSES ?? 4);
const FANOUT_GROUPS = Number(process.env.BENCH_FANOUT_GROUPS ?? 40);
const FANOUT_SEC = Number(process.env.BENCH_FANOUT_SEC ?? 10);
/** 127.0.0.2 … : several source addresses so no (source, destination) pair runs out of ephemeral ports. */
const sources = (k: number) => Array.from({ length: 4 }, (_, i) => `127.0.0.${2 + k * 4 + i}`);

export function realtimePresent(): boolean {
  return existsSync(path.join(ROOT, 'packages/social/src/realtime'));
}

/** Idle sockets held on a server: RSS growth per socket (server forced GC before each reading). */
export async function idleSockets(wsUrl: string, rssUrl: string, count: number, log: (m: string) => void): Promise<{ perSocket: number; opened: number; failed: number; rssBefore: number; rssAfter: number }> {
  const before = (await request(rssUrl)).body.rss as number;
  const per = Math.ceil(count / CLIENT_PROCS);
  const loads = Array.from({ length: CLIENT_PROCS }, (_, k) =>
    startIpcLoad('ws-clients.ts', { mode: 'idle', url: wsUrl, sources: sources(k), count: Math.min(per, count - k * per) }),
  );
  try {
    const reports = await Promise.all(loads.map((l) => l.next<{ opened: number; failed: number }>()));
    const opened = reports.reduce((s, r) => s + r.opened, 0);
    const failed = reports.reduce((s, r) => s + r.failed, 0);
    await sleep(1000);
    const after = (await request(rssUrl)).body.rss as number;
    log(`idle: ${opened} open, ${failed} failed, RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB`);
    return { perSocket: (after - before) / Math.max(1, opened), opened, failed, rssBefore: before, rssAfter: after };
  } finally {
    for (const l of loads) l.send({ stop: true });
    await Promise.all(loads.map((l) => Promise.race([l.done, sleep(10_000).then(() => l.kill())])));
  }
}

/** Fan-out: groups of `receivers` sockets fed by one sender each, two client processes. */
export async function fanout(url: string, groups: number, receivers: number, durationSec: number): Promise<{ perSec: number; p50: number | null; p99: number | null; deliveries: number; sent: number; failed: number }> {
  const half = Math.ceil(groups / 2);
  const ranges: [number, number][] = [
    [0, half],
    [half, groups],
  ];
  const loads = ranges.map((g, k) => startIpcLoad('ws-clients.ts', { mode: 'fanout', url, sources: sources(k), groups: g, receivers, window: 1, durationSec }));
  try {
    const ready = await Promise.all(loads.map((l) => l.next<{ failed: number }>()));
    for (const l of loads) l.send({ go: true });
    const res = await Promise.all(loads.map((l) => l.next<{ deliveries: number; sent: number; latencies: number[] }>()));
    const lat = res.flatMap((r) => r.latencies).sort((x, y) => x - y);
    const deliveries = res.reduce((s, r) => s + r.deliveries, 0);
    return {
      perSec: deliveries / durationSec,
      p50: percentile(lat, 0.5),
      p99: percentile(lat, 0.99),
      deliveries,
      sent: res.reduce((s, r) => s + r.sent, 0),
      failed: ready.reduce((s, r) => s + r.failed, 0),
    };
  } finally {
    for (const l of loads) l.send({ stop: true });
    await Promise.all(loads.map((l) => Promise.race([l.done, sleep(10_000).then(() => l.kill())])));
  }
}

export async function socketFigures(ctx: SocketContext): Promise<Out[]> {
  const out: Out[] = [];
  const pending = realtimePresent() ? undefined : 'the realtime layer (/v1/ws, packages/social/src/realtime) is not in this tree yet';
  const port = await freePort();
  const bare = await startProcess('bare ws', 'bench/services/bare-ws.ts', { BENCH_PORT: String(port) }, `http://127.0.0.1:${port}/readyz`, ['--expose-gc']);
  ctx.procs.push(bare);
  const base = `ws://127.0.0.1:${port}/?g={g}&r={r}`;

  if (ctx.want('ws-idle')) {
    const b = await idleSockets(base, `http://127.0.0.1:${port}/rss`, IDLE_SOCKETS, ctx.log);
    out.push({
      id: 'ws-idle',
      figure: `idle WebSockets on one social node (${IDLE_SOCKETS.toLocaleString('en-US')} sockets), RSS per socket`,
      value: null,
      unit: 'KB',
      baselineName: `bare ws server, ${b.opened} sockets`,
      baseline: b.perSocket / 1000,
      goal: '19,000 sockets at ≤ 10 KB RSS each',
      pass: null,
      note: pending,
      extra: { baseline: b },
    });
  }
  if (ctx.want('ws-fanout')) {
    const b = await fanout(base, FANOUT_GROUPS, 50, FANOUT_SEC);
    ctx.log(`bare fan-out: ${Math.round(b.perSec)}/s, p50 ${b.p50?.toFixed(1)} ms, p99 ${b.p99?.toFixed(1)} ms`);
    out.push({
      id: 'ws-fanout',
      figure: `event deliveries / s on one social node (presence to 50 friends; ${FANOUT_GROUPS} senders)`,
      value: null,
      unit: '/s',
      baselineName: `bare ws broadcast of the same frames (p99 ${b.p99?.toFixed(1)} ms)`,
      baseline: b.perSec,
      goal: '≥ 50,000/s, p99 < 50 ms',
      pass: null,
      note: pending,
      extra: { baseline: b },
    });
  }
  await bare.stop();
  if (ctx.want('ws-cross')) {
    out.push({
      id: 'ws-cross',
      figure: 'cross-node delivery via Redis, added p99',
      value: null,
      unit: 'ms',
      baselineName: 'same-node delivery (service)',
      baseline: null,
      goal: 'p99 added < 10 ms',
      pass: null,
      note: pending,
    });
  }
  return out;
}
