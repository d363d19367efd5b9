/**
 * Game credential revocation across nodes (issue 18): the registry and two social nodes as separate processes on
 * the same PostgreSQL and Redis (the shared bus of production). Each round warms both nodes' tenancy caches with
 * the game's key + secret and opens a socket with them on each node, then regenerates the key and times, from the
 * notice's publication (its `at`, the registry's clock: the same machine's): the 4005 close of both sockets, and
 * the first 401 for the old secret on both nodes (HTTP, polled back to back: the resolution is one request's round
 * trip). Baseline: the same notice's arrival at a bare Redis subscriber in this process. Also kept: the same from
 * the moment the regenerate-key request was sent (what a studio sees; includes the registry's own request).
 * Without the notice both would wait for social's registry cache (10 s).
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { GAME_CREDENTIALS_CHANNEL, parseGameCredentialsNotice } from '@platform/kit';
import type { Figure } from './lib.js';
import { freePort, percentile, request, startProcess, type Proc } from './lib.js';

export interface CredentialContext {
  common: Record<string, string>;
  dataDir: string;
  procs: Proc[];
  log(m: string): void;
}

type Out = Omit<Figure, 'ratio'> & { ratio?: number | null };

const ROUNDS = Number(process.env.BENCH_CRED_ROUNDS ?? 40);
const GOAL_MS = 250;
const API_KEY = randomBytes(24).toString('hex');
const AS = { 'x-api-key': API_KEY, 'x-user-id': 'cred-bench-player' };
const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS ? process.env.BENCH_SERVICE_NODE_ARGS.split(' ') : [];

async function startRegistry(ctx: CredentialContext): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...ctx.common,
    DATA_DIR: path.join(ctx.dataDir, 'cred-registry'),
    BENCH_REGISTRY_PORT: String(port),
    REGISTRY_DB_SCHEMA: 'cred_registry',
    REGISTRY_MASTER_KEY: randomBytes(32).toString('hex'),
    REGISTRY_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
  };
  ctx.procs.push(await startProcess('registry', 'bench/services/registry.ts', env, `${url}/readyz`, nodeArgs));
  return url;
}

async function startSocial(ctx: CredentialContext, name: string, registryUrl: string): Promise<{ http: string; ws: string }> {
  const port = await freePort();
  const env = {
    ...ctx.common,
    DATA_DIR: path.join(ctx.dataDir, name),
    SOCIAL__LISTEN__PORT: String(port),
    SOCIAL__TLS__MODE: 'http',
    SOCIAL__AUTH__APIKEY: API_KEY,
    SOCIAL__REGISTRY__URL: registryUrl,
    SOCIAL_DB_SCHEMA: 'cred_social',
  };
  ctx.procs.push(await startProcess(name, 'packages/social/src/main.ts', env, `http://127.0.0.1:${port}/readyz`, nodeArgs));
  return { http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/v1/ws` };
}

/** A socket with these game credentials, set up (heartbeat answered); resolves with the time its close arrives. */
function openSocket(wsUrl: string, pair: Record<string, string>): Promise<{ closed: Promise<{ code: number; at: number }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { headers: { ...AS, ...pair } });
    const closed = new Promise<{ code: number; at: number }>((r) => ws.once('close', (code) => r({ code, at: Date.now() })));
    ws.once('open', () => ws.send(JSON.stringify({ type: 'heartbeat' })));
    ws.on('message', (m) => {
      if (JSON.parse(m.toString()).type === 'heartbeatAck') resolve({ closed });
    });
    ws.once('error', reject);
    setTimeout(() => reject(new Error('socket not set up in 10 s')), 10_000).unref();
  });
}

/** Polls until the node refuses the pair (401); the time of the first refusal. */
async function refusedAt(httpUrl: string, pair: Record<string, string>): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await request(`${httpUrl}/v1/friends`, { headers: { ...AS, ...pair } });
    if (r.status === 401) return Date.now();
    if (r.status !== 200) throw new Error(`friends: ${r.status} ${JSON.stringify(r.body)}`);
    if (Date.now() > deadline) throw new Error('the old secret was still accepted after 15 s');
  }
}

/** The notices as a bare subscriber on the same Redis receives them: (game, arrival time) → publication time. */
async function noticeWatcher(redisUrl: string) {
  const sub = new Redis(redisUrl);
  const seen: { at: number; arrived: number }[] = [];
  let wake: (() => void) | undefined;
  sub.on('message', (_channel: string, raw: string) => {
    const n = parseGameCredentialsNotice(raw);
    if (n) seen.push({ at: Date.parse(n.at), arrived: Date.now() });
    wake?.();
  });
  await sub.subscribe(GAME_CREDENTIALS_CHANNEL);
  return {
    async next(): Promise<{ at: number; arrived: number }> {
      while (!seen.length) await new Promise<void>((r) => (wake = r));
      return seen.shift()!;
    },
    close: () => sub.quit(),
  };
}

