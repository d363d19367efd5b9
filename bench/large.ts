/**
 * `npm run bench -- large` (not in `npm test`; issue 29 item 4): the largest channels the configuration allows, on one
 * social node process. (1) Party chat in a party of Social:Parties:MaxSizeLimit at its highest (100): the leader sends,
 * waits until every member's socket has the message, sends the next (closed loop). (2) A presence change of a player
 * with Social:Friends:Max friends (BENCH_LARGE_FRIENDS, 1000), every friend connected: the player alternates
 * away/online, each change waited for at every friend. Reported: deliveries/s and the time from the send to the
 * last recipient (p50, p99). Prints a table; writes bench/results/large-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { quantile, runContext, startSocialBench, type BenchSocket } from './social-node.js';

const PARTY = 100;
const FRIENDS = Number(process.env.BENCH_LARGE_FRIENDS ?? 1000);
const DURATION_MS = Number(process.env.BENCH_DURATION_SEC ?? 10) * 1000;
const log = (m: string) => process.stderr.write(`[large] ${m}\n`);

/** Runs `send(i)` in a closed loop: the next once `done(i)` resolved; the time from each send to its done. */
async function closedLoop(send: (i: number) => void, arrivals: { wait(i: number): Promise<void> }): Promise<{ rounds: number; ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < DURATION_MS) {
    const start = performance.now();
    const done = arrivals.wait(i);
    send(i);
    await done;
    latencies.push(performance.now() - start);
    i++;
  }
  return { rounds: i, ms: performance.now() - t0, latencies };
}

/** Counts, per round key, the sockets that received it; `wait(i)` resolves when all `n` did. */
function arrivalCounter(n: number) {
  const got = new Map<number, number>();
  const waiters = new Map<number, () => void>();
  return {
    seen(i: number) {
      const c = (got.get(i) ?? 0) + 1;
      got.set(i, c);
      if (c === n) {
        got.delete(i);
        waiters.get(i)?.();
        waiters.delete(i);
      }
    },
    wait(i: number) {
      return new Promise<void>((r) => waiters.set(i, r));
    },
  };
}

const bench = await startSocialBench({
  SOCIAL_PARTIES_MAX_SIZE_LIMIT: String(PARTY),
  SOCIAL_FRIENDS_MAX: String(FRIENDS),
  SOCIAL_PRESENCE_GRACE_MS: '0',
  // The per-socket frame budget (20/s) limits one client, not a channel: raised so the closed loop measures the channel.
  SOCIAL_REALTIME_FRAMES_PER_SECOND: '10000',
});
const results: Record<string, unknown>[] = [];
try {
  // (1) The largest party.
  log(`party of ${PARTY}`);
  const members = await bench.players(PARTY, 'pm');
  const partyId = await bench.party(members);
  const party = arrivalCounter(PARTY);
  const partySockets: BenchSocket[] = [];
  for (const m of members) {
    partySockets.push(
      await bench.connect(m, {
        onFrame: (type, data) => {
          if (type === 'chatMessage' && data.body.startsWith('r')) party.seen(Number(data.body.slice(1)));
        },
      }),
    );
  }
  const leader = partySockets[0]!;
  const p = await closedLoop((i) => leader.ws.send(JSON.stringify({ type: 'chatSend', channel: 'party', channelId: partyId, body: `r${i}` })), party);
  results.push({ figure: `party chat, party of ${PARTY}`, messages: p.rounds, deliveriesPerSec: Math.round((p.rounds * PARTY * 1000) / p.ms), p50Ms: quantile(p.latencies, 0.5), p99Ms: quantile(p.latencies, 0.99) });
  for (const s of partySockets) s.ws.close();

  // (2) A presence change to the most friends.
  log(`presence to ${FRIENDS} friends`);
  const [star] = await bench.players(1, 'star');
  const friends = await bench.players(FRIENDS, 'fr');
  await bench.befriend(friends.map((f) => [star!, f]));
  const states = ['away', 'online'] as const;
  let round = -1;
  const presence = arrivalCounter(FRIENDS);
  const friendSockets: BenchSocket[] = [];
  for (const f of friends) {
    friendSockets.push(
      await bench.connect(f, {
        onFrame: (type, data) => {
          if (type === 'friendPresenceChanged' && data.publicId === star!.publicId && round >= 0 && data.state === states[round % 2]) presence.seen(round);
        },
      }),
    );
  }
  const starSocket = await bench.connect(star!);
  await new Promise((r) => setTimeout(r, 2000));
  const q = await closedLoop((i) => {
    round = i;
    starSocket.ws.send(JSON.stringify({ type: 'presenceUpdate', state: states[i % 2] }));
  }, presence);
  results.push({ figure: `presence change to ${FRIENDS} friends`, changes: q.rounds, deliveriesPerSec: Math.round((q.rounds * FRIENDS * 1000) / q.ms), p50Ms: quantile(q.latencies, 0.5), p99Ms: quantile(q.latencies, 0.99) });
  for (const s of friendSockets) s.ws.close();
  starSocket.ws.close();
} finally {
  await bench.close();
}
const ctx = runContext();
console.log(`\nLarge channels @ ${ctx.commit}, load at the end ${ctx.load}; closed loop, ${DURATION_MS / 1000} s each\n`);
console.log('| figure | rounds | deliveries/s | send → last recipient p50 | p99 |\n|---|---|---|---|---|');
for (const r of results as { figure: string; messages?: number; changes?: number; deliveriesPerSec: number; p50Ms: number; p99Ms: number }[]) {
  console.log(`| ${r.figure} | ${r.messages ?? r.changes} | ${r.deliveriesPerSec} | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms |`);
}
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `large-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ ...ctx, results }, null, 2));
