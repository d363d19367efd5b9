/**
 * `npm run bench -- slow` (not in `npm test`; issue 29 item 1): 100 parties of 4 on one social node process, party
 * chat open loop at BENCH_SLOW_RATE (500) messages/s of 1 KB in all; run twice in the same process: without, then
 * with one stalled reader per 100 sockets (its TCP socket paused, as a frozen client). Reported: the p99 from the
 * send to each delivery at the sockets that read, both runs, and their ratio (goal ≤ 1.10), and whether the stalled
 * sockets were cut (4008) during the run. Prints a table; writes bench/results/slow-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Socket } from 'node:net';
import { quantile, runContext, sleep, startSocialBench, type BenchSocket, type Player } from './social-node.js';

const PARTIES = 100;
const SIZE = 4;
const RATE = Number(process.env.BENCH_SLOW_RATE ?? 500);
const DURATION_MS = Number(process.env.BENCH_DURATION_SEC ?? 10) * 1000;
const BODY = 'x'.repeat(1000);
const log = (m: string) => process.stderr.write(`[slow] ${m}\n`);

const bench = await startSocialBench({ SOCIAL_REALTIME_FRAMES_PER_SECOND: '10000' });
const results: { run: string; p50Ms: number; p99Ms: number; deliveries: number; stalledCut: number }[] = [];
try {
  const players = await bench.players(PARTIES * SIZE, 'p');
  const parties: { id: string; members: Player[] }[] = [];
  for (let p = 0; p < PARTIES; p++) {
    const members = players.slice(p * SIZE, (p + 1) * SIZE);
    parties.push({ id: await bench.party(members), members });
  }
  for (const stalledPerHundred of [0, 1]) {
    const latencies: number[] = [];
    const sentAt = new Map<string, number>();
    const sockets: BenchSocket[][] = [];
    for (const party of parties) {
      const row: BenchSocket[] = [];
      for (const m of party.members) {
        row.push(
          await bench.connect(m, {
            onFrame: (type, data) => {
              if (type !== 'chatMessage') return;
              const t = sentAt.get(data.body.slice(0, 12));
              if (t !== undefined) latencies.push(performance.now() - t);
            },
          }),
        );
      }
      sockets.push(row);
    }
    // One stalled reader per 100 sockets: the last member of every 25th party (never a sender).
    const stalled: BenchSocket[] = [];
    if (stalledPerHundred) for (let p = 0; p < PARTIES; p += 25) stalled.push(sockets[p]![SIZE - 1]!);
    for (const s of stalled) (s.ws as unknown as { _socket: Socket })._socket.pause();
    const stalledCodes: number[] = [];
    for (const s of stalled) void s.closed.then((c) => stalledCodes.push(c));
    await sleep(1000);
    log(`run with ${stalled.length} stalled readers`);
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < DURATION_MS) {
      const due = Math.floor(((performance.now() - t0) * RATE) / 1000);
      for (; n < due; n++) {
        const party = parties[n % PARTIES]!;
        const key = `k${String(n).padStart(11, '0')}`;
        sentAt.set(key, performance.now());
        sockets[n % PARTIES]![0]!.ws.send(JSON.stringify({ type: 'chatSend', channel: 'party', channelId: party.id, body: key + BODY }));
      }
      await sleep(2);
    }
    await sleep(2000);
    results.push({ run: stalledPerHundred ? '1 stalled reader per 100 sockets' : 'no stalled reader', p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), deliveries: latencies.length, stalledCut: stalledCodes.filter((c) => c === 4008).length });
    for (const row of sockets) for (const s of row) s.ws.terminate();
    await sleep(2000);
  }
} finally {
  await bench.close();
}
const ctx = runContext();
const ratio = results[1]!.p99Ms / results[0]!.p99Ms;
console.log(`\nSlow consumers @ ${ctx.commit}, load at the end ${ctx.load}: ${PARTIES} parties of ${SIZE}, ${RATE} messages/s of 1 KB, ${DURATION_MS / 1000} s per run\n`);
console.log('| run | deliveries measured | p50 | p99 | stalled sockets cut (4008) |\n|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.run} | ${r.deliveries} | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms | ${r.stalledCut} |`);
console.log(`\nothers' p99 with stalled readers / without: ${ratio.toFixed(2)} (goal ≤ 1.10)`);
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `slow-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ ...ctx, results, ratio }, null, 2));
