/**
 * `npm run bench -- soak` (not in `npm test`; issue 29 item 3): BENCH_SOAK_SEC (600) seconds on one social node
 * process of churn (BENCH_SOAK_CHURN, 200 connects and 200 disconnects per second, of players who each have 5 friends
 * among the steady players, so every connect and disconnect is a presence change) with party chat among steady
 * sockets (100 parties of 10) at a rate that, with the presence changes, makes ~5,000 deliveries/s. The node's RSS,
 * heap used, event-loop delay p99 and open descriptors are sampled every 10 s; the last minute's means are compared
 * with the second minute's (goal: within 10%). Prints a table; writes bench/results/soak-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { quantile, runContext, sleep, startSocialBench, type BenchSocket, type Player, type ProcessFigures } from './social-node.js';

const DURATION_S = Number(process.env.BENCH_SOAK_SEC ?? 600);
const CHURN = Number(process.env.BENCH_SOAK_CHURN ?? 200);
const PARTIES = 100;
const PARTY_SIZE = 10;
const CHURN_POOL = 1000;
const FRIENDS_EACH = 5;
/** Party messages per second: each reaches PARTY_SIZE sockets. */
const CHAT_PER_SEC = Number(process.env.BENCH_SOAK_CHAT ?? 300);
const log = (m: string) => process.stderr.write(`[soak] ${m}\n`);

// Presence offline at once (no grace): every disconnect is a change the friends see.
const bench = await startSocialBench({ SOCIAL_PRESENCE_GRACE_MS: '0' });
try {
  log(`setting up ${PARTIES * PARTY_SIZE} steady players in ${PARTIES} parties, ${CHURN_POOL} churning players with ${FRIENDS_EACH} friends each`);
  const steady = await bench.players(PARTIES * PARTY_SIZE, 's');
  const churners = await bench.players(CHURN_POOL, 'c');
  await bench.befriend(churners.flatMap((c, i) => Array.from({ length: FRIENDS_EACH }, (_, k) => [c, steady[(i * FRIENDS_EACH + k) % steady.length]!] as [Player, Player])));
  const parties: { partyId: string; leader: BenchSocket }[] = [];
  const latencies: number[] = [];
  const sentAt = new Map<string, number>();
  for (let p = 0; p < PARTIES; p++) {
    const members = steady.slice(p * PARTY_SIZE, (p + 1) * PARTY_SIZE);
    const partyId = await bench.party(members);
    const sockets = [];
    for (const m of members) {
      sockets.push(
        await bench.connect(m, {
          onFrame: (type, data) => {
            if (type !== 'chatMessage') return;
            const t = sentAt.get(data.body);
            if (t !== undefined) latencies.push(performance.now() - t);
          },
        }),
      );
    }
    parties.push({ partyId, leader: sockets[0]! });
  }
  log('steady sockets open; soak begins');

  let stop = false;
  let chats = 0;
  let connects = 0;
  let connectFailures = 0;
  // Chat: one message per tick from a party leader in turn (a chatSend frame; the per-socket frame budget is 20/s).
  const chatLoop = (async () => {
    const tickMs = 10;
    let carry = 0;
    while (!stop) {
      carry += (CHAT_PER_SEC * tickMs) / 1000;
      for (; carry >= 1; carry--) {
        const party = parties[chats % PARTIES]!;
        const body = `m${chats++}`;
        sentAt.set(body, performance.now());
        party.leader.ws.send(JSON.stringify({ type: 'chatSend', channel: 'party', channelId: party.partyId, body }));
      }
      if (sentAt.size > 100_000) sentAt.clear();
      await sleep(tickMs);
    }
  })();
  // Churn: CHURN connects per second, each socket closed a second later (so ~CHURN open at a time).
  const churnLoop = (async () => {
    let i = 0;
    while (!stop) {
      const started = Date.now();
      for (let k = 0; k < CHURN / 10; k++) {
        const who = churners[i++ % churners.length]!;
        connects++;
        void bench.connect(who).then(
          (s) => setTimeout(() => s.ws.close(), 1000),
          () => connectFailures++,
        );
      }
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }
  })();

  const samples: (ProcessFigures & { t: number; deliveredPerSec: number; chatP99Ms: number })[] = [];
  const t0 = Date.now();
  let lastDelivered = (await bench.processFigures()).delivered;
  let lastAt = Date.now();
  while (Date.now() - t0 < DURATION_S * 1000) {
    await sleep(10_000);
    const f = await bench.processFigures();
    const now = Date.now();
    const lat = latencies.splice(0);
    samples.push({ ...f, t: Math.round((now - t0) / 1000), deliveredPerSec: Math.round(((f.delivered - lastDelivered) * 1000) / (now - lastAt)), chatP99Ms: quantile(lat, 0.99) });
    lastDelivered = f.delivered;
    lastAt = now;
    const s = samples.at(-1)!;
    log(`${s.t}s rss ${(s.rssBytes / 2 ** 20).toFixed(1)} MiB heap ${(s.heapUsedBytes / 2 ** 20).toFixed(1)} MiB loop p99 ${s.eventLoopP99Ms.toFixed(1)} ms fds ${s.openFds} sockets ${s.sockets} ${s.deliveredPerSec} deliveries/s chat p99 ${s.chatP99Ms.toFixed(1)} ms`);
  }
  stop = true;
  await chatLoop;
  await churnLoop;

  const minute = (from: number, to: number) => samples.filter((s) => s.t > from && s.t <= to);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const second = minute(60, 120);
  const last = minute(DURATION_S - 60, DURATION_S + 30);
  const row = (name: string, pick: (s: ProcessFigures & { deliveredPerSec: number; chatP99Ms: number }) => number, unit: string, scale = 1) => {
    const a = mean(second.map(pick)) / scale;
    const b = mean(last.map(pick)) / scale;
    const change = (b - a) / a;
    return { name, second: a, last: b, change, unit, ok: Math.abs(change) <= 0.1 };
  };
  const rows = [
    row('RSS', (s) => s.rssBytes, 'MiB', 2 ** 20),
    row('heap used', (s) => s.heapUsedBytes, 'MiB', 2 ** 20),
    row('event-loop delay p99', (s) => s.eventLoopP99Ms, 'ms'),
    row('open descriptors', (s) => s.openFds, ''),
    row('deliveries/s', (s) => s.deliveredPerSec, '/s'),
    row('chat p99 (send → delivery)', (s) => s.chatP99Ms, 'ms'),
  ];
  const ctx = runContext();
  console.log(`\nSoak @ ${ctx.commit}, load at the end ${ctx.load}: ${DURATION_S} s, ${CHURN} connects/s and as many disconnects, ${CHAT_PER_SEC} party messages/s to parties of ${PARTY_SIZE}\n`);
  console.log('| figure | 2nd minute (mean) | last minute (mean) | change | within 10% |\n|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.second.toFixed(1)} ${r.unit} | ${r.last.toFixed(1)} ${r.unit} | ${(r.change * 100).toFixed(1)}% | ${r.ok ? 'yes' : 'NO'} |`);
  console.log(`\nconnects ${connects}, failed ${connectFailures} (${((connectFailures / Math.max(1, connects)) * 100).toFixed(2)}%), chat messages ${chats}`);
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ ...ctx, durationS: DURATION_S, churn: CHURN, chatPerSec: CHAT_PER_SEC, rows, samples, connects, connectFailures }, null, 2));
} finally {
  await bench.close();
}
