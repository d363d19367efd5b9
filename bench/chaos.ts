/**
 * `npm run bench -- chaos` (not in `npm test`): CHAOS_DURATION_SEC (600) of load on 2 auth and 2 social nodes over a
 * private Redis Cluster (3 primaries, 3 replicas) and the shared PostgreSQL, while every CHAOS_MIN_SEC-CHAOS_MAX_SEC
 * (30-60) seconds a random auth node, social node or Redis primary is SIGKILLed and brought back CHAOS_DOWN_SEC (8)
 * seconds later. The load: refresh chains and guest sign-ups on auth, dm chat on social to friends holding sockets
 * (a socket whose node dies reconnects to the other node with `lastEventId`, as the SDK does). It reports:
 * - acknowledged writes lost: guests answered 200 missing from PostgreSQL, dms answered 201 missing from the history
 *   (goal 0);
 * - events neither delivered nor covered by a `resync` (goal 0);
 * - refresh tokens accepted twice: every spent token is tried again at the end (goal 0);
 * - answers by status (5xx other than 503 are bugs) and each recovery time (a node: its restart → /readyz 200; a
 *   Redis primary: the kill → both services answering a Redis-dependent request again).
 * Writes bench/results/chaos-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { WebSocket } from 'ws';
import {
  dropSchema,
  sleep,
  startAuthCluster,
  startPrivateRedisCluster,
  startSocialCluster,
  uniqueSchema,
  type ClusterClient,
  type JsonResponse,
} from '@platform/cluster';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DURATION_MS = Number(process.env.CHAOS_DURATION_SEC ?? 600) * 1000;
const MIN_MS = Number(process.env.CHAOS_MIN_SEC ?? 30) * 1000;
const MAX_MS = Number(process.env.CHAOS_MAX_SEC ?? 60) * 1000;
const DOWN_MS = Number(process.env.CHAOS_DOWN_SEC ?? 8) * 1000;
const CHAINS = Number(process.env.CHAOS_REFRESH_CHAINS ?? 6);
const PAIRS = Number(process.env.CHAOS_CHAT_PAIRS ?? 6);
const log = (m: string) => process.stderr.write(`[chaos] ${m}\n`);

const statuses = new Map<string, number>();
const bad: string[] = [];
function count(what: string, r: JsonResponse | undefined, err?: unknown) {
  const key = r ? `${what} ${r.status}` : `${what} no answer`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  if (r && r.status >= 500 && !(r.status === 503 && r.headers['retry-after'])) bad.push(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  if (!r && err && !/ECONNREFUSED|ECONNRESET|socket hang up|timed out|EPIPE/i.test(String((err as Error).message))) bad.push(`${what}: ${(err as Error).message}`);
}

/** Asks node i, then the other one when i does not answer (what a balancer does for a dead node). */
async function either<T extends JsonResponse>(clients: ClusterClient[], call: (c: ClusterClient) => Promise<T>, what: string): Promise<T | undefined> {
  const first = Math.floor(Math.random() * clients.length);
  for (let k = 0; k < clients.length; k++) {
    const c = clients[(first + k) % clients.length];
    try {
      const r = await call(c);
      count(what, r);
      return r;
    } catch (err) {
      count(what, undefined, err);
    }
  }
  return undefined;
}

const redis = await startPrivateRedisCluster();
const prefix = `chaos${randomUUID().slice(0, 6)}:`;
const redisEnv = { REDIS_CLUSTER_NODES: redis.seeds.join(','), REDIS_KEY_PREFIX: prefix };
const schemas = { auth: uniqueSchema('chaos_auth'), social: uniqueSchema('chaos_social') };
const high = '100000000';
const [auth, social] = await Promise.all([
  startAuthCluster({ nodes: 2, databaseUrl: DATABASE_URL, schema: schemas.auth, redis: redisEnv, env: { AUTH_RATE_REFRESH_PER_IP: high, AUTH_RATE_GENERAL_PER_IP: high, AUTH_RATE_GUEST_PER_IP: high, AUTH_GUEST_SCORE_SLOW: high, AUTH_GUEST_SCORE_REFUSE: high } }),
  startSocialCluster({ nodes: 2, databaseUrl: DATABASE_URL, schema: schemas.social, redis: redisEnv, env: { SOCIAL_RATE_CHAT_PER_MINUTE: '100000', SOCIAL_RATE_ACTIONS_PER_MINUTE: '100000' } }),
]);
const authClients = [0, 1].map((i) => auth.client(i, { attempts: 1, timeoutMs: 5000 }));
const socialClients = [0, 1].map((i) => social.client(i, { attempts: 1, timeoutMs: 5000 }));
log(`2 auth, 2 social nodes; Redis Cluster ${redis.seeds.join(',')}; ${DURATION_MS / 1000} s`);

