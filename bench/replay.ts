/**
 * The replay log's figures (docs/social-realtime.md, "Resume and replay"): party-chat and presence fan-out on a
 * social node with the log on (the default) against a node with it off (`SOCIAL__REALTIME__REPLAYENTRIES=0`,
 * today's delivery), measured in alternating slices of the same run (off, on, on, off); and the time from a
 * reconnect to its `caughtUp` frame when 500 events were missed, against a fresh connect (nothing replayed).
 * Both nodes share a schema of their own (`social_replay`: the socket figures' users are in parties already)
 * and Redis.
 */
import { WebSocket } from 'ws';
import { percentile, request, sleep } from './lib.js';
import { API_KEY, FANOUT_GROUPS, fanout, friendships, ms, parties, startSocialNode, type FanoutResult, type Out, type SocketContext } from './sockets.js';

const SLICE_SEC = Number(process.env.BENCH_REPLAY_SLICE_SEC ?? 5);
const MISSED = 500;
const RECONNECTS = Number(process.env.BENCH_REPLAY_RECONNECTS ?? 100);
const as = (user: string) => ({ 'x-api-key': API_KEY, 'x-user-id': user });

type Node = Awaited<ReturnType<typeof startSocialNode>>;

/** Deliveries/s of both nodes over alternating slices: off, on, on, off. */
async function alternate(run: (n: Node) => Promise<FanoutResult>, off: Node, on: Node): Promise<{ off: number; on: number; slices: { node: string; perSec: number }[] }> {
  const slices: { node: string; perSec: number }[] = [];
  for (const [name, n] of [['off', off], ['on', on], ['on', on], ['off', off]] as const) slices.push({ node: name, perSec: (await run(n)).perSec });
  const mean = (k: string) => slices.filter((s) => s.node === k).reduce((a, s) => a + s.perSec, 0) / 2;
  return { off: mean('off'), on: mean('on'), slices };
}

/** Opens a socket of `user` and resolves with it and its frames once `until` matched a frame. */
function socket(url: string, user: string, until: (f: { type: string; id?: string }) => boolean): Promise<{ ws: WebSocket; frames: { type: string; id?: string }[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: as(user), perMessageDeflate: false });
    const frames: { type: string; id?: string }[] = [];
    ws.on('message', (raw) => {
      const f = JSON.parse(raw.toString()) as { type: string; id?: string };
      frames.push(f);
      if (until(f)) resolve({ ws, frames });
    });
    ws.once('error', reject);
  });
}

const closeSocket = (ws: WebSocket) => new Promise<void>((r) => (ws.once('close', () => r()), ws.close()));

/** Reconnect → caughtUp, with 500 missed events to replay (resume) and without (fresh), alternating. */
async function replayLatency(on: Node): Promise<{ resume: number[]; fresh: number[]; replayed: number }> {
  const party = await request(`${on.http}/v1/parties`, { body: { maxSize: 2, visibility: 'Public' }, headers: as('rp-sender') });
  if (party.status !== 201) throw new Error(`party: ${party.status} ${JSON.stringify(party.body)}`);
  const join = await request(`${on.http}/v1/parties/${party.body.partyId}/join`, { body: {}, headers: as('rp-member') });
  if (join.status !== 200) throw new Error(`join: ${join.status} ${JSON.stringify(join.body)}`);
  const first = await socket(on.ws, 'rp-member', (f) => f.type === 'caughtUp');
  const since = first.frames.find((f) => f.type === 'caughtUp')!.id!;
  await closeSocket(first.ws);
  // The member is away: the sender's 500 messages (each comes back to the sender once published).
  let copies = 0;
  const sender = await socket(on.ws, 'rp-sender', (f) => f.type === 'caughtUp');
  const all = new Promise<void>((r) => sender.ws.on('message', (raw) => String(raw).includes('"chatMessage"') && ++copies === MISSED && r()));
  for (let i = 0; i < MISSED; i++) sender.ws.send(JSON.stringify({ type: 'chatSend', channel: 'party', channelId: party.body.partyId, body: `missed ${i}` }));
  await all;
  await closeSocket(sender.ws);
  const resume: number[] = [];
  const fresh: number[] = [];
  let replayed = 0;
  for (let i = 0; i < RECONNECTS; i++) {
    for (const kind of i % 2 ? (['fresh', 'resume'] as const) : (['resume', 'fresh'] as const)) {
      const t0 = performance.now();
      const s = await socket(kind === 'resume' ? `${on.ws}?lastEventId=${since}` : on.ws, 'rp-member', (f) => f.type === 'caughtUp' || f.type === 'resync');
      (kind === 'resume' ? resume : fresh).push(performance.now() - t0);
      if (kind === 'resume') replayed = s.frames.filter((f) => f.type === 'chatMessage').length;
      await closeSocket(s.ws);
    }
  }
  return { resume: resume.sort((a, b) => a - b), fresh: fresh.sort((a, b) => a - b), replayed };
}

