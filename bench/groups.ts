/**
 * `npm run bench -- groups` (not in `npm test`; issue 31 item 9), on one social node process against PostgreSQL and
 * a private Redis:
 * (1) Group chat to a group of BENCH_GROUP_MEMBERS (500), beside party chat to the largest party (100) in the same
 *     run: closed loop (the next message once every member's socket has the last) for deliveries/s, then open loop
 *     at the same delivery rate for both (BENCH_GROUP_DELIVERIES_PER_SEC, 10,000/s: 20 messages/s to 500, 100/s to
 *     100) for the send → last-recipient p50 and p99.
 * (2) Finding groups at BENCH_GROUPS (100,000) groups in the game, written to the table directly: name-prefix
 *     searches, tag searches, the first page, a keyset page further on, and the member pages of the 500-member group,
 *     each timed through HTTP one request at a time (p50, p99), with the plan PostgreSQL chose (EXPLAIN ANALYZE of
 *     the service's own statement, captured from its query functions).
 * Prints tables and the plans; writes bench/results/groups-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Queryable } from '@platform/kit';
import { memberPage, searchGroups } from '../packages/social/src/queries/groups.js';
import { quantile, runContext, sleep, startSocialBench, type BenchSocket, type Player, type SocialBench } from './social-node.js';

const MEMBERS = Number(process.env.BENCH_GROUP_MEMBERS ?? 500);
const PARTY = 100;
const GROUPS = Number(process.env.BENCH_GROUPS ?? 100_000);
const RATE = Number(process.env.BENCH_GROUP_DELIVERIES_PER_SEC ?? 10_000);
const DURATION_MS = Number(process.env.BENCH_DURATION_SEC ?? 10) * 1000;
const log = (m: string) => process.stderr.write(`[groups] ${m}\n`);

interface Channel {
  label: string;
  size: number;
  send(i: number): void;
  /** Resolves when every member's socket has message i. */
  wait(i: number): Promise<void>;
  sockets: BenchSocket[];
}

/** Counts the sockets that received each message; `wait(i)` resolves when all `n` did. */
function arrivals(n: number) {
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
    wait: (i: number) => new Promise<void>((r) => waiters.set(i, r)),
  };
}

async function channel(bench: SocialBench, label: string, kind: 'party' | 'group', members: Player[], id: string): Promise<Channel> {
  const counter = arrivals(members.length);
  const sockets: BenchSocket[] = [];
  for (const m of members) {
    sockets.push(
      await bench.connect(m, {
        onFrame: (type, data) => {
          if (type === 'chatMessage' && data.channel === kind && data.body.startsWith('r')) counter.seen(Number(data.body.slice(1)));
        },
      }),
    );
  }
  const sender = sockets[0]!;
  return { label, size: members.length, sockets, wait: counter.wait, send: (i) => sender.ws.send(JSON.stringify({ type: 'chatSend', channel: kind, channelId: id, body: `r${i}` })) };
}

async function closedLoop(c: Channel, from: number) {
  const latencies: number[] = [];
  const t0 = performance.now();
  let i = from;
  while (performance.now() - t0 < DURATION_MS) {
    const start = performance.now();
    const done = c.wait(i);
    c.send(i++);
    await done;
    latencies.push(performance.now() - start);
  }
  const ms = performance.now() - t0;
  return { next: i, deliveriesPerSec: Math.round(((i - from) * c.size * 1000) / ms), p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99) };
}

/** Sends at a fixed rate (messages/s = RATE / size) whatever the arrivals; the time from each send to its last recipient. */
async function openLoop(c: Channel, from: number) {
  const perSec = RATE / c.size;
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  let i = from;
  while (performance.now() - t0 < DURATION_MS) {
    const due = t0 + ((i - from) * 1000) / perSec;
    if (due > performance.now()) await sleep(due - performance.now());
    const start = performance.now();
    pending.push(c.wait(i).then(() => void latencies.push(performance.now() - start)));
    c.send(i++);
  }
  await Promise.race([Promise.all(pending), sleep(10_000)]);
  return { next: i, sent: i - from, delivered: latencies.length, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99) };
}

