/**
 * Revocation figures (issue 18; docs/social.md, "Revocation"): real auth and two social nodes as processes on
 * the same PostgreSQL and Redis (auth publishes `auth:revocation`, both social nodes subscribe).
 *
 * - `revoke-close`: a guest with one socket on each social node signs out (`POST /logout`); the figure is the
 *   time from sending the logout to each socket's close (4002), over both nodes, p50/p99, one revocation at a
 *   time (latency, not capacity). It includes the logout request itself (its transaction), so it overstates the
 *   way from auth's commit to the sockets.
 * - `deny-check`: `GET /v1/me` with a bearer token, 32 connections, against a node with
 *   `Social:Auth:HighSecurity` on (one state-store read per request) and a node with it off, in alternating
 *   slices; value = on / off.
 */
import path from 'node:path';
import WebSocket from 'ws';
import { freePort, percentile, request, runLoad, startProcess, type Proc } from './lib.js';
import type { Figure } from './lib.js';

type Out = Omit<Figure, 'ratio' | 'pass'> & { ratio?: number | null; pass?: boolean | null };

export interface RevocationContext {
  want(id: string): boolean;
  common: Record<string, string>;
  authEnv: Record<string, string>;
  dataDir: string;
  procs: Proc[];
  log(m: string): void;
  alternating<R extends { requests: number; ok?: number }>(
    service: (slice: number, sec: number) => Promise<R>,
    baseline: (slice: number, sec: number) => Promise<R>,
  ): Promise<{ service: { perSec: number; slices: R[] }; baseline: { perSec: number; slices: R[] } }>;
}

const ITERATIONS = Number(process.env.BENCH_REVOKE_ITERATIONS ?? 200);
const CONNECTIONS = Number(process.env.BENCH_DENY_CONNECTIONS ?? 32);

async function startAuth(ctx: RevocationContext): Promise<{ url: string; caFile: string }> {
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  ctx.procs.push(await startProcess('auth', 'packages/auth/src/main.ts', { ...ctx.authEnv, AUTH_PORT: String(port) }, `${url}/readyz`));
  return { url, caFile: path.join(ctx.authEnv.DATA_DIR, 'ca', 'ca-cert.pem') };
}

async function startSocial(ctx: RevocationContext, name: string, auth: { url: string; caFile: string }, highSecurity: boolean): Promise<string> {
  const port = await freePort();
  const proc = await startProcess(
    name,
    'packages/social/src/main.ts',
    {
      ...ctx.common,
      DATA_DIR: path.join(ctx.dataDir, name),
      SOCIAL__LISTEN__PORT: String(port),
      SOCIAL__TLS__MODE: 'http',
      SOCIAL__AUTH__JWKSURL: `${auth.url}/.well-known/jwks.json`,
      SOCIAL__AUTH__CAFILE: auth.caFile,
      SOCIAL__AUTH__ISSUER: ctx.authEnv.AUTH_ISSUER,
      SOCIAL__AUTH__HIGHSECURITY: String(highSecurity),
      SOCIAL__REGISTRY__URL: 'http://127.0.0.1:9',
    },
    `http://127.0.0.1:${port}/readyz`,
  );
  ctx.procs.push(proc);
  return `127.0.0.1:${port}`;
}

let devices = 0;
async function guestToken(authUrl: string): Promise<string> {
  const g = await request(`${authUrl}/guest`, { body: { device_fingerprint: `revoke-bench-${process.pid}-${devices++}` } });
  if (g.status !== 200) throw new Error(`guest: ${g.status} ${JSON.stringify(g.body)}`);
  return g.body.access_token;
}

type Closed = Promise<{ at: number; code: number }>;

/** A socket set up on a node (its heartbeat answered), with its close time and code to come. */
function openSocket(host: string, token: string): Promise<{ closed: Closed }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${host}/v1/ws`, { headers: { authorization: `Bearer ${token}` } });
    const closed: Closed = new Promise((r) => ws.on('close', (code) => r({ at: Date.now(), code })));
    ws.once('open', () => ws.send(JSON.stringify({ type: 'heartbeat' })));
    ws.on('message', (raw) => {
      if (JSON.parse(raw.toString()).type === 'heartbeatAck') resolve({ closed });
    });
    ws.once('error', reject);
    void closed.then((c) => reject(new Error(`socket closed before set up: ${c.code}`)));
  });
}

/** The close, or a failure after 10 s (a revocation that never reached the socket). */
const closeOf = (closed: Closed) =>
  Promise.race([closed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('socket not closed 10 s after the logout')), 10_000).unref())]);

async function closeLatency(authUrl: string, nodes: string[]): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const token = await guestToken(authUrl);
    const closes = await Promise.all(nodes.map((n) => openSocket(n, token)));
    const t0 = Date.now();
    const out = await request(`${authUrl}/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    if (out.status !== 204) throw new Error(`logout: ${out.status}`);
    for (const c of await Promise.all(closes.map((s) => closeOf(s.closed)))) {
      if (c.code !== 4002) throw new Error(`closed with ${c.code}, not 4002`);
      samples.push(c.at - t0);
    }
  }
  return samples.sort((x, y) => x - y);
}

export async function revocationFigures(ctx: RevocationContext): Promise<Out[]> {
  const out: Out[] = [];
  const auth = await startAuth(ctx);
  const plain = await startSocial(ctx, 'social-a', auth, false);
  const secure = await startSocial(ctx, 'social-b', auth, true);
  ctx.log(`revocation: auth ${auth.url}, social ${plain} (default) and ${secure} (high security)`);
  if (ctx.want('revoke-close')) {
    const s = await closeLatency(auth.url, [plain, secure]);
    const p99 = percentile(s, 0.99);
    out.push({
      id: 'revoke-close',
      figure: 'revocation → socket close, two social nodes (POST /logout sent → close 4002), p99',
      value: p99,
      unit: 'ms',
      baselineName: '—',
      baseline: null,
      goal: 'p99 < 250 ms',
      pass: p99 !== null && p99 < 250,
      note: `p50 ${percentile(s, 0.5)} ms, max ${s.at(-1)} ms over ${s.length} closes (${ITERATIONS} logouts × 2 nodes)`,
      extra: { samples: s.length, p50: percentile(s, 0.5), p90: percentile(s, 0.9), p99, max: s.at(-1) },
    });
  }
  if (ctx.want('deny-check')) {
    const token = await guestToken(auth.url);
    const load = (host: string, sec: number) =>
      runLoad('http.ts', { url: `http://${host}/v1/me`, connections: CONNECTIONS, durationSec: sec, scenario: 'constant', method: 'GET', headers: { authorization: `Bearer ${token}` } });
    // Both nodes made the profile already (first use), so the slices measure the steady state.
    for (const host of [plain, secure]) await request(`http://${host}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    const { service, baseline } = await ctx.alternating(
      (_, sec) => load(secure, sec),
      (_, sec) => load(plain, sec),
    );
    const ratio = service.perSec / baseline.perSec;
    out.push({
      id: 'deny-check',
      figure: 'social GET /v1/me / s with Social:Auth:HighSecurity (revocation record read per request)',
      value: service.perSec,
      unit: '/s',
      baselineName: `the same node without it (${CONNECTIONS} connections)`,
      baseline: baseline.perSec,
      goal: '≥ 90% of baseline',
      pass: ratio >= 0.9,
      extra: { service, baseline, connections: CONNECTIONS },
    });
  }
  return out;
}
