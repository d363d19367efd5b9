/**
 * WebSocket clients in one process, driven by the bench over IPC.
 * mode idle: opens `count` sockets (source addresses rotated over `sources`,
 *   so one (source, destination) pair never runs out of ephemeral ports),
 *   reports { opened, failed }, holds them until told { stop: true }.
 * mode fanout: per group, `receivers` receiver sockets then one sender;
 *   reports { ready }, on { go: true } each sender keeps `window` frames in
 *   flight for durationSec (next frame when the previous is acked); receivers
 *   count frames and the send→receive latency carried in the frame (ts).
 *   Reports { deliveries, sent, latencies (sampled) }.
 * URLs: `url` with {g} and {r} replaced; `tokens` (optional) are sent as
 * Authorization: Bearer, one per socket, in order.
 */
import { WebSocket } from 'ws';

interface Args {
  mode: 'idle' | 'fanout';
  url: string;
  sources: string[];
  count?: number;
  groups?: [number, number];
  receivers?: number;
  window?: number;
  durationSec?: number;
  inFlight?: number;
  tokens?: string[];
  /** fanout frames from a sender: a JSON text; "{ts}" is replaced by the send time. */
  frame?: string;
}

const a: Args = JSON.parse(process.argv[2]);
const send = (m: unknown) => process.send!(m);
const now = () => performance.timeOrigin + performance.now();
let opened = 0;
let failed = 0;
let tokenIndex = 0;

function open(url: string, i: number): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const token = a.tokens?.[tokenIndex++];
    const ws = new WebSocket(url, {
      localAddress: a.sources[i % a.sources.length],
      perMessageDeflate: false,
      headers: token ? { authorization: `Bearer ${token}` } : undefined,
    });
    ws.once('open', () => {
      opened++;
      resolve(ws);
    });
    ws.once('error', () => {
      failed++;
      resolve(undefined);
    });
  });
}

/** Opens sockets `inFlight` at a time. */
async function openMany(urls: string[]): Promise<(WebSocket | undefined)[]> {
  const out: (WebSocket | undefined)[] = new Array(urls.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(a.inFlight ?? 200, urls.length) }, async () => {
      while (next < urls.length) {
        const i = next++;
        out[i] = await open(urls[i], i);
      }
    }),
  );
  return out;
}

const url = (g: number, r: string) => a.url.replace('{g}', String(g)).replace('{r}', r);
const stop = new Promise<void>((resolve) => process.on('message', (m: any) => m?.stop && resolve()));
const go = new Promise<void>((resolve) => process.on('message', (m: any) => m?.go && resolve()));

if (a.mode === 'idle') {
  const sockets = await openMany(Array.from({ length: a.count! }, (_, i) => url(i, 'r')));
  send({ opened, failed });
  await stop;
  for (const s of sockets) s?.terminate();
} else {
  const [g0, g1] = a.groups!;
  const receiverUrls: string[] = [];
  for (let g = g0; g < g1; g++) for (let i = 0; i < a.receivers!; i++) receiverUrls.push(url(g, 'r'));
  const receivers = await openMany(receiverUrls);
  const senders = await openMany(Array.from({ length: g1 - g0 }, (_, i) => url(g0 + i, 's')));
  let deliveries = 0;
  let measuring = false;
  const latencies: number[] = [];
  let sample = 0;
  for (const r of receivers) {
    r?.on('message', (data) => {
      if (!measuring) return;
      deliveries++;
      // Every 7th frame is decoded for its latency: enough samples, less client CPU.
      if (++sample % 7 === 0) {
        const m = /"ts":([\d.]+)/.exec(data.toString());
        if (m) latencies.push(now() - Number(m[1]));
      }
    });
  }
  send({ ready: true, opened, failed });
  await go;
  measuring = true;
  let sent = 0;
  const end = now() + a.durationSec! * 1000;
  const frame = a.frame ?? '{"type":"presence","ts":{ts},"data":{"userId":"00000000-0000-4000-8000-000000000000","status":"online","game":"bench"}}';
  await Promise.all(
    senders.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (!s) return resolve();
          let inFlight = 0;
          const fire = () => {
            while (inFlight < (a.window ?? 2) && now() < end) {
              inFlight++;
              sent++;
              s.send(frame.replace('{ts}', now().toFixed(3)));
            }
            if (inFlight === 0) resolve();
          };
          s.on('message', () => {
            inFlight--;
            fire();
          });
          fire();
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 300)); // late deliveries of the last frames
  measuring = false;
  send({ deliveries, sent, latencies });
  await stop;
  for (const s of [...receivers, ...senders]) s?.terminate();
}
process.exit(0);