export async function replayFigures(ctx: SocketContext): Promise<Out[]> {
  const out: Out[] = [];
  const schema = { SOCIAL__DATABASE__SCHEMA: 'social_replay' };
  const off = await startSocialNode(ctx, 'social-log-off', { ...schema, SOCIAL__REALTIME__REPLAYENTRIES: '0' });
  const on = await startSocialNode(ctx, 'social-log-on', schema);
  try {
    const frames = await parties(off.http, FANOUT_GROUPS);
    const pids = [off.proc.pid, on.proc.pid];
    const common = { serverPids: pids, groups: [0, FANOUT_GROUPS] as [number, number], durationSec: SLICE_SEC, apiKey: API_KEY };
    const ratio = (on: number, off: number) => `${Math.round((100 * on) / off)}%`;
    if (ctx.want('ws-replay-fanout')) {
      const r = await alternate((n) => fanout({ ...common, url: n.ws, frames }), off, on);
      ctx.log(`party chat, replay log on ${Math.round(r.on)}/s, off ${Math.round(r.off)}/s (${ratio(r.on, r.off)})`);
      out.push({
        id: 'ws-replay-fanout',
        figure: `party-chat deliveries / s with event ids and the replay log on (${FANOUT_GROUPS} parties of 51, closed loop, slices off/on/on/off of ${SLICE_SEC} s)`,
        value: r.on,
        unit: '/s',
        baselineName: 'the same node with the replay log off (SOCIAL__REALTIME__REPLAYENTRIES=0)',
        baseline: r.off,
        goal: '≥ 90% of the log off',
        pass: r.on >= 0.9 * r.off,
        extra: r,
      });
    }
    if (ctx.want('ws-replay-presence')) {
      await friendships(off.http, FANOUT_GROUPS);
      const r = await alternate((n) => fanout({ ...common, url: n.ws, kind: 'presence' }), off, on);
      ctx.log(`presence, replay log on ${Math.round(r.on)}/s, off ${Math.round(r.off)}/s (${ratio(r.on, r.off)})`);
      out.push({
        id: 'ws-replay-presence',
        figure: `presence fan-out deliveries / s with event ids and the replay log on (${FANOUT_GROUPS} users × 50 friends, closed loop, slices off/on/on/off of ${SLICE_SEC} s)`,
        value: r.on,
        unit: '/s',
        baselineName: 'the same node with the replay log off',
        baseline: r.off,
        goal: '≥ 90% of the log off',
        pass: r.on >= 0.9 * r.off,
        extra: r,
      });
    }
    if (ctx.want('ws-replay')) {
      await sleep(500);
      const r = await replayLatency(on);
      const [p50, p99, f50, f99] = [percentile(r.resume, 0.5), percentile(r.resume, 0.99), percentile(r.fresh, 0.5), percentile(r.fresh, 0.99)];
      ctx.log(`reconnect → caughtUp: ${MISSED} replayed p50 ${ms(p50)} p99 ${ms(p99)}; fresh p50 ${ms(f50)} p99 ${ms(f99)}`);
      out.push({
        id: 'ws-replay',
        figure: `reconnect with ${MISSED} missed events (party chat) to its caughtUp frame, p99 over ${RECONNECTS} reconnects (${r.replayed} replayed each)`,
        value: p99,
        unit: 'ms',
        baselineName: `a fresh connect to its caughtUp, nothing replayed (p50 ${ms(f50)}), alternating`,
        baseline: f99,
        ratio: null,
        goal: 'p99 < 50 ms',
        pass: p99 !== null && p99 < 50 && r.replayed === MISSED,
        extra: { p50, p99, fresh: { p50: f50, p99: f99 }, replayed: r.replayed },
      });
    }
  } finally {
    await on.proc.stop();
    await off.proc.stop();
  }
  return out;
}