async function measure(ctx: CredentialContext) {
  const watcher = await noticeWatcher(ctx.common.REDIS_URL);
  try {
    return await rounds(ctx, watcher);
  } finally {
    await watcher.close();
  }
}

async function rounds(ctx: CredentialContext, watcher: Awaited<ReturnType<typeof noticeWatcher>>) {
  const registry = await startRegistry(ctx);
  const nodes = [await startSocial(ctx, 'cred-social-a', registry), await startSocial(ctx, 'cred-social-b', registry)];
  const dev = await request(`${registry}/developers/register`, {
    body: { Email: `cred-${randomBytes(4).toString('hex')}@example.com`, Password: randomBytes(12).toString('hex'), DisplayName: 'Bench' },
  });
  if (dev.status !== 201) throw new Error(`developer: ${dev.status} ${JSON.stringify(dev.body)}`);
  const bearer = { authorization: `Bearer ${dev.body.Token}` };
  const game = await request(`${registry}/games`, { body: { DisplayName: 'Revocation bench' }, headers: bearer });
  if (game.status !== 201) throw new Error(`game: ${game.status} ${JSON.stringify(game.body)}`);
  let pair = { 'x-platform-game-key': game.body.Game.ApiKey as string, 'x-platform-game-secret': game.body.ApiSecret as string };
  const http: number[] = [];
  const sockets: number[] = [];
  const bare: number[] = [];
  const fromRequest: number[] = [];
  const regenerate: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const n of nodes) {
      const warm = await request(`${n.http}/v1/friends`, { headers: { ...AS, ...pair } });
      if (warm.status !== 200) throw new Error(`warm-up: ${warm.status} ${JSON.stringify(warm.body)}`);
    }
    const open = await Promise.all(nodes.map((n) => openSocket(n.ws, pair)));
    const t0 = Date.now();
    const answered = request(`${registry}/games/${game.body.Game.GameId}/regenerate-key`, { method: 'POST', headers: bearer }).then((r) => ({ r, at: Date.now() }));
    const [refusals, closes, reply, notice] = await Promise.all([
      Promise.all(nodes.map((n) => refusedAt(n.http, pair))),
      Promise.all(open.map((o) => o.closed)),
      answered,
      watcher.next(),
    ]);
    if (reply.r.status !== 200) throw new Error(`regenerate-key: ${reply.r.status}`);
    if (closes.some((c) => c.code !== 4005)) throw new Error(`sockets closed with ${closes.map((c) => c.code)}`);
    const closedAt = Math.max(...closes.map((c) => c.at));
    http.push(Math.max(...refusals) - notice.at);
    sockets.push(closedAt - notice.at);
    bare.push(notice.arrived - notice.at);
    fromRequest.push(closedAt - t0);
    regenerate.push(reply.at - t0);
    pair = { ...pair, 'x-platform-game-secret': reply.r.body.ApiSecret };
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s.at(-1) ?? null };
  };
  return { http: stats(http), sockets: stats(sockets), bare: stats(bare), socketsFromRequest: stats(fromRequest), regenerate: stats(regenerate) };
}

export async function credentialFigures(ctx: CredentialContext): Promise<Out[]> {
  const m = await measure(ctx);
  const ms = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`);
  ctx.log(`credential revocation: HTTP p50 ${ms(m.http.p50)} p99 ${ms(m.http.p99)}; sockets p50 ${ms(m.sockets.p50)} p99 ${ms(m.sockets.p99)}`);
  const common = {
    unit: 'ms',
    baselineName: 'the notice published → its arrival at a bare Redis subscriber, p99',
    baseline: m.bare.p99,
    ratio: null,
    goal: `p99 < ${GOAL_MS} ms`,
    extra: { rounds: ROUNDS, ...m },
  };
  return [
    {
      id: 'cred-revoke',
      figure: `regenerate-key notice → old secret refused by both of two social nodes (HTTP 401, polled), p99 over ${ROUNDS} rotations`,
      value: m.http.p99,
      ...common,
      pass: m.http.p99 !== null && m.http.p99 < GOAL_MS,
      note: `p50 ${ms(m.http.p50)}; without the notice: up to Social:Registry:CacheSeconds (10 s)`,
    },
    {
      id: 'cred-revoke-socket',
      figure: `regenerate-key notice → sockets opened with the old secret closed (4005) on both of two social nodes, p99 over ${ROUNDS} rotations`,
      value: m.sockets.p99,
      ...common,
      pass: m.sockets.p99 !== null && m.sockets.p99 < GOAL_MS,
      note:
        `p50 ${ms(m.sockets.p50)}; from the regenerate-key request sent: p50 ${ms(m.socketsFromRequest.p50)}, p99 ${ms(m.socketsFromRequest.p99)} ` +
        `(the request itself: p50 ${ms(m.regenerate.p50)}, p99 ${ms(m.regenerate.p99)})`,
    },
  ];
}
