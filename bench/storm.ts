/**
 * `npm run bench -- storm` (not in `npm test`; issue 29 item 2): one social node process (private Redis, its own
 * schema) holds BENCH_STORM_CLIENTS (5,000) SDK realtime clients (@platform/client, its backoff and jitter; API-key
 * mode) and BENCH_STORM_PROBES (20) probe sockets that send a heartbeat every 100 ms and time its ack. The node is
 * restarted (SIGTERM, then a new process); every client reconnects at once. Reported: connects set up per second
 * (peak and mean), time until every client was set up again (caughtUp or resync), upgrades shed (503 server_busy),
 * refusals and closes by code, and the probes' heartbeat p99 per second from the restart, against the p99 before it:
 * how long until already-connected sockets are served as before. Prints a table; writes bench/results/storm-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { runReconnectStorm, sleep } from '@platform/cluster';
import { quantile, runContext, startSocialBench } from './social-node.js';
import { scrapeMetrics } from '@platform/kit/testing';

const CLIENTS = Number(process.env.BENCH_STORM_CLIENTS ?? 5000);
const PROBES = Number(process.env.BENCH_STORM_PROBES ?? 20);
const log = (m: string) => process.stderr.write(`[storm] ${m}\n`);


/** A probe: its own socket, a heartbeat every 100 ms, the ack's round trip recorded with its send time; reconnects. */
function startProbe(url: string, headers: Record<string, string>, samples: { at: number; ms: number }[]): () => void {
  let stopped = false;
  let ws: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  const open = () => {
    if (stopped) return;
    const s = new WebSocket(url, { headers });
    ws = s;
    let sentAt = 0;
    s.on('message', (raw) => {
      const f = JSON.parse(raw.toString());
      if (f.type === 'heartbeatAck' && sentAt) {
        samples.push({ at: sentAt, ms: performance.now() - sentAtPerf });
        sentAt = 0;
      }
    });
    let sentAtPerf = 0;
    s.on('open', () => {
      timer = setInterval(() => {
        if (s.readyState !== WebSocket.OPEN || sentAt) return;
        sentAt = Date.now();
        sentAtPerf = performance.now();
        s.send('{"type":"heartbeat"}');
      }, 100);
    });
    s.on('error', () => {});
    s.on('close', () => {
      if (timer) clearInterval(timer);
      setTimeout(open, 200);
    });
  };
  open();
  return () => {
    stopped = true;
    if (timer) clearInterval(timer);
    ws?.close();
  };
}

