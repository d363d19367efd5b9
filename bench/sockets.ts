/**
 * WebSocket figures: one social node's /v1/ws against a bare `ws` server.
 * The social nodes run in API-key mode (X-Api-Key + X-User-Id, no token
 * service needed) over plain ws (Social:Tls:Mode=http, as behind a
 * TLS-terminating balancer; the bare baseline is plain ws too).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Figure } from './lib.js';
import { freePort, percentile, quiet, request, ROOT, rssOf, sleep, startIpcLoad, startProcess, type Proc } from './lib.js';

export interface SocketContext {
  want(id: string): boolean;
  common: Record<string, string>;
  authEnv: Record<string, string>;
  dataDir: string;
  procs: Proc[];
  log(m: string): void;
}

export type Out = Omit<Figure, 'ratio'> & { ratio?: number | null };

const IDLE_SOCKETS = Number(process.env.BENCH_IDLE_SOCKETS ?? 19_000);
const IDLE_USERS = Number(process.env.BENCH_IDLE_USERS ?? 1000);
const CLIENT_PROCS = Number(process.env.BENCH_WS_CLIENT_PROCESSES ?? 4);
export const FANOUT_GROUPS = Number(process.env.BENCH_FANOUT_GROUPS ?? 40);
export const FANOUT_SEC = Number(process.env.BENCH_FANOUT_SEC ?? 10);
/** deliveries/s at which the fan-out latency goal is checked (open loop, senders spread over the period). */
const FANOUT_GOAL_RATE = 50_000;
const CROSS_GROUPS = Number(process.env.BENCH_CROSS_GROUPS ?? 10);
/** Cross-node latency is measured open loop at a fixed rate (no ack-driven backpressure hides a lagging node). */
const CROSS_RATE = Number(process.env.BENCH_CROSS_RATE_PER_SENDER ?? 5);
const RECEIVERS = 50;
/** 127.0.0.2 … : several source addresses so no (source, destination) pair runs out of ephemeral ports. */
const sources = (k: number) => Array.from({ length: 4 }, (_, i) => `127.0.0.${2 + k * 4 + i}`);
export const API_KEY = randomBytes(24).toString('hex');

export function realtimePresent(): boolean {
  return existsSync(path.join(ROOT, 'packages/social/src/realtime'));
}

/** Idle sockets held on a server: RSS growth per socket. */
export async function idleSockets(
  wsUrl: string,
  pid: number,
  count: number,
  log: (m: string) => void,
  apiKey?: string,
): Promise<{ perSocket: number; opened: number; failed: number; rssBefore: number; rssAfter: number; connectSec: number }> {
  const before = await rssOf(pid);
  const per = Math.ceil(count / CLIENT_PROCS);
  const t0 = Date.now();
  const loads = Array.from({ length: CLIENT_PROCS }, (_, k) =>
    startIpcLoad('ws-clients.ts', { mode: 'idle', url: wsUrl, sources: sources(k), count: Math.min(per, count - k * per), apiKey, idleUsers: IDLE_USERS }),
  );
  try {
    const reports = await Promise.all(loads.map((l) => l.next<{ opened: number; failed: number }>()));
    const connectSec = (Date.now() - t0) / 1000;
    const opened = reports.reduce((s, r) => s + r.opened, 0);
    const failed = reports.reduce((s, r) => s + r.failed, 0);
    await sleep(2000);
    const after = await rssOf(pid);
    log(`idle: ${opened} open, ${failed} failed in ${connectSec.toFixed(1)} s, RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB`);
    return { perSocket: (after - before) / Math.max(1, opened), opened, failed, rssBefore: before, rssAfter: after, connectSec };
  } finally {
    for (const l of loads) l.send({ stop: true });
    await Promise.all(loads.map((l) => Promise.race([l.done, sleep(10_000).then(() => l.kill())])));
  }
}

export interface FanoutResult {
  perSec: number;
  p50: number | null;
  p99: number | null;
  deliveries: number;
  sent: number;
  errors: number;
  failed: number;
  /** How long the servers took to go quiet after the sockets connected (the measurement started then). */
  settledMs: number;
  /** The sampled latencies (kept only to merge parts; not written out). */
  latencies?: number[];
}

