/**
 * Redis failover under load (docs/deployment.md, "Redis: cluster, Sentinel and failover"): 2 auth and 2 social nodes
 * on a private Redis Cluster (3 primaries, 3 replicas), then on a private primary + replica behind 3 sentinels,
 * carry refreshes, chat and a WebSocket while the primary that holds the state is killed. Expected:
 * every answer meanwhile is a 2xx or a 503 with Retry-After (never another 5xx); every node answers again on
 * its own after the promotion (within 15 s; measured ~0.6 s); the sockets stay open; every chat message answered 201 reaches the friend's socket on
 * the other node, or that socket is told `resync` (never a silent gap); no refresh token is accepted twice.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import {
  dropSchema,
  eventually,
  redisHaAvailable,
  sharedStores,
  sleep,
  startAuthCluster,
  startPrivateRedisCluster,
  startPrivateSentinel,
  startSocialCluster,
  type AuthCluster,
  type ClusterClient,
  type JsonResponse,
  type SocialCluster,
  uniqueSchema,
} from '../src/index.js';
import { fingerprint } from './support.js';

const shared = sharedStores();
const skip = 'skip' in shared ? shared.skip : redisHaAvailable() ? false : 'redis-server, redis-cli or redis-sentinel is missing';

interface Frame {
  type: string;
  data: any;
  id?: string;
}

/** What a load loop saw: each answer's time and status, and the 5xx that were not a 503 with Retry-After. */
interface Seen {
  answers: { at: number; status: number; code?: string }[];
  bad: string[];
}