const bench = await startSocialBench({ SOCIAL_REALTIME_MAX_SOCKETS_PER_USER: '1000' });
const social = bench.social;
const node = social.nodes[0]!;
const url = `ws://127.0.0.1:${node.port}/v1/ws`;
const stops: (() => void)[] = [];
try {
  log(`${CLIENTS} clients, ${PROBES} probes on one node`);
  const ids = Array.from({ length: CLIENTS }, () => randomUUID());
  const http = social.client(0);
  for (let i = 0; i < ids.length; i += 50) await Promise.all(ids.slice(i, i + 50).map((id) => http.get('/v1/me', { headers: social.headers(id) })));
  const storm = await runReconnectStorm({ url, apiKey: social.apiKey, userIds: ids, openConcurrency: 100, reconnect: { initialDelayMs: 500, maxDelayMs: 30_000 } });
  log('all connected');
  const samples: { at: number; ms: number }[] = [];
  for (let i = 0; i < PROBES; i++) stops.push(startProbe(url, social.headers(randomUUID()), samples));
  await sleep(10_000);
  const before = samples.filter((s) => s.at > Date.now() - 8000).map((s) => s.ms);
  const p99Before = quantile(before, 0.99);
  log(`probe p99 before: ${p99Before.toFixed(2)} ms (${before.length} samples)`);

  const stopAt = Date.now();
  await node.stop();
  const restartedAt = Date.now();
  await node.start();
  const upAt = Date.now();
  log(`node down ${restartedAt - stopAt} ms (drain), back up after ${upAt - restartedAt} ms`);
  const allMs = await storm.allSetUpAfter(restartedAt, 300_000);
  log(`all set up again ${allMs} ms after the restart began`);
  await sleep(12_000);
  const m = await scrapeMetrics(social.metricsUrls[0]!);
  const shed = m.value('social_ws_upgrades_shed_total') ?? 0;

  // Setups per second after the restart (first setup of each client after it).
  const firstSetups = storm.records.map((r) => r.lastSetupAt).filter((t) => t >= restartedAt);
  const perSecond = new Map<number, number>();
  for (const t of firstSetups) perSecond.set(Math.floor((t - upAt) / 1000), (perSecond.get(Math.floor((t - upAt) / 1000)) ?? 0) + 1);
  const peak = Math.max(...perSecond.values());
  const spanSec = Math.max(1, (Math.max(...firstSetups) - Math.min(...firstSetups)) / 1000);
  // Probe p99 per second from the node being up again; recovered = the first second from which every later second's p99 is ≤ 2× before.
  const windows: { sec: number; p99: number; n: number }[] = [];
  for (let sec = 0; sec < 20; sec++) {
    const xs = samples.filter((s) => s.at >= upAt + sec * 1000 && s.at < upAt + (sec + 1) * 1000).map((s) => s.ms);
    windows.push({ sec, p99: quantile(xs, 0.99), n: xs.length });
  }
  const bound = Math.max(2 * p99Before, p99Before + 2);
  let recoveredSec = windows.length;
  for (let i = windows.length - 1; i >= 0; i--) {
    if (windows[i]!.n && windows[i]!.p99 <= bound) recoveredSec = i;
    else break;
  }
  const closes = new Map<string, number>();
  for (const r of storm.records) for (const c of r.closes) closes.set(c, (closes.get(c) ?? 0) + 1);
  const setups = new Map<string, number>();
  for (const r of storm.records) {
    const last = r.setups.at(-1) ?? 'none';
    setups.set(last, (setups.get(last) ?? 0) + 1);
  }
  const { commit, load } = runContext();
  const result = {
    at: new Date().toISOString(),
    commit,
    load,
    clients: CLIENTS,
    probes: PROBES,
    nodeStartMs: upAt - restartedAt,
    allSetUpMs: allMs,
    setupsPerSecondPeak: peak,
    setupsPerSecondMean: Math.round(firstSetups.length / spanSec),
    shed,
    closes: Object.fromEntries(closes),
    lastSetup: Object.fromEntries(setups),
    probeP99BeforeMs: p99Before,
    probeWindows: windows,
    recoveredSecondsAfterUp: recoveredSec,
  };
  console.log(`\nReconnect storm @ ${commit}, load ${load}: ${CLIENTS} SDK clients on one node restarted\n`);
  console.log('| figure | value |\n|---|---|');
  console.log(`| node process start (not in the figures below) | ${result.nodeStartMs} ms |`);
  console.log(`| every client set up again (caughtUp/resync), from the restart | ${allMs} ms (${allMs - result.nodeStartMs} ms after the node was up) |`);
  console.log(`| connects set up per second: peak / mean | ${peak}/s / ${result.setupsPerSecondMean}/s |`);
  console.log(`| upgrades shed (503 server_busy) | ${shed} |`);
  console.log(`| last setup per client | ${[...setups].map(([k, v]) => `${k} ${v}`).join(', ')} |`);
  console.log(`| closes seen by clients | ${[...closes].map(([k, v]) => `${k} ${v}`).join(', ')} |`);
  console.log(`| probe heartbeat p99 before | ${p99Before.toFixed(2)} ms |`);
  console.log(`| probe p99 per second after up | ${windows.map((w) => (w.n ? w.p99.toFixed(1) : '–')).join(' ')} ms |`);
  console.log(`| recovered (p99 ≤ max(2× before, before + 2 ms) from then on) | ${recoveredSec} s after the node was up |`);
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `storm-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
  storm.closeAll();
} finally {
  for (const s of stops) s();
  await bench.close();
}