interface FanoutOptions {
  /** The server processes: the measurement starts once they are quiet after the sockets connected. */
  serverPids: number[];
  durationSec: number;
  apiKey?: string;
  frames?: Record<string, string>;
  ratePerSender?: number;
  kind?: 'chat' | 'presence';
}

interface FanoutPart {
  url: string;
  senderUrl?: string;
  groups: [number, number];
}

/**
 * Fan-out of several parts at once, one client process per part, all started by the same go: each part's
 * groups [g0, g1) of RECEIVERS sockets fed by one sender each. Returns one result per part.
 */
async function fanoutParts(parts: FanoutPart[], opts: FanoutOptions): Promise<FanoutResult[]> {
  const totalGroups = Math.max(...parts.map((p) => p.groups[1])) - Math.min(...parts.map((p) => p.groups[0]));
  const loads = parts.map((part, k) =>
    startIpcLoad('ws-clients.ts', {
      mode: 'fanout',
      url: part.url,
      senderUrl: part.senderUrl,
      sources: sources(k),
      groups: part.groups,
      receivers: RECEIVERS,
      window: 1,
      durationSec: opts.durationSec,
      apiKey: opts.apiKey,
      frames: opts.frames,
      ratePerSender: opts.ratePerSender,
      totalGroups,
      kind: opts.kind,
    }),
  );
  try {
    const ready = await Promise.all(loads.map((l) => l.next<{ failed: number }>()));
    await sleep(500); // subscriptions settle
    const settledMs = await quiet(opts.serverPids);
    for (const l of loads) l.send({ go: true });
    const res = await Promise.all(loads.map((l) => l.next<{ deliveries: number; sent: number; errors: number; latencies: number[] }>()));
    return res.map((r, k) => {
      const lat = [...r.latencies].sort((x, y) => x - y);
      return {
        perSec: r.deliveries / opts.durationSec,
        p50: percentile(lat, 0.5),
        p99: percentile(lat, 0.99),
        deliveries: r.deliveries,
        sent: r.sent,
        errors: r.errors ?? 0,
        failed: ready[k].failed,
        settledMs,
        latencies: r.latencies,
      };
    });
  } finally {
    for (const l of loads) l.send({ stop: true });
    await Promise.all(loads.map((l) => Promise.race([l.done, sleep(10_000).then(() => l.kill())])));
  }
}

/** Fan-out: groups [g0, g1) of RECEIVERS sockets fed by one sender each, two client processes. */
export async function fanout(opts: FanoutOptions & { url: string; senderUrl?: string; groups: [number, number] }): Promise<FanoutResult> {
  const [g0, g1] = opts.groups;
  const mid = g0 + Math.ceil((g1 - g0) / 2);
  const ranges = (
    [
      [g0, mid],
      [mid, g1],
    ] as [number, number][]
  ).filter(([a, b]) => b > a);
  const res = await fanoutParts(
    ranges.map((groups) => ({ url: opts.url, senderUrl: opts.senderUrl, groups })),
    opts,
  );
  const lat = res.flatMap((r) => r.latencies ?? []).sort((x, y) => x - y);
  const deliveries = res.reduce((s, r) => s + r.deliveries, 0);
  return {
    perSec: deliveries / opts.durationSec,
    p50: percentile(lat, 0.5),
    p99: percentile(lat, 0.99),
    deliveries,
    sent: res.reduce((s, r) => s + r.sent, 0),
    errors: res.reduce((s, r) => s + r.errors, 0),
    failed: res.reduce((s, r) => s + r.failed, 0),
    settledMs: res[0].settledMs,
  };
}

