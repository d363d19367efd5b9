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
  /** Per group (indexed by group number): a frame overriding `frame`. */
  frames?: Record<string, string>;
  /**
   * fanout kind: 'chat' (default: frames carry their send time in the body), or 'presence' (senders send
   * presenceUpdate frames alternating away/online; acked by presenceUpdated; receivers get
   * friendPresenceChanged, whose latency is taken from the sender's last send time).
   */
  kind?: 'chat' | 'presence';
  /** Senders connect here instead of `url` (cross-node delivery). */
  senderUrl?: string;
  /** API-key mode of the social service: X-Api-Key plus X-User-Id from userIdle / userFan. */
  apiKey?: string;
  /** fanout: open loop, each sender sends this many frames per second regardless of acks (latency at a fixed load). */
  ratePerSender?: number;
  /**
   * Open loop: the senders of all processes (groups 0 … totalGroups-1) start evenly spread over one
   * period, so arrivals are spread as independent clients' would be, not all in the same millisecond.
   */
  totalGroups?: number;
  /** idle mode: sockets are spread over this many user ids. */
  idleUsers?: number;
}

const a: Args = JSON.parse(process.argv[2]);
const send = (m: unknown) => process.send!(m);
const now = () => performance.timeOrigin + performance.now();
let opened = 0;
let failed = 0;
let tokenIndex = 0;

function open(url: string, i: number, user?: string): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const token = a.tokens?.[tokenIndex++];
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (a.apiKey && user) Object.assign(headers, { 'x-api-key': a.apiKey, 'x-user-id': user });
    const ws = new WebSocket(url, { localAddress: a.sources[i % a.sources.length], perMessageDeflate: false, headers });
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
async function openMany(urls: string[], users: (string | undefined)[] = []): Promise<(WebSocket | undefined)[]> {
  const out: (WebSocket | undefined)[] = new Array(urls.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(a.inFlight ?? 200, urls.length) }, async () => {
      while (next < urls.length) {
        const i = next++;
        out[i] = await open(urls[i], i, users[i]);
      }
    }),
  );
  return out;
}

const url = (g: number, r: string) => a.url.replace('{g}', String(g)).replace('{r}', r);
const stop = new Promise<void>((resolve) => process.on('message', (m: any) => m?.stop && resolve()));
const go = new Promise<void>((resolve) => process.on('message', (m: any) => m?.go && resolve()));