// ------------------------------------------------------------------ social: pairs of friends, one socket each
interface Receiver {
  headers: Record<string, string>;
  lastId?: string;
  got: Set<string>;
  /** When each resync arrived. */
  resyncs: number[];
  ws?: WebSocket;
  closedByPlatform: number;
}
const pairs: { sender: Record<string, string>; dm: string; receiver: Receiver; acked: { body: string; at: number }[] }[] = [];
for (let i = 0; i < PAIRS; i++) {
  const sender = social.headers(randomUUID(), `s${i}`);
  const receiverHeaders = social.headers(randomUUID(), `r${i}`);
  const s = (await socialClients[0].get('/v1/me', { headers: sender })).body;
  const r = (await socialClients[1].get('/v1/me', { headers: receiverHeaders })).body;
  await socialClients[0].post('/v1/friends/requests', { toPublicId: r.publicId }, { headers: sender });
  await socialClients[1].post(`/v1/friends/requests/${s.publicId}/accept`, undefined, { headers: receiverHeaders });
  const dm = (await socialClients[1].get('/v1/friends', { headers: receiverHeaders })).body.find((f: { publicId: string }) => f.publicId === s.publicId).dmChannelId;
  pairs.push({ sender, dm, receiver: { headers: receiverHeaders, got: new Set(), resyncs: [], closedByPlatform: 0 }, acked: [] });
}

let running = true;
/** Keeps the receiver's socket open: on close, reconnect to either node resuming from the last id seen. */
async function holdSocket(rcv: Receiver, node: number) {
  while (running) {
    const port = social.nodes[node % 2].port;
    const url = `ws://127.0.0.1:${port}/v1/ws${rcv.lastId ? `?lastEventId=${encodeURIComponent(rcv.lastId)}` : ''}`;
    await new Promise<void>((resolve) => {
      const ws = new WebSocket(url, { headers: rcv.headers });
      rcv.ws = ws;
      ws.on('message', (raw) => {
        const f = JSON.parse(raw.toString()) as { type: string; data: any; id?: string };
        if (f.id) rcv.lastId = f.id;
        if (f.type === 'chatMessage') rcv.got.add(f.data.body);
        if (f.type === 'resync') rcv.resyncs.push(Date.now());
      });
      ws.on('error', () => {});
      // 1001 is a node shutting down (never here: nodes are SIGKILLed); any other close code from a live node is the platform's.
      ws.on('close', (code) => {
        if (code !== 1006 && running) rcv.closedByPlatform++;
        resolve();
      });
    });
    node++;
    await sleep(200);
  }
}
const sockets = pairs.map((p, i) => holdSocket(p.receiver, i));

const chatLoops = pairs.map(async (p, i) => {
  for (let n = 0; running; n++) {
    const body = `c${i}-${n}`;
    const at = Date.now();
    const r = await either(socialClients, (c) => c.post(`/v1/chat/dm/${p.dm}/messages`, { body }, { headers: p.sender }), 'social dm');
    if (r?.status === 201) p.acked.push({ body, at });
    await sleep(200);
  }
});

// ------------------------------------------------------------------ auth: refresh chains and guests
const spent: string[] = [];
const guests: string[] = [];
const refreshLoops = Array.from({ length: CHAINS }, async () => {
  let token: string | undefined;
  while (running) {
    if (!token) {
      const g = await either(authClients, (c) => c.post('/guest', { device_fingerprint: `chaos-${randomUUID()}` }), 'auth guest');
      if (g?.status === 200) {
        token = g.body.refresh_token;
        guests.push(g.body.account_id);
      }
    } else {
      const r = await either(authClients, (c) => c.post('/refresh', { refresh_token: token }), 'auth refresh');
      if (r?.status === 200) {
        spent.push(token);
        token = r.body.refresh_token;
      } else if (r && r.status < 500) token = undefined; // refused (reuse after an unanswered success): start a new chain
    }
    await sleep(200);
  }
});