export const ms = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`);

export async function startSocialNode(ctx: SocketContext, name: string, env: Record<string, string> = {}): Promise<{ proc: Proc; http: string; ws: string }> {
  const port = await freePort();
  const proc = await startProcess(
    name,
    'packages/social/src/main.ts',
    {
      ...ctx.common,
      DATA_DIR: path.join(ctx.dataDir, name),
      SOCIAL__LISTEN__PORT: String(port),
      SOCIAL__TLS__MODE: 'http',
      SOCIAL__AUTH__APIKEY: API_KEY,
      SOCIAL__REGISTRY__URL: 'http://127.0.0.1:9',
      SOCIAL__REALTIME__FRAMESPERSECOND: '10000',
      // The idle-socket figure opens ~19 sockets per user, all from this one address.
      SOCIAL__REALTIME__MAXSOCKETSPERUSER: '1000',
      SOCIAL__REALTIME__MAXSOCKETSPERADDRESS: '1000000',
      SOCIAL__LIMITS__CHATPERMINUTE: '100000',
      SOCIAL__LIMITS__ACTIONSPERMINUTE: '100000',
      SOCIAL__PARTIES__MAXSIZELIMIT: '100',
      ...env,
    },
    `http://127.0.0.1:${port}/readyz`,
    process.env.BENCH_SERVICE_NODE_ARGS ? process.env.BENCH_SERVICE_NODE_ARGS.split(' ') : [],
  );
  ctx.procs.push(proc);
  return { proc, http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/v1/ws` };
}

/** One public party of 1 + RECEIVERS members per group (users fan-<g>-0 … fan-<g>-50); returns the chatSend frame per group. */
export async function parties(httpUrl: string, groups: number): Promise<Record<string, string>> {
  const as = (user: string) => ({ 'x-api-key': API_KEY, 'x-user-id': user });
  const frames: Record<string, string> = {};
  const ids: string[] = [];
  for (let g = 0; g < groups; g++) {
    const r = await request(`${httpUrl}/v1/parties`, { body: { maxSize: RECEIVERS + 1, visibility: 'Public' }, headers: as(`fan-${g}-0`) });
    if (r.status !== 201) throw new Error(`party: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.partyId);
    frames[String(g)] = JSON.stringify({ type: 'chatSend', channel: 'party', channelId: r.body.partyId, body: 'ts={ts}' });
  }
  await forEachReceiver(groups, async (g, i) => {
    const r = await request(`${httpUrl}/v1/parties/${ids[g]}/join`, { body: {}, headers: as(`fan-${g}-${i}`) });
    if (r.status !== 200) throw new Error(`join: ${r.status} ${JSON.stringify(r.body)}`);
  });
  return frames;
}

/** Runs fn for every (group, receiver) pair, 16 at a time. */
async function forEachReceiver(groups: number, fn: (g: number, i: number) => Promise<void>): Promise<void> {
  const pairs: [number, number][] = [];
  for (let g = 0; g < groups; g++) for (let i = 1; i <= RECEIVERS; i++) pairs.push([g, i]);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < pairs.length) {
        const [g, i] = pairs[next++];
        await fn(g, i);
      }
    }),
  );
}

