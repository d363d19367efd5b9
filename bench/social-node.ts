/**
 * What the harnessed real-time benches share (bench/soak.ts, large.ts, slow-consumers.ts): one social node process
 * (@platform/cluster, API-key mode, a private Redis and its own schema, metrics on), players made through its API,
 * friendships written straight to its tables (a thousand friends per player in a second, not a minute of requests),
 * parties, raw `ws` sockets that count what they receive, latency of chat measured from the send, and the node's
 * process metrics.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { WebSocket } from 'ws';
import { dropSchema, startPrivateRedis, startSocialCluster, uniqueSchema, type SocialCluster } from '@platform/cluster';
import { scrapeMetrics } from '@platform/kit/testing';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Player {
  id: string;
  publicId: string;
  headers: Record<string, string>;
}

export interface BenchSocket {
  ws: WebSocket;
  /** Frames received, by type. */
  counts: Map<string, number>;
  /** Called with each frame (type, data). */
  onFrame?: (type: string, data: any) => void;
  closed: Promise<number>;
}

export interface SocialBench {
  social: SocialCluster;
  url: string;
  schema: string;
  db: pg.Client;
  players(n: number, prefix: string): Promise<Player[]>;
  /** Mutual friendships a–b for each pair, written to the tables directly. */
  befriend(pairs: [Player, Player][]): Promise<void>;
  /** A party led by members[0] that the others joined (public, maxSize = members). */
  party(members: Player[]): Promise<string>;
  connect(p: Player, opts?: { onFrame?: (type: string, data: any) => void }): Promise<BenchSocket>;
  /** The node's process figures now. */
  processFigures(): Promise<ProcessFigures>;
  close(): Promise<void>;
}

export interface ProcessFigures {
  rssBytes: number;
  heapUsedBytes: number;
  eventLoopP99Ms: number;
  openFds: number;
  sockets: number;
  delivered: number;
}

export async function startSocialBench(env: Record<string, string> = {}): Promise<SocialBench> {
  const redis = await startPrivateRedis();
  const schema = uniqueSchema('bench_rt');
  const social = await startSocialCluster({
    nodes: 1,
    databaseUrl: DATABASE_URL,
    schema,
    redis: { REDIS_URL: redis.url },
    metrics: true,
    env: {
      SOCIAL_REALTIME_MAX_SOCKETS_PER_ADDRESS: '1000000',
      SOCIAL_RATE_CHAT_PER_MINUTE: '100000',
      SOCIAL_RATE_ACTIONS_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const http = social.client(0);
  const url = `ws://127.0.0.1:${social.nodes[0]!.port}/v1/ws`;
  return {
    social,
    url,
    schema,
    db,
    async players(n, prefix) {
      const out: Player[] = [];
      for (let i = 0; i < n; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, n - i) }, async (_, j) => {
            const id = randomUUID();
            const headers = social.headers(id, `${prefix}${i + j}`);
            const me = await http.get('/v1/me', { headers });
            if (me.status !== 200) throw new Error(`/v1/me: ${me.status}`);
            return { id, publicId: me.body.publicId as string, headers };
          }),
        );
        out.push(...batch);
      }
      return out;
    },
    async befriend(pairs) {
      for (let i = 0; i < pairs.length; i += 5000) {
        const slice = pairs.slice(i, i + 5000);
        const xs = slice.flatMap(([a, b]) => [a.id, b.id]);
        const ys = slice.flatMap(([a, b]) => [b.id, a.id]);
        await db.query(
          `INSERT INTO ${schema}.friendships (user_id, friend_id)
           SELECT a.id, b.id FROM unnest($1::text[], $2::text[]) AS p(x, y)
           JOIN ${schema}.users a ON a.account_id = p.x JOIN ${schema}.users b ON b.account_id = p.y
           ON CONFLICT DO NOTHING`,
          [xs, ys],
        );
      }
    },
    async party(members) {
      const created = await http.post('/v1/parties', { visibility: 'Public', maxSize: members.length }, { headers: members[0]!.headers });
      if (created.status !== 201) throw new Error(`party: ${created.status} ${JSON.stringify(created.body)}`);
      const partyId = created.body.partyId as string;
      for (const m of members.slice(1)) {
        const j = await http.post(`/v1/parties/${partyId}/join`, {}, { headers: m.headers });
        if (j.status !== 200) throw new Error(`join: ${j.status} ${JSON.stringify(j.body)}`);
      }
      return partyId;
    },
    connect: (p, opts = {}) => connectSocket(url, p, opts),
    processFigures: () => processFigures(social.metricsUrls[0]!),
    async close() {
      await social.close();
      await db.end().catch(() => {});
      await redis.destroy();
      await dropSchema(DATABASE_URL, schema).catch(() => {});
    },
  };
}

function connectSocket(url: string, p: Player, opts: { onFrame?: (type: string, data: any) => void }): Promise<BenchSocket> {
  const ws = new WebSocket(url, { headers: p.headers });
  const s: BenchSocket = { ws, counts: new Map(), closed: new Promise((r) => ws.once('close', (code) => r(code))), ...(opts.onFrame ? { onFrame: opts.onFrame } : {}) };
  ws.on('error', () => {});
  ws.on('message', (raw) => {
    const f = JSON.parse(raw.toString());
    s.counts.set(f.type, (s.counts.get(f.type) ?? 0) + 1);
    s.onFrame?.(f.type, f.data);
  });
  return new Promise((resolve, reject) => {
    ws.once('message', () => resolve(s));
    ws.once('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

async function processFigures(metricsUrl: string): Promise<ProcessFigures> {
  const m = await scrapeMetrics(metricsUrl);
  return {
    rssBytes: m.value('social_process_resident_memory_bytes') ?? NaN,
    heapUsedBytes: m.value('social_nodejs_heap_size_used_bytes') ?? NaN,
    eventLoopP99Ms: (m.value('social_nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
    openFds: m.value('social_process_open_fds') ?? NaN,
    sockets: m.value('social_ws_open_sockets') ?? NaN,
    delivered: m.value('social_events_delivered_total') ?? NaN,
  };
}

export const quantile = (xs: number[], q: number): number => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The commit and load average a figure is recorded with. */
export function runContext(): { commit: string; load: string; at: string } {
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {}
  return { commit, load: os.loadavg().map((x) => x.toFixed(2)).join(' '), at: new Date().toISOString() };
}