if (a.mode === 'idle') {
  const sockets = await openMany(
    Array.from({ length: a.count! }, (_, i) => url(i, 'r')),
    Array.from({ length: a.count! }, (_, i) => `idle-${i % (a.idleUsers ?? 1000)}`),
  );
  send({ opened, failed });
  await stop;
  for (const s of sockets) s?.terminate();
} else {
  const [g0, g1] = a.groups!;
  const receiverUrls: string[] = [];
  const receiverUsers: string[] = [];
  for (let g = g0; g < g1; g++) {
    for (let i = 1; i <= a.receivers!; i++) {
      receiverUrls.push(url(g, 'r'));
      receiverUsers.push(`fan-${g}-${i}`);
    }
  }
  const receivers = await openMany(receiverUrls, receiverUsers);
  const senderUrl = (g: number) => (a.senderUrl ?? a.url).replace('{g}', String(g)).replace('{r}', 's');
  const senders = await openMany(
    Array.from({ length: g1 - g0 }, (_, i) => senderUrl(g0 + i)),
    Array.from({ length: g1 - g0 }, (_, i) => `fan-${g0 + i}-0`),
  );
  let deliveries = 0;
  let measuring = false;
  const latencies: number[] = [];
  let sample = 0;
  // presence, closed loop: "<sender publicId>:<state>" (the publicId learnt from its ack) → when that frame was sent.
  const sentAtByPublicId = new Map<string, number>();
  // presence, open loop: every frame a sender sent, in order (several are in flight, and a presence frame
  // carries no send time). A receiver takes each delivery of a sender as the earliest send after the one its
  // previous delivery matched that has the delivered state: exact while the service delivers every update
  // in order, and never later than the true send if it coalesces two, so the latency is never understated.
  const openPresence = a.kind === 'presence' && a.ratePerSender !== undefined;
  const sendLogs = new Map<string, { states: string[]; at: number[] }>();
  for (const r of receivers) {
    const cursors = new Map<string, number>();
    r?.on('message', (data) => {
      if (!measuring) return;
      deliveries++;
      if (openPresence) {
        const m = /"publicId":"([^"]+)","state":"(\w+)"/.exec(data.toString());
        const log = m && sendLogs.get(m[1]);
        if (!m || !log) return;
        let i = cursors.get(m[1]) ?? 0;
        while (i < log.states.length && log.states[i] !== m[2]) i++;
        if (i === log.states.length) return;
        cursors.set(m[1], i + 1);
        if (++sample % 7 === 0) latencies.push(now() - log.at[i]);
        return;
      }
      // Every 7th frame is decoded for its latency: enough samples, less client CPU.
      if (++sample % 7 === 0) {
        if (a.kind === 'presence') {
          const m = /"publicId":"([^"]+)","state":"(\w+)"/.exec(data.toString());
          const at = m && sentAtByPublicId.get(`${m[1]}:${m[2]}`);
          if (at) latencies.push(now() - at);
        } else {
          const m = /ts\\?"?[:=]([\d.]+)/.exec(data.toString());
          if (m) latencies.push(now() - Number(m[1]));
        }
      }
    });
  }
  send({ ready: true, opened, failed });
  await go;
  measuring = true;
  let sent = 0;
  let errors = 0;
  const end = now() + a.durationSec! * 1000;
  const frame = a.frame ?? '{"type":"presence","ts":{ts},"data":{"userId":"00000000-0000-4000-8000-000000000000","status":"online","game":"bench"}}';
  await Promise.all(
    senders.map(
      (s, k) =>
        new Promise<void>((resolve) => {
          if (!s) return resolve();
          let flip = false;
          let publicId: string | undefined;
          let sentAt = 0;
          let state = 'online';
          const sendLog = { states: [] as string[], at: [] as number[] };
          const frameOf = () => {
            sentAt = now();
            state = (flip = !flip) ? 'away' : 'online';
            if (publicId) sentAtByPublicId.set(`${publicId}:${state}`, sentAt);
            if (openPresence) {
              sendLog.states.push(state);
              sendLog.at.push(sentAt);
            }
            if (a.kind === 'presence') return JSON.stringify({ type: 'presenceUpdate', state });
            return (a.frames?.[String(g0 + k)] ?? frame).replace('{ts}', sentAt.toFixed(3));
          };
          if (a.ratePerSender) {
            if (openPresence) {
              s.on('message', (data) => {
                const t = data.toString();
                if (!publicId && t.startsWith('{"type":"presenceUpdated"')) {
                  publicId = (JSON.parse(t) as { data: { publicId: string } }).data.publicId;
                  sendLogs.set(publicId, sendLog);
                }
                if (t.startsWith('{"type":"error"')) errors++;
              });
            }
            const period = 1000 / a.ratePerSender;
            const phase = (((g0 + k) % (a.totalGroups ?? g1)) / (a.totalGroups ?? g1)) * period;
            const tick = () => {
              if (now() >= end) return resolve();
              sent++;
              s.send(frameOf());
            };
            setTimeout(() => {
              tick();
              const timer = setInterval(() => {
                if (now() >= end) {
                  clearInterval(timer);
                  return resolve();
                }
                tick();
              }, period);
            }, phase);
            return;
          }
          let inFlight = 0;
          const fire = () => {
            while (inFlight < (a.window ?? 2) && now() < end) {
              inFlight++;
              sent++;
              s.send(frameOf());
            }
            if (inFlight === 0) resolve();
          };
          // The ack: the bare server's "a", or the service's own copy of the chat message (or an error frame).
          s.on('message', (data) => {
            const t = data.toString();
            if (a.kind === 'presence' && t.startsWith('{"type":"presenceUpdated"')) {
              if (!publicId) {
                publicId = (JSON.parse(t) as { data: { publicId: string } }).data.publicId;
                sentAtByPublicId.set(`${publicId}:${state}`, sentAt);
              }
            } else if (t !== 'a' && !t.startsWith('{"type":"chatMessage"') && !t.startsWith('{"type":"error"')) return;
            if (t.startsWith('{"type":"error"')) errors++;
            inFlight--;
            fire();
          });
          fire();
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 300)); // late deliveries of the last frames
  measuring = false;
  send({ deliveries, sent, errors, latencies });
  await stop;
  for (const s of [...receivers, ...senders]) s?.terminate();
}
process.exit(0);