/** Friendships sender ↔ each receiver of every group (fan-<g>-0 ↔ fan-<g>-1 … fan-<g>-50), over HTTP. */
export async function friendships(httpUrl: string, groups: number): Promise<void> {
  const as = (user: string) => ({ 'x-api-key': API_KEY, 'x-user-id': user });
  await forEachReceiver(groups, async (g, i) => {
    const sender = `fan-${g}-0`;
    const receiver = `fan-${g}-${i}`;
    const me = await request(`${httpUrl}/v1/me`, { method: 'GET', headers: as(receiver) });
    if (me.status !== 200) throw new Error(`me: ${me.status} ${JSON.stringify(me.body)}`);
    const req = await request(`${httpUrl}/v1/friends/requests`, { body: { toPublicId: me.body.publicId }, headers: as(sender) });
    if (req.status !== 201 && req.status !== 200) throw new Error(`friend request: ${req.status} ${JSON.stringify(req.body)}`);
    const senderMe = await request(`${httpUrl}/v1/me`, { method: 'GET', headers: as(sender) });
    const acc = await request(`${httpUrl}/v1/friends/requests/${senderMe.body.publicId}/accept`, { body: {}, headers: as(receiver) });
    if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${JSON.stringify(acc.body)}`);
  });
}

type SocialNode = Awaited<ReturnType<typeof startSocialNode>>;

interface BareFigures {
  idle?: Awaited<ReturnType<typeof idleSockets>>;
  fan?: FanoutResult;
  atGoal?: FanoutResult;
}

const FAN_RATE = FANOUT_GOAL_RATE / (FANOUT_GROUPS * RECEIVERS);

/** The bare ws server's idle and fan-out figures, the baselines of the service's. */
async function bareFigures(ctx: SocketContext): Promise<BareFigures> {
  const port = await freePort();
  const bare = await startProcess('bare ws', 'bench/services/bare-ws.ts', { BENCH_PORT: String(port) }, `http://127.0.0.1:${port}/readyz`);
  ctx.procs.push(bare);
  const bareUrl = `ws://127.0.0.1:${port}/?g={g}&r={r}`;
  const out: BareFigures = {};
  if (ctx.want('ws-idle')) out.idle = await idleSockets(bareUrl, bare.pid, IDLE_SOCKETS, ctx.log);
  if (ctx.want('ws-fanout')) {
    const bareFan = (out.fan = await fanout({ url: bareUrl, serverPids: [bare.pid], groups: [0, FANOUT_GROUPS], durationSec: FANOUT_SEC }));
    ctx.log(`bare fan-out: ${Math.round(bareFan.perSec)}/s, p50 ${ms(bareFan.p50)}, p99 ${ms(bareFan.p99)}`);
    const bareAtGoal = (out.atGoal = await fanout({ url: bareUrl, serverPids: [bare.pid], groups: [0, FANOUT_GROUPS], durationSec: FANOUT_SEC, ratePerSender: FAN_RATE }));
    ctx.log(`bare fan-out at ${Math.round(bareAtGoal.perSec)}/s (open loop): p50 ${ms(bareAtGoal.p50)}, p99 ${ms(bareAtGoal.p99)}`);
  }
  await bare.stop();
  return out;
}

async function idleFigure(ctx: SocketContext, a: SocialNode | undefined, bareIdle: NonNullable<BareFigures['idle']>, pending: string | undefined): Promise<Out> {
  const svc = a ? await idleSockets(a.ws, a.proc.pid, IDLE_SOCKETS, ctx.log, API_KEY) : undefined;
  return {
    id: 'ws-idle',
    figure: `idle WebSockets on one social node (${IDLE_SOCKETS.toLocaleString('en-US')} sockets, ${IDLE_USERS} users), RSS per socket`,
    value: svc ? svc.perSocket / 1000 : null,
    unit: 'KB',
    baselineName: `bare ws server, ${bareIdle.opened} sockets`,
    baseline: bareIdle.perSocket / 1000,
    // Issue 29's goal. A few sockets of 19,000 may be shed at the burst (503 server_busy, a documented refusal): the
    // figure is per socket opened, and the note says how many failed.
    goal: '≤ 6.0 KB RSS a socket (issue 29)',
    pass: svc ? svc.opened >= 0.99 * IDLE_SOCKETS && svc.perSocket <= 6_000 : null,
    note: pending ?? (svc && svc.failed ? `${svc.failed} sockets failed to open` : undefined),
    extra: { service: svc, baseline: bareIdle },
  };
}

async function chatFanoutFigure(
  ctx: SocketContext,
  a: SocialNode | undefined,
  frames: Record<string, string> | undefined,
  { fan: bareFan, atGoal: bareAtGoal }: BareFigures & { fan: FanoutResult },
  pending: string | undefined,
): Promise<Out> {
  // Capacity: closed loop (each sender's next frame when its own copy comes back), as fast as it goes.
  const svc = a ? await fanout({ url: a.ws, serverPids: [a.proc.pid], groups: [0, FANOUT_GROUPS], durationSec: FANOUT_SEC, apiKey: API_KEY, frames }) : undefined;
  if (svc) ctx.log(`social fan-out: ${Math.round(svc.perSec)}/s, p50 ${ms(svc.p50)}, p99 ${ms(svc.p99)}, ${svc.errors} error frames`);
  // Latency at the goal's rate: open loop, the senders spread over each period.
  const atGoal = a
    ? await fanout({ url: a.ws, serverPids: [a.proc.pid], groups: [0, FANOUT_GROUPS], durationSec: FANOUT_SEC, apiKey: API_KEY, frames, ratePerSender: FAN_RATE })
    : undefined;
  if (atGoal) ctx.log(`social fan-out at ${Math.round(atGoal.perSec)}/s (open loop): p50 ${ms(atGoal.p50)}, p99 ${ms(atGoal.p99)}, ${atGoal.errors} error frames`);
  const rate = (r: FanoutResult) => `${Math.round(r.perSec).toLocaleString('en-US')}/s`;
  return {
    id: 'ws-fanout',
    figure:
      `event deliveries / s on one social node (party chat to 50 members; ${FANOUT_GROUPS} senders, closed loop)` +
      (atGoal ? `; p99 ${ms(atGoal.p99)} at ${rate(atGoal)} open loop (saturated: p99 ${ms(svc!.p99)})` : ''),
    value: svc ? svc.perSec : null,
    unit: '/s',
    baselineName: `bare ws broadcast of the same frames (p99 ${ms(bareAtGoal!.p99)} at ${rate(bareAtGoal!)}; saturated p99 ${ms(bareFan.p99)})`,
    baseline: bareFan.perSec,
    goal: '≥ 50,000/s, p99 < 50 ms',
    pass: svc && atGoal ? svc.perSec >= 50_000 && atGoal.perSec >= 0.98 * FANOUT_GOAL_RATE && (atGoal.p99 ?? Infinity) < 50 : null,
    note: pending ?? (svc?.errors || atGoal?.errors ? `${(svc?.errors ?? 0) + (atGoal?.errors ?? 0)} error frames` : undefined),
    extra: { service: svc, serviceAtGoalRate: atGoal, baseline: bareFan, baselineAtGoalRate: bareAtGoal },
  };
}

async function presenceFigure(ctx: SocketContext, a: SocialNode | undefined, bareFan: FanoutResult | undefined, pending: string | undefined): Promise<Out> {
  // The chat figure's bare baseline is the same socket work (50 frames per sender frame); measured here if absent.
  const base = bareFan ?? undefined;
  let svc: FanoutResult | undefined;
  let atGoal: FanoutResult | undefined;
  if (a) {
    await friendships(a.http, FANOUT_GROUPS);
    // Capacity closed loop, latency open loop at the goal's rate: measured as the chat figure is.
    svc = await fanout({ url: a.ws, serverPids: [a.proc.pid], groups: [0, FANOUT_GROUPS], durationSec: FANOUT_SEC, apiKey: API_KEY, kind: 'presence' });
    ctx.log(`social presence fan-out: ${Math.round(svc.perSec)}/s, p50 ${ms(svc.p50)}, p99 ${ms(svc.p99)}, ${svc.errors} error frames`);
    atGoal = await fanout({ url: a.ws, serverPids: [a.proc.pid], groups: [0, FANOUT_GROUPS], durationSec: FANOUT_SEC, apiKey: API_KEY, kind: 'presence', ratePerSender: FAN_RATE });
    ctx.log(`social presence fan-out at ${Math.round(atGoal.perSec)}/s (open loop): p50 ${ms(atGoal.p50)}, p99 ${ms(atGoal.p99)}, ${atGoal.errors} error frames`);
  }
  return {
    id: 'ws-presence',
    figure:
      `presence fan-out on one social node (${FANOUT_GROUPS} users × 50 friends, presenceUpdate frames, closed loop)` +
      (svc && atGoal ? `; p99 ${ms(atGoal.p99)} at ${Math.round(atGoal.perSec).toLocaleString('en-US')}/s open loop (saturated: p99 ${ms(svc.p99)})` : ''),
    value: svc ? svc.perSec : null,
    unit: '/s',
    baselineName: base ? `bare ws broadcast of the same number of frames (the chat figure's run)` : '—',
    baseline: base ? base.perSec : null,
    goal: '≥ 50,000/s (deliveries), p99 < 50 ms',
    pass: svc && atGoal ? svc.perSec >= 50_000 && atGoal.perSec >= 0.98 * FANOUT_GOAL_RATE && (atGoal.p99 ?? Infinity) < 50 : null,
    note: pending ?? (svc?.errors || atGoal?.errors ? `${(svc?.errors ?? 0) + (atGoal?.errors ?? 0)} error frames` : undefined),
    extra: { service: svc, serviceAtGoalRate: atGoal },
  };
}

async function crossFigure(ctx: SocketContext, a: SocialNode | undefined, frames: Record<string, string> | undefined, pending: string | undefined): Promise<Out> {
  let same: FanoutResult | undefined;
  let cross: FanoutResult | undefined;
  if (a) {
    const b = await startSocialNode(ctx, 'social-b');
    const sec = Math.max(3, Math.round(FANOUT_SEC / 2));
    // Same-node and cross-node parties measured at the same time (one client process each), so that a stall
    // of the machine weighs on both and the difference is what the Redis hop adds.
    [same, cross] = await fanoutParts(
      [
        { url: a.ws, groups: [0, CROSS_GROUPS] },
        { url: b.ws, senderUrl: a.ws, groups: [CROSS_GROUPS, 2 * CROSS_GROUPS] },
      ],
      { serverPids: [a.proc.pid, b.proc.pid], durationSec: sec, apiKey: API_KEY, frames, ratePerSender: CROSS_RATE },
    );
    delete same.latencies;
    delete cross.latencies;
    ctx.log(`same node p99 ${ms(same.p99)} (${Math.round(same.perSec)}/s); cross node p99 ${ms(cross.p99)} (${Math.round(cross.perSec)}/s), measured together`);
    await b.proc.stop();
  }
  const added = same?.p99 != null && cross?.p99 != null ? cross.p99 - same.p99 : null;
  return {
    id: 'ws-cross',
    figure: `cross-node delivery via Redis (${CROSS_GROUPS} senders × ${CROSS_RATE}/s, party chat to 50), added p99`,
    value: added,
    unit: 'ms',
    baselineName: `same-node delivery p99${same ? ` ${ms(same.p99)}` : ''}`,
    baseline: same?.p99 ?? null,
    ratio: null,
    goal: 'p99 added < 10 ms',
    pass: added === null ? null : added < 10,
    note: pending,
    extra: { same, cross },
  };
}

export async function socketFigures(ctx: SocketContext): Promise<Out[]> {
  const out: Out[] = [];
  const pending = realtimePresent() ? undefined : 'the realtime layer (/v1/ws, packages/social/src/realtime) is not in this tree yet';
  const bare = await bareFigures(ctx);
  let a: SocialNode | undefined;
  if (!pending) a = await startSocialNode(ctx, 'social-a');
  if (bare.idle) out.push(await idleFigure(ctx, a, bare.idle, pending));
  // A fresh node for the fan-out: the idle figure's 19,000 registrations would otherwise be swept meanwhile.
  if (a && (ctx.want('ws-fanout') || ctx.want('ws-cross') || ctx.want('ws-presence'))) {
    await a.proc.stop();
    a = await startSocialNode(ctx, 'social-a2');
  }
  let frames: Record<string, string> | undefined;
  if (a && (ctx.want('ws-fanout') || ctx.want('ws-cross') || ctx.want('ws-presence'))) {
    frames = await parties(a.http, Math.max(ctx.want('ws-fanout') || ctx.want('ws-presence') ? FANOUT_GROUPS : 0, 2 * CROSS_GROUPS));
  }

  if (bare.fan) out.push(await chatFanoutFigure(ctx, a, frames, { ...bare, fan: bare.fan }, pending));
  if (ctx.want('ws-presence')) out.push(await presenceFigure(ctx, a, bare.fan, pending));
  if (ctx.want('ws-cross')) out.push(await crossFigure(ctx, a, frames, pending));
  if (a) await a.proc.stop();
  return out;
}