async function chatFigures(bench: SocialBench): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  log(`${MEMBERS} group members, ${PARTY} party members`);
  const groupMembers = await bench.players(MEMBERS, 'gm');
  const created = await bench.social.client(0).post('/v1/groups', { name: 'Bench Guild', tag: 'BG', joinPolicy: 'open', memberLimit: MEMBERS }, { headers: groupMembers[0]!.headers });
  if (created.status !== 201) throw new Error(`group: ${created.status} ${JSON.stringify(created.body)}`);
  const groupId = created.body.groupId as string;
  for (const m of groupMembers.slice(1)) {
    const j = await bench.social.client(0).post(`/v1/groups/${groupId}/join`, {}, { headers: m.headers });
    if (j.status !== 200) throw new Error(`join: ${j.status} ${JSON.stringify(j.body)}`);
  }
  const partyMembers = await bench.players(PARTY, 'pm');
  const partyId = await bench.party(partyMembers);
  const channels = [await channel(bench, `party chat, party of ${PARTY}`, 'party', partyMembers, partyId), await channel(bench, `group chat, group of ${MEMBERS}`, 'group', groupMembers, groupId)];
  let next = 0;
  for (const c of channels) {
    const closed = await closedLoop(c, next);
    await sleep(1000);
    const open = await openLoop(c, closed.next);
    next = open.next;
    out.push({ figure: c.label, closedDeliveriesPerSec: closed.deliveriesPerSec, closedP50Ms: closed.p50Ms, closedP99Ms: closed.p99Ms, openRate: RATE, openSent: open.sent, openDelivered: open.delivered, openP50Ms: open.p50Ms, openP99Ms: open.p99Ms });
    log(JSON.stringify(out.at(-1)));
    for (const s of c.sockets) s.ws.close();
    await sleep(1000);
  }
  return out.map((r) => ({ ...r, groupId }));
}

/** The statement a query function sends, with its parameters (nothing is run). */
async function statementOf(run: (db: Queryable) => Promise<unknown>): Promise<{ text: string; values: unknown[] }> {
  let captured: { text: string; values: unknown[] } | undefined;
  const db = { query: async (text: string, values: unknown[] = []) => ((captured = { text, values }), { rows: [], rowCount: 0 }) } as unknown as Queryable;
  await run(db);
  return captured!;
}

async function timed(bench: SocialBench, who: Player, urls: string[]): Promise<{ p50Ms: number; p99Ms: number; n: number }> {
  const http = bench.social.client(0);
  const latencies: number[] = [];
  for (const url of urls) {
    const t = performance.now();
    const r = await http.get(url, { headers: who.headers });
    latencies.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return { p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), n: urls.length };
}