function record(seen: Seen, r: JsonResponse | undefined, what: string, err?: unknown) {
  const at = Date.now();
  if (!r) {
    seen.bad.push(`${what}: no answer (${(err as Error)?.message})`);
    return;
  }
  seen.answers.push({ at, status: r.status, ...(typeof r.body?.code === 'string' ? { code: r.body.code } : {}) });
  if (r.status >= 500 && !(r.status === 503 && r.headers['retry-after'])) seen.bad.push(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Answers by status and error code, for the messages: `{"200":120,"503 state_unavailable":14}`. */
const statuses = (seen: Seen) =>
  JSON.stringify(seen.answers.reduce<Record<string, number>>((m, a) => {
    const key = a.code ? `${a.status} ${a.code}` : String(a.status);
    m[key] = (m[key] ?? 0) + 1;
    return m;
  }, {}));

/** Milliseconds from `from` to the first 2xx after which every answer of the loop was a 2xx. */

/** The loop's last three answers were 2xx. */
const recovered = (seen: Seen) => seen.answers.length >= 3 && seen.answers.slice(-3).every((a) => a.status < 300);

function recoveredAfter(seen: Seen, from: number): number {
  const later = seen.answers.filter((a) => a.at >= from);
  let lastFailure = from;
  for (const a of later) if (a.status >= 300) lastFailure = a.at;
  const firstOk = later.find((a) => a.at > lastFailure && a.status < 300);
  return firstOk ? firstOk.at - from : Infinity;
}

/** The deployment a run kills a primary of: the variables the nodes get, and how to find and kill the primary. */
interface Deployment {
  env: Record<string, string>;
  /** The port of the primary to kill (the one holding the event logs on a cluster). */
  victim(): number;
  kill(port: number): Promise<void>;
  restart(port: number): Promise<void>;
  destroy(): Promise<void>;
}

const deployments: [string, () => Promise<Deployment>][] = [
  [
    'Redis Cluster, 3 primaries and 3 replicas',
    async () => {
      const c = await startPrivateRedisCluster();
      const prefix = `fo${randomUUID().slice(0, 8)}:`;
      return { env: { REDIS_CLUSTER_NODES: c.seeds.join(','), REDIS_KEY_PREFIX: prefix }, victim: () => c.primaryFor(`${prefix}{log}log:seq`), kill: c.kill, restart: c.restart, destroy: c.destroy };
    },
  ],
  [
    'Redis Sentinel, a primary and a replica',
    async () => {
      const s = await startPrivateSentinel();
      return { env: { REDIS_SENTINELS: s.sentinels.join(','), REDIS_SENTINEL_NAME: s.name }, victim: s.primary, kill: s.kill, restart: s.restart, destroy: s.destroy };
    },
  ],
];

for (const [title, deploy] of deployments) {
  describe(`failover of a ${title}, under load`, { skip }, () => {
    let redis: Deployment;
    const schemas = { auth: uniqueSchema('fo_auth'), social: uniqueSchema('fo_social') };
    let auth: AuthCluster;
    let social: SocialCluster;

    before(async () => {
      if ('skip' in shared) return;
      redis = await deploy();
      [auth, social] = await Promise.all([
        // The load refreshes 20 times a second from one address: the per-IP limits stand aside.
        startAuthCluster({ nodes: 2, databaseUrl: shared.databaseUrl, schema: schemas.auth, redis: redis.env, env: { AUTH_RATE_REFRESH_PER_IP: '100000', AUTH_RATE_GENERAL_PER_IP: '100000' } }),
        startSocialCluster({ nodes: 2, databaseUrl: shared.databaseUrl, schema: schemas.social, redis: redis.env, env: { SOCIAL_RATE_CHAT_PER_MINUTE: '100000' } }),
      ]);
    });
    after(async () => {
      await Promise.allSettled([auth?.close(), social?.close()]);
      if (!('skip' in shared)) for (const schema of Object.values(schemas)) await dropSchema(shared.databaseUrl, schema).catch(() => {});
      await redis?.destroy();
    });

    it('answers 2xx or 503 with Retry-After, recovers on its own, keeps sockets open, delivers or resyncs, accepts no refresh twice', async () => {
      const authClients: ClusterClient[] = [0, 1].map((i) => auth.client(i, { attempts: 1, timeoutMs: 5000 }));
      const socialClients: ClusterClient[] = [0, 1].map((i) => social.client(i, { attempts: 1, timeoutMs: 5000 }));
      // Ann writes to Ben (a dm) through node 1; Ben, her friend, holds a socket on node 2.
      const ann = social.headers(randomUUID(), 'ann');
      const ben = social.headers(randomUUID(), 'ben');
      const annMe = (await socialClients[0].get('/v1/me', { headers: ann })).body;
      const benMe = (await socialClients[1].get('/v1/me', { headers: ben })).body;
      assert.equal((await socialClients[0].post('/v1/friends/requests', { toPublicId: benMe.publicId }, { headers: ann })).status, 201);
      assert.equal((await socialClients[1].post(`/v1/friends/requests/${annMe.publicId}/accept`, undefined, { headers: ben })).status, 200);
      const dm = (await socialClients[1].get('/v1/friends', { headers: ben })).body.find((f: { publicId: string }) => f.publicId === annMe.publicId)?.dmChannelId;
      assert.ok(dm, 'the dm channel of the two friends');
      const frames: Frame[] = [];
      const ws = new WebSocket(`ws://127.0.0.1:${social.nodes[1].port}/v1/ws`, { headers: ben });
      let closed: { code: number; reason: string } | undefined;
      ws.on('message', (raw) => frames.push(JSON.parse(raw.toString())));
      ws.on('close', (code, reason) => (closed = { code, reason: reason.toString() }));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      await eventually(async () => frames.some((f) => f.type === 'caughtUp'), 8000, 'caughtUp');

      // Refresh chains on both auth nodes: each token is used once, then tried again (must be refused).
      const guest = await authClients[0].post('/guest', { device_fingerprint: fingerprint() });
      assert.equal(guest.status, 200, JSON.stringify(guest.body));
      let refreshToken: string = guest.body.refresh_token;
      const spent: string[] = [];

      const seenAuth: Seen = { answers: [], bad: [] };
      const seenSocial: Seen = { answers: [], bad: [] };
      const acknowledged: string[] = [];
      let running = true;
      let n = 0;
      const authLoop = (async () => {
        for (let i = 0; running; i++) {
          const r = await authClients[i % 2].post('/refresh', { refresh_token: refreshToken }).catch((err) => (record(seenAuth, undefined, 'refresh', err), undefined));
          if (r) record(seenAuth, r, 'refresh');
          if (r?.status === 200) {
            spent.push(refreshToken);
            refreshToken = r.body.refresh_token;
          }
          await sleep(50);
        }
      })();
      const socialLoop = (async () => {
        while (running) {
          const body = `step-${++n}`;
          const r = await socialClients[0]
            .post(`/v1/chat/dm/${dm}/messages`, { body }, { headers: ann })
            .catch((err) => (record(seenSocial, undefined, 'chat', err), undefined));
          if (r) record(seenSocial, r, 'chat');
          if (r?.status === 201) acknowledged.push(body);
          await sleep(50);
        }
      })();

      await sleep(1000);
      const victim = redis.victim();
      const killedAt = Date.now();
      await redis.kill(victim);
      // The promotion: when the deployment names another primary. A loaded machine makes the election slower than the
      // usual 1-2 s; the recovery goal counts from it (without it seen, from 2 s after the kill).
      let promotedAt = killedAt + 2000;
      for (const deadline = killedAt + 15_000; Date.now() < deadline; await sleep(100)) {
        let now: number | undefined;
        try {
          now = redis.victim();
        } catch {
          now = undefined;
        }
        if (now !== undefined && now !== victim) {
          promotedAt = Date.now();
          break;
        }
      }
      // Load through the failover and well past it.
      await sleep(Math.max(0, promotedAt + 6500 - Date.now()));
      // A node still refusing then is given the time of the bound below, so its recovery is seen.
      for (const deadline = promotedAt + 15_000; Date.now() < deadline && !(recovered(seenAuth) && recovered(seenSocial)); ) await sleep(250);
      running = false;
      await Promise.all([authLoop, socialLoop]);
      // What was acknowledged last may still be on its way to the socket.
      const delivered = () => new Set(frames.filter((f) => f.type === 'chatMessage').map((f) => f.data?.body));
      const resynced = () => frames.some((f) => f.type === 'resync' && f.data?.reason === 'interrupted');
      await eventually(async () => acknowledged.every((a) => delivered().has(a)) || resynced(), 8000, 'every acknowledged change delivered, or a resync').catch(() => {});

      assert.deepEqual(seenAuth.bad, [], 'auth: only 2xx, 4xx and 503 with Retry-After');
      assert.deepEqual(seenSocial.bad, [], 'social: only 2xx, 4xx and 503 with Retry-After');
      const authRecovery = recoveredAfter(seenAuth, killedAt);
      const socialRecovery = recoveredAfter(seenSocial, killedAt);
      const promotion = promotedAt - killedAt;
      // Recovery without a restart, bounded well above the measured figure: ~0.6 s after the promotion on a quiet
      // machine (printed below), but 6.5 s once on a loaded CI machine. The figure belongs to a measurement, not to a
      // pass/fail line: the bound only catches a node that does not come back on its own.
      const bound = 15_000;
      assert.ok(authRecovery - promotion < bound, `auth answered again ${authRecovery} ms after the kill, promotion at ${promotion} ms (${statuses(seenAuth)})`);
      assert.ok(socialRecovery - promotion < bound, `social answered again ${socialRecovery} ms after the kill, promotion at ${promotion} ms (${statuses(seenSocial)})`);
      assert.equal(closed, undefined, 'the platform closed no socket');
      const missing = acknowledged.filter((a) => !delivered().has(a));
      assert.ok(missing.length === 0 || resynced(), `acknowledged and never delivered, with no resync: ${missing.join(', ')}`);
      // Behind Sentinel the node's one subscription connection was lost with the primary: it must say so.
      if (redis.env.REDIS_SENTINELS) assert.ok(resynced(), 'resync (interrupted) after the subscriptions were lost');
      // No refresh token is accepted twice, whichever node is asked.
      for (const [i, t] of spent.slice(-5).entries()) {
        const again = await authClients[i % 2].post('/refresh', { refresh_token: t });
        assert.equal(again.status, 401, `a spent refresh token was accepted again: ${JSON.stringify(again.body)}`);
      }
      assert.ok(spent.length > 20, `refreshes went on (${spent.length})`);
      ws.close();
      await redis.restart(victim);
      console.log(
        `${title}: auth recovered after ${authRecovery} ms ${statuses(seenAuth)}, social after ${socialRecovery} ms ${statuses(seenSocial)}; ` +
          `${acknowledged.length} changes, ${acknowledged.length - missing.length} delivered live, resync: ${resynced()}`,
      );
    });
  });
}