// ------------------------------------------------------------------ the chaos
interface Kill {
  target: string;
  at: number;
  /** A node: from its restart to its first 200 on /readyz. A Redis primary: from the kill to both services answering. */
  recoveredMs?: number;
}
const kills: Kill[] = [];
async function recoveryOf(kill: Kill, probe: () => Promise<boolean>, from = kill.at) {
  while (running || Date.now() - from < 60_000) {
    if (await probe().catch(() => false)) return void (kill.recoveredMs = Date.now() - from);
    await sleep(100);
  }
}
const chaos = (async () => {
  const end = Date.now() + DURATION_MS;
  while (Date.now() < end - MIN_MS) {
    await sleep(MIN_MS + Math.random() * (MAX_MS - MIN_MS));
    const pick = Math.floor(Math.random() * 3);
    if (pick === 0 || pick === 1) {
      const svc = pick === 0 ? auth : social;
      const i = Math.floor(Math.random() * 2);
      const node = svc.nodes[i];
      const kill: Kill = { target: `${pick === 0 ? 'auth' : 'social'} node ${i + 1}`, at: Date.now() };
      kills.push(kill);
      log(`kill ${kill.target}`);
      await node.kill();
      await sleep(DOWN_MS);
      const restartedAt = Date.now();
      await node.restart();
      // Recovered: the restarted node answers its readiness probe.
      await recoveryOf(kill, async () => (await node.probe('/readyz')) === 200, restartedAt);
    } else {
      const primaries = redis.primaries();
      const port = primaries[Math.floor(Math.random() * primaries.length)];
      const kill: Kill = { target: `Redis primary :${port}`, at: Date.now() };
      kills.push(kill);
      log(`kill ${kill.target}`);
      await redis.kill(port);
      // Recovered: both services answer a Redis-dependent request again (a refresh limit hit, a presence write).
      const watch = recoveryOf(kill, async () => {
        const a = await authClients[0].get('/account', { token: 'not-a-token' }).catch(() => undefined);
        const s = await socialClients[0].post('/v1/presence', { state: 'online' }, { headers: pairs[0].sender }).catch(() => undefined);
        return a?.status === 401 && s?.status === 200;
      });
      await sleep(DOWN_MS);
      await redis.restart(port);
      await watch;
    }
    log(`${kills.at(-1)!.target}: recovered after ${kills.at(-1)!.recoveredMs} ms`);
  }
  await sleep(Math.max(0, end - Date.now()));
})();

await chaos;
running = false;
for (const p of pairs) p.receiver.ws?.close();
await Promise.all([...chatLoops, ...refreshLoops, ...sockets]);
await sleep(3000);

// ------------------------------------------------------------------ the audit
const authDb = new pg.Pool({ connectionString: DATABASE_URL, max: 2, options: `-c search_path=${schemas.auth}` });
const socialDb = new pg.Pool({ connectionString: DATABASE_URL, max: 2, options: `-c search_path=${schemas.social}` });
const foundGuests = new Set((await authDb.query('SELECT id::text FROM accounts WHERE id = ANY($1::uuid[])', [guests])).rows.map((r) => r.id));
const lostGuests = guests.filter((g) => !foundGuests.has(g)).length;
const bodies = new Set((await socialDb.query('SELECT body FROM chat_messages')).rows.map((r) => r.body));
let lostMessages = 0;
let neitherDeliveredNorResynced = 0;
let acknowledged = 0;
for (const p of pairs) {
  for (const a of p.acked) {
    acknowledged++;
    if (!bodies.has(a.body)) lostMessages++;
    if (!p.receiver.got.has(a.body) && !p.receiver.resyncs.some((t) => t >= a.at)) neitherDeliveredNorResynced++;
  }
}
let acceptedTwice = 0;
for (const t of spent) {
  const r = await either(authClients, (c) => c.post('/refresh', { refresh_token: t }), 'auth refresh (spent)');
  if (r?.status === 200) acceptedTwice++;
}
const report = {
  durationSec: DURATION_MS / 1000,
  kills,
  acknowledgedWritesLost: lostGuests + lostMessages,
  guests: guests.length,
  lostGuests,
  dmsAcknowledged: acknowledged,
  lostMessages,
  eventsNeitherDeliveredNorResynced: neitherDeliveredNorResynced,
  resyncs: pairs.reduce((n, p) => n + p.receiver.resyncs.length, 0),
  socketsClosedByPlatform: pairs.reduce((n, p) => n + p.receiver.closedByPlatform, 0),
  refreshes: spent.length,
  refreshAcceptedTwice: acceptedTwice,
  answers: Object.fromEntries([...statuses].sort()),
  fiveHundredsOtherThan503: bad.length,
  firstBadAnswers: bad.slice(0, 10),
};
await Promise.all([authDb.end(), socialDb.end()]);
await Promise.allSettled([auth.close(), social.close()]);
await redis.destroy();
for (const s of Object.values(schemas)) await dropSchema(DATABASE_URL, s).catch(() => {});
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `chaos-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify(report, null, 2));
console.log(JSON.stringify(report, null, 2));
log(`written ${file}`);