async function listingFigures(bench: SocialBench, groupId: string): Promise<{ results: Record<string, unknown>[]; plans: Record<string, string> }> {
  const { db, schema } = bench;
  log(`writing ${GROUPS} groups`);
  // Names spread over the alphabet like real ones: a word, a number; tags from a few hundred.
  await db.query(
    `INSERT INTO ${schema}.groups (game_id, name, name_key, tag, description, language, join_policy, member_limit, member_count)
     SELECT '', n, lower(n), 'T' || (i % 300), 'A bench group', (ARRAY['en','de','fr','pt-BR','ja'])[1 + i % 5],
            (ARRAY['open','request','invite'])[1 + i % 3], 100, 1
     FROM (SELECT i, (ARRAY['Iron','Silver','Shadow','Dawn','Night','Storm','Frost','Ember','Stone','Wild'])[1 + i % 10]
                  || ' ' || (ARRAY['Wolves','Knights','Riders','Guard','Legion','Order','Clan','Pact'])[1 + (i / 10) % 8] || ' ' || i AS n
           FROM generate_series(1, $1::int) AS s(i)) AS g`,
    [GROUPS],
  );
  await db.query(`ANALYZE ${schema}.groups; ANALYZE ${schema}.group_members`);
  const [reader] = await bench.players(1, 'reader');
  const http = bench.social.client(0);
  const firstPage = await http.get('/v1/groups?limit=20', { headers: reader!.headers });
  const cursor = firstPage.body.nextCursor as string;
  const prefixes = ['iron', 'silver w', 'shadow k', 'dawn r', 'night g', 'storm l', 'frost o', 'ember c', 'stone p', 'wild w', 'iron wolves 1', 'zz'];
  const rounds = 300;
  const pick = <T>(xs: T[], i: number) => xs[i % xs.length]!;
  const members = await http.get(`/v1/groups/${groupId}/members?limit=50`, { headers: reader!.headers });
  const memberCursor = members.body.nextCursor as string | null;
  const results = [
    { figure: 'baseline: GET /v1/me (the same caller, an authenticated read)', ...(await timed(bench, reader!, Array.from({ length: rounds }, () => '/v1/me'))) },
    { figure: 'search by name prefix (20 a page)', ...(await timed(bench, reader!, Array.from({ length: rounds }, (_, i) => `/v1/groups?limit=20&prefix=${encodeURIComponent(pick(prefixes, i))}`))) },
    { figure: 'search by tag (20 a page)', ...(await timed(bench, reader!, Array.from({ length: rounds }, (_, i) => `/v1/groups?limit=20&tag=T${i % 300}`))) },
    { figure: 'open groups by language (20 a page)', ...(await timed(bench, reader!, Array.from({ length: rounds }, (_, i) => `/v1/groups?limit=20&open=true&language=${pick(['en', 'de', 'ja'], i)}`))) },
    { figure: 'open groups only (20 a page)', ...(await timed(bench, reader!, Array.from({ length: rounds }, () => '/v1/groups?limit=20&open=true'))) },
    { figure: 'first page, then the next by cursor', ...(await timed(bench, reader!, Array.from({ length: rounds }, (_, i) => (i % 2 ? `/v1/groups?limit=20&cursor=${encodeURIComponent(cursor)}` : '/v1/groups?limit=20')))) },
    { figure: `member page of the ${MEMBERS}-member group (50), first and next`, ...(await timed(bench, reader!, Array.from({ length: rounds }, (_, i) => `/v1/groups/${groupId}/members?limit=50${i % 2 && memberCursor ? `&cursor=${encodeURIComponent(memberCursor)}` : ''}`))) },
  ];
  const explain = async (run: (q: Queryable) => Promise<unknown>) => {
    const s = await statementOf(run);
    await db.query(`SET search_path TO ${schema}`);
    const r = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${s.text}`, s.values);
    await db.query('RESET search_path');
    return r.rows.map((x) => x['QUERY PLAN']).join('\n');
  };
  const readerId = (await db.query<{ id: string }>(`SELECT id FROM ${schema}.users WHERE account_id = $1`, [reader!.id])).rows[0]!.id;
  const plans = {
    prefix: await explain((q) => searchGroups(q, { gameId: '', prefix: 'shadow k', openOnly: false, limit: 21 })),
    tag: await explain((q) => searchGroups(q, { gameId: '', tag: 'T7', openOnly: false, limit: 21 })),
    openLanguage: await explain((q) => searchGroups(q, { gameId: '', language: 'ja', openOnly: true, limit: 21 })),
    openOnly: await explain((q) => searchGroups(q, { gameId: '', openOnly: true, afterKey: 'night', limit: 21 })),
    members: await explain((q) => memberPage(q, groupId, readerId, undefined, 51)),
  };
  return { results, plans };
}

const bench = await startSocialBench({
  SOCIAL_PARTIES_MAX_SIZE_LIMIT: String(PARTY),
  SOCIAL_GROUPS_DEFAULT_MEMBER_LIMIT: String(MEMBERS),
  SOCIAL_GROUPS_MAX_MEMBER_LIMIT: String(Math.max(MEMBERS, 100)),
  SOCIAL_GROUPS_CREATED_PER_DAY: '1000',
  SOCIAL_RATE_GROUP_SEARCHES_PER_MINUTE: '100000',
  SOCIAL_REALTIME_FRAMES_PER_SECOND: '10000',
});
let chat: Record<string, unknown>[] = [];
let listing: Awaited<ReturnType<typeof listingFigures>> | undefined;
try {
  chat = await chatFigures(bench);
  listing = await listingFigures(bench, chat[0]!.groupId as string);
} finally {
  await bench.close();
}
const ctx = runContext();
console.log(`\nGroups @ ${ctx.commit}, load at the end ${ctx.load}; ${DURATION_MS / 1000} s per loop; open loop at ${RATE} deliveries/s\n`);
console.log('| channel | closed loop deliveries/s | closed p50 | closed p99 | open loop sent / delivered | open p50 | open p99 |\n|---|---|---|---|---|---|---|');
for (const r of chat as { figure: string; closedDeliveriesPerSec: number; closedP50Ms: number; closedP99Ms: number; openSent: number; openDelivered: number; openP50Ms: number; openP99Ms: number }[]) {
  console.log(`| ${r.figure} | ${r.closedDeliveriesPerSec} | ${r.closedP50Ms.toFixed(2)} ms | ${r.closedP99Ms.toFixed(2)} ms | ${r.openSent} / ${r.openDelivered} | ${r.openP50Ms.toFixed(2)} ms | ${r.openP99Ms.toFixed(2)} ms |`);
}
console.log(`\n| at ${GROUPS} groups, through HTTP one at a time | requests | p50 | p99 |\n|---|---|---|---|`);
for (const r of (listing?.results ?? []) as { figure: string; n: number; p50Ms: number; p99Ms: number }[]) console.log(`| ${r.figure} | ${r.n} | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms |`);
for (const [name, plan] of Object.entries(listing?.plans ?? {})) console.log(`\n${name}:\n${plan}`);
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `groups-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ ...ctx, chat, listing }, null, 2));
