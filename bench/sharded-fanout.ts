/**
 * `npm run bench -- sharded` (not in `npm test`): 4 social nodes, each party's members holding their sockets on one
 * node, party chat for BENCH_DURATION_SEC (10) at BENCH_SHARDED_RATE (5) messages/s per party; run once on a private
 * plain Redis and once on a private Redis Cluster (3 primaries, 3 replicas). Each node's
 * `social_bus_messages_total{channel, local}` tells how many messages it heard from the store, and how many of them
 * no socket there needed (`local="no"`). Prints a table and writes bench/results/sharded-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import {
  dropSchema,
  sleep,
  startPrivateRedis,
  startPrivateRedisCluster,
  startSocialCluster,
  uniqueSchema,
  type SocialCluster,
} from '@platform/cluster';
import { scrapeMetrics } from '@platform/kit/testing';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DURATION_MS = Number(process.env.BENCH_DURATION_SEC ?? 10) * 1000;
const RATE = Number(process.env.BENCH_SHARDED_RATE ?? 5);
const NODES = 4;
const PARTIES_PER_NODE = Number(process.env.BENCH_SHARDED_PARTIES ?? 10);
const MEMBERS = 4;
const log = (m: string) => process.stderr.write(`[sharded] ${m}\n`);

interface NodeFigure {
  node: number;
  eventHeard: number;
  eventNotNeeded: number;
  fanoutHeard: number;
  fanoutNotNeeded: number;
  delivered: number;
}

async function scrape(url: string): Promise<NodeFigure> {
  const m = await scrapeMetrics(url);
  const bus = (channel: string, local: string) => m.value('social_bus_messages_total', { channel, local }) ?? 0;
  return {
    node: 0,
    eventHeard: bus('event', 'yes') + bus('event', 'no'),
    eventNotNeeded: bus('event', 'no'),
    fanoutHeard: bus('fanout', 'yes') + bus('fanout', 'no'),
    fanoutNotNeeded: bus('fanout', 'no'),
    delivered: m.value('social_events_delivered_total') ?? 0,
  };
}

/** Parties of MEMBERS, every member's socket on the party's node; then chat through that node for the duration. */
async function run(social: SocialCluster): Promise<{ sent: number; nodes: NodeFigure[] }> {
  const sockets: WebSocket[] = [];
  const parties: { node: number; leader: Record<string, string>; partyId: string }[] = [];
  for (let n = 0; n < NODES; n++) {
    const c = social.client(n);
    for (let p = 0; p < PARTIES_PER_NODE; p++) {
      const members = Array.from({ length: MEMBERS }, (_, i) => social.headers(randomUUID(), `m${n}${p}${i}`));
      const created = await c.post('/v1/parties', { visibility: 'Public', maxSize: MEMBERS }, { headers: members[0] });
      if (created.status !== 201) throw new Error(`party: ${created.status} ${JSON.stringify(created.body)}`);
      const partyId = created.body.partyId;
      for (const m of members.slice(1)) {
        const j = await c.post(`/v1/parties/${partyId}/join`, {}, { headers: m });
        if (j.status !== 200) throw new Error(`join: ${j.status} ${JSON.stringify(j.body)}`);
      }
      for (const m of members) {
        const ws = new WebSocket(`ws://127.0.0.1:${social.nodes[n].port}/v1/ws`, { headers: m });
        await new Promise<void>((resolve, reject) => {
          ws.once('message', () => resolve());
          ws.once('error', reject);
        });
        sockets.push(ws);
      }
      parties.push({ node: n, leader: members[0], partyId });
    }
  }
  await sleep(1000);
  const before = await Promise.all(social.metricsUrls.map(scrape));
  let sent = 0;
  const end = Date.now() + DURATION_MS;
  await Promise.all(
    parties.map(async (p) => {
      const c = social.client(p.node);
      for (let i = 0; Date.now() < end; i++) {
        const r = await c.post(`/v1/chat/party/${p.partyId}/messages`, { body: `m${i}` }, { headers: p.leader });
        if (r.status === 201) sent++;
        await sleep(1000 / RATE);
      }
    }),
  );
  await sleep(1000);
  const after = await Promise.all(social.metricsUrls.map(scrape));
  for (const ws of sockets) ws.close();
  const nodes = after.map((a, i) => ({
    node: i + 1,
    eventHeard: a.eventHeard - before[i].eventHeard,
    eventNotNeeded: a.eventNotNeeded - before[i].eventNotNeeded,
    fanoutHeard: a.fanoutHeard - before[i].fanoutHeard,
    fanoutNotNeeded: a.fanoutNotNeeded - before[i].fanoutNotNeeded,
    delivered: a.delivered - before[i].delivered,
  }));
  return { sent, nodes };
}

const results: Record<string, { sent: number; nodes: NodeFigure[] }> = {};
for (const kind of ['redis', 'redis-cluster'] as const) {
  const schema = uniqueSchema('bench_sharded');
  let redisEnv: Record<string, string>;
  let stopRedis: () => Promise<void>;
  if (kind === 'redis') {
    const r = await startPrivateRedis();
    redisEnv = { REDIS_URL: r.url };
    stopRedis = () => r.destroy();
  } else {
    const c = await startPrivateRedisCluster();
    redisEnv = { REDIS_CLUSTER_NODES: c.seeds.join(',') };
    stopRedis = () => c.destroy();
  }
  const social = await startSocialCluster({ nodes: NODES, databaseUrl: DATABASE_URL, schema, redis: redisEnv, metrics: true, env: { SOCIAL_RATE_CHAT_PER_MINUTE: '100000' } });
  try {
    log(`${kind}: ${NODES} nodes, ${NODES * PARTIES_PER_NODE} parties of ${MEMBERS}, ${RATE} msg/s each, ${DURATION_MS / 1000} s`);
    results[kind] = await run(social);
  } finally {
    await social.close();
    await stopRedis();
    await dropSchema(DATABASE_URL, schema).catch(() => {});
  }
}

const rows = Object.entries(results).flatMap(([kind, r]) =>
  r.nodes.map((n) => `| ${kind} | ${n.node} | ${n.eventHeard} | ${n.eventNotNeeded} | ${n.fanoutHeard} | ${n.fanoutNotNeeded} | ${n.delivered} |`),
);
console.log(['| Redis | node | event messages heard | of them needed by no socket here | fan-out heard | not needed | frames delivered |', '|---|---|---|---|---|---|---|', ...rows].join('\n'));
for (const [kind, r] of Object.entries(results)) console.log(`${kind}: ${r.sent} party messages sent`);
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `sharded-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(results, null, 2));
