/**
 * `npm run bench [-- figure…]`: starts the services as separate processes
 * against real PostgreSQL and Redis (a fresh database and an empty Redis db
 * per run), drives them with load generators in other processes, measures
 * each figure next to its baseline, prints a table and writes
 * bench/results/<timestamp>.json. Not part of `npm test`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { BENCH, freePort, request, runLoad, startProcess, type Figure, type Proc } from './lib.js';
import { realtimePresent, socketFigures } from './sockets.js';
import { credentialFigures } from './credentials.js';
import { replayFigures } from './replay.js';
import { revocationFigures } from './revocation.js';
import { textFilterFigures } from './text-filter.js';

export type { Figure } from './lib.js';

// Runs with a harness of their own (private Redis deployments, node processes of @platform/cluster), one at a time:
// `npm run bench -- chaos` (10-minute chaos run), `sharded` (4 social nodes on a plain Redis and a Redis Cluster),
// `storm` (a reconnect storm), `soak` (10 minutes of churn), `large` (the largest party and friend list),
// `slow` (stalled readers among chatting sockets), `groups` (group chat to 500 members, finding groups at 100,000).
const HARNESSED: Record<string, string> = {
  chaos: './chaos.js',
  sharded: './sharded-fanout.js',
  storm: './storm.js',
  soak: './soak.js',
  large: './large.js',
  slow: './slow-consumers.js',
  groups: './groups.js',
};
const harnessed = HARNESSED[process.argv[2] ?? ''];
if (harnessed) {
  await import(harnessed);
  process.exit(0);
}

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONN = {
  refresh: Number(process.env.BENCH_REFRESH_CONNECTIONS ?? 32),
  guest: Number(process.env.BENCH_GUEST_CONNECTIONS ?? 32),
  login: Number(process.env.BENCH_LOGIN_CONNECTIONS ?? 8),
  validate: Number(process.env.BENCH_VALIDATE_CONNECTIONS ?? 64),
};
const wanted = new Set(process.argv.slice(2));
const want = (id: string) => wanted.size === 0 || wanted.has(id);
const figures: Figure[] = [];
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
/** PostgreSQL connections per service process and for the refresh baseline (the same pool on both sides). */
const DB_POOL = process.env.BENCH_DB_POOL_SIZE;
const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS ? process.env.BENCH_SERVICE_NODE_ARGS.split(' ') : [];

// ------------------------------------------------------------ isolated stores
const runId = `bench_${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${runId}`);
const dbUrl = new URL(DATABASE_URL);
dbUrl.pathname = `/${runId}`;
const benchDbUrl = dbUrl.toString();

/** An empty Redis logical db (8–15), emptied again at the end. */
const redisBase = new URL(REDIS_URL);
let redisDb = -1;
for (let n = 15; n >= 8 && redisDb < 0; n--) {
  const r = new Redis(`${redisBase.protocol}//${redisBase.host}/${n}`, { lazyConnect: true });
  await r.connect();
  if ((await r.dbsize()) === 0) redisDb = n;
  await r.quit();
}
if (redisDb < 0) throw new Error('no empty Redis db in 8–15');
const benchRedisUrl = `${redisBase.protocol}//${redisBase.host}/${redisDb}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
log(`run ${runId}: database ${runId}, Redis db ${redisDb}, data ${dataDir}`);

const procs: Proc[] = [];
async function cleanup() {
  for (const p of procs) await p.stop().catch(() => {});
  const r = new Redis(benchRedisUrl);
  await r.flushdb().catch(() => {});
  await r.quit().catch(() => {});
  await admin.query(`DROP DATABASE IF EXISTS ${runId} WITH (FORCE)`).catch((e) => log(`drop database: ${e.message}`));
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}

const common = { HOST: '127.0.0.1', DATABASE_URL: benchDbUrl, REDIS_URL: benchRedisUrl, LOG_LEVEL: 'warn', ...(DB_POOL ? { DATABASE_POOL_SIZE: DB_POOL } : {}) };
/** Rate limits raised out of the way: the bench measures throughput, not the limiter's refusals. */
const HIGH = '1000000000';
const authEnv = {
  ...common,
  DATA_DIR: path.join(dataDir, 'auth'),
  AUTH_MASTER_KEY: randomBytes(32).toString('hex'),
  AUTH_ISSUER: 'https://auth.bench',
  AUTH_RATE_GENERAL_PER_IP: HIGH,
  AUTH_RATE_LOGIN_PER_IP: HIGH,
  AUTH_RATE_LOGIN_PER_IP_EMAIL: HIGH,
  AUTH_RATE_GUEST_PER_DEVICE: HIGH,
  AUTH_RATE_GUEST_PER_IP: HIGH,
  // Every guest comes from one address: the guest abuse score would slow the network down (docs/auth.md).
  AUTH_GUEST_SCORE_SLOW: HIGH,
  AUTH_GUEST_SCORE_REFUSE: HIGH,
  AUTH_RATE_REFRESH_PER_IP: HIGH,
};

function figure(f: Omit<Figure, 'ratio' | 'pass'> & { ratio?: number | null }, pass: (f: Figure) => boolean): Figure {
  const full: Figure = { ...f, ratio: 'ratio' in f ? (f.ratio ?? null) : f.value !== null && f.baseline ? f.value / f.baseline : null, pass: null };
  full.pass = full.value === null ? null : pass(full);
  figures.push(full);
  log(`${f.figure}: ${fmt(full.value)} ${f.unit} (baseline ${fmt(full.baseline)}, ${full.ratio === null ? '—' : pct(full.ratio)}) ${full.pass === null ? 'pending' : full.pass ? 'PASS' : 'MISS'}`);
  return full;
}
const fmt = (v: number | null) => (v === null ? '—' : v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2));
const pct = (r: number) => `${Math.round(r * 100)}%`;

/**
 * Service and baseline measured in alternating slices (S B B S S B …, so a slow drift of the shared
 * machine weighs on both alike), each slice a fresh load process. Returns requests/s over all slices.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SLICE_SEC = Math.max(2, Math.round(DURATION / ROUNDS));
async function alternating<R extends { requests: number; ok?: number }>(
  service: (slice: number, sec: number) => Promise<R>,
  baseline: (slice: number, sec: number) => Promise<R>,
): Promise<{ service: { perSec: number; slices: R[] }; baseline: { perSec: number; slices: R[] } }> {
  const svc: R[] = [];
  const base: R[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      svc.push(await service(i, SLICE_SEC));
      base.push(await baseline(i, SLICE_SEC));
    } else {
      base.push(await baseline(i, SLICE_SEC));
      svc.push(await service(i, SLICE_SEC));
    }
  }
  const perSec = (rs: R[]) => rs.reduce((n, r) => n + (r.ok ?? r.requests), 0) / (rs.length * SLICE_SEC);
  return { service: { perSec: perSec(svc), slices: svc }, baseline: { perSec: perSec(base), slices: base } };
}

/** Sign-ups used as setup (refresh tokens for the refresh figure), a few at a time. */
async function guests(authUrl: string, n: number): Promise<string[]> {
  const out: string[] = [];
  const prefix = randomBytes(4).toString('hex');
  for (let i = 0; i < n; i += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, n - i) }, (_, j) => request(`${authUrl}/guest`, { body: { device_fingerprint: `setup-${prefix}-${i + j}` } })),
    );
    for (const r of batch) {
      if (r.status !== 200) throw new Error(`guest setup: ${r.status} ${JSON.stringify(r.body)}`);
      out.push(r.body.refresh_token);
    }
  }
  return out;
}

try {
  // ---------------------------------------------------------------- auth
  if (['refresh', 'guest', 'login'].some(want)) {
    const port = await freePort();
    const authUrl = `https://127.0.0.1:${port}`;
    const auth = await startProcess('auth', 'packages/auth/src/main.ts', { ...authEnv, AUTH_PORT: String(port) }, `${authUrl}/readyz`, nodeArgs);
    procs.push(auth);
    log(`auth up on ${authUrl}`);

    if (want('refresh')) {
      const c = CONN.refresh;
      // Each slice chains its own fresh tokens (two per connection).
      const tokens = await guests(authUrl, ROUNDS * 2 * c * 2);
      const slice = (k: number) => tokens.slice(k * c * 2, (k + 1) * c * 2);
      const { service: svc, baseline: base } = await alternating(
        (i, sec) => runLoad('http.ts', { url: `${authUrl}/refresh`, connections: c, durationSec: sec, scenario: 'refresh', tokens: slice(2 * i) }),
        (i, sec) =>
          runLoad('refresh-sql.ts', { url: benchDbUrl, schema: 'auth', poolSize: Number(DB_POOL ?? 10), connections: c, durationSec: sec, tokens: slice(2 * i + 1) }),
      );
      figure(
        {
          id: 'refresh',
          figure: 'refresh tokens / s (POST /refresh)',
          value: svc.perSec,
          unit: '/s',
          baselineName: `the same rotation statement via pg, prepared (pool ${DB_POOL ?? 10}, ${c} concurrent)`,
          baseline: base.perSec,
          goal: '≥ 2,000/s and ≥ 50% of baseline',
          extra: { service: svc, baseline: base, connections: c },
        },
        (f) => f.value! >= 2000 && f.ratio! >= 0.5,
      );
    }

    if (want('guest')) {
      const c = CONN.guest;
      const svc = await runLoad('http.ts', { url: `${authUrl}/guest`, connections: c, durationSec: DURATION, scenario: 'guest' });
      figure(
        { id: 'guest', figure: 'guest sign-ups / s (POST /guest)', value: svc.okPerSec, unit: '/s', baselineName: '—', baseline: null, goal: '≥ 1,000/s', extra: { service: svc, connections: c } },
        (f) => f.value! >= 1000,
      );
    }

    if (want('login')) {
      const c = CONN.login;
      const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
      const password = `bench ${randomBytes(8).toString('hex')} password`;
      const reg = await request(`${authUrl}/register`, { body: { email, password } });
      if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
      const { service: svc, baseline: base } = await alternating(
        (_, sec) => runLoad('http.ts', { url: `${authUrl}/login`, connections: c, durationSec: sec, scenario: 'constant', body: { email, password } }),
        (_, sec) => runLoad('argon.ts', { memoryCost: 19456, timeCost: 2, parallelism: 1, connections: c, durationSec: sec }),
      );
      figure(
        {
          id: 'login',
          figure: 'password logins / s (POST /login)',
          value: svc.perSec,
          unit: '/s',
          baselineName: `raw Argon2id verify (m=19456,t=2,p=1, ${c} concurrent)`,
          baseline: base.perSec,
          goal: '≥ 90% of baseline',
          extra: { service: svc, baseline: base, connections: c },
        },
        (f) => f.ratio! >= 0.9,
      );
    }
    await auth.stop();
  }

  // ---------------------------------------------------------------- access-token verify (in-process microbench)
  if (want('verify')) {
    const sec = Math.max(3, Math.round(DURATION / 2));
    const p = await runLoad('verify.ts', { format: 'paseto', durationSec: sec });
    const j = await runLoad('verify.ts', { format: 'jwt', durationSec: sec });
    figure(
      {
        id: 'verify',
        figure: 'access-token verify / s (kit verifier, PASETO v4.public)',
        value: p.rps,
        unit: '/s',
        baselineName: 'raw node:crypto Ed25519 verify, cached KeyObject',
        baseline: p.baseline,
        goal: '≥ 90% of baseline',
        extra: { paseto: p, jwt: j },
      },
      (f) => f.ratio! >= 0.9,
    );
    figure(
      {
        id: 'verify-jwt',
        figure: 'access-token verify / s (kit verifier, EdDSA JWT)',
        value: j.rps,
        unit: '/s',
        baselineName: 'raw node:crypto Ed25519 verify, cached KeyObject',
        baseline: j.baseline,
        goal: '≥ 90% of baseline',
      },
      (f) => f.ratio! >= 0.9,
    );
  }

  // ---------------------------------------------------------------- registry validate-key
  if (want('validate-key')) {
    const c = CONN.validate;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const registry = await startProcess(
      'registry',
      'bench/services/registry.ts',
      {
        ...common,
        DATA_DIR: path.join(dataDir, 'registry'),
        BENCH_REGISTRY_PORT: String(port),
        REGISTRY_DB_SCHEMA: 'registry',
        REGISTRY_MASTER_KEY: randomBytes(32).toString('hex'),
        REGISTRY_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      },
      `${url}/readyz`,
      nodeArgs,
    );
    procs.push(registry);
    const dev = await request(`${url}/developers/register`, {
      body: { Email: `dev-${randomBytes(4).toString('hex')}@example.com`, Password: randomBytes(12).toString('hex'), DisplayName: 'Bench' },
    });
    if (dev.status !== 201) throw new Error(`developer: ${dev.status} ${JSON.stringify(dev.body)}`);
    const game = await request(`${url}/games`, { body: { DisplayName: 'Bench game' }, headers: { authorization: `Bearer ${dev.body.Token}` } });
    if (game.status !== 201) throw new Error(`game: ${game.status} ${JSON.stringify(game.body)}`);
    const body = { ApiKey: game.body.Game.ApiKey, ApiSecret: game.body.ApiSecret };
    const barePort = await freePort();
    const bare = await startProcess('bare fastify', 'bench/services/bare-fastify.ts', { BENCH_PORT: String(barePort) }, `http://127.0.0.1:${barePort}/readyz`);
    procs.push(bare);
    const { service: svc, baseline: base } = await alternating(
      async (_, sec) => {
        const r = await runLoad('http.ts', { url: `${url}/auth/validate-key`, connections: c, durationSec: sec, scenario: 'constant', body });
        if (r.non2xx) throw new Error(`validate-key answered ${r.non2xx} non-2xx`);
        return r;
      },
      (_, sec) => runLoad('http.ts', { url: `http://127.0.0.1:${barePort}/auth/validate-key`, connections: c, durationSec: sec, scenario: 'constant', body }),
    );
    await registry.stop();
    await bare.stop();
    figure(
      {
        id: 'validate-key',
        figure: 'registry validate-key / s (POST /auth/validate-key)',
        value: svc.perSec,
        unit: '/s',
        baselineName: `bare Fastify route returning a constant (${c} connections)`,
        baseline: base.perSec,
        goal: '≥ 15,000/s and ≥ 60% of baseline',
        extra: { service: svc, baseline: base, connections: c },
      },
      (f) => f.value! >= 15000 && f.ratio! >= 0.6,
    );
  }

  // ---------------------------------------------------------------- sockets
  if (['ws-idle', 'ws-fanout', 'ws-presence', 'ws-cross'].some(want)) {
    for (const f of await socketFigures({ want, common, authEnv, dataDir, procs, log })) figure(f, () => f.pass ?? false);
  }

  // ---------------------------------------------------------------- game credential revocation across two social nodes
  if (['cred-revoke', 'cred-revoke-socket'].some(want)) {
    for (const f of await credentialFigures({ common, dataDir, procs, log })) figure(f, () => f.pass ?? false);
  }

  // The replay log (docs/social-realtime.md, "Resume and replay"): on against off in the same run, and replay latency.
  if (['ws-replay-fanout', 'ws-replay-presence', 'ws-replay'].some(want) && realtimePresent()) {
    for (const f of await replayFigures({ want, common, authEnv, dataDir, procs, log })) figure(f, () => f.pass ?? false);
  }

  // The text filter's cost on party chat (bench/text-filter.ts): on against off in the same run.
  if (want('chat-filter') && realtimePresent()) {
    for (const f of await textFilterFigures({ want, common, authEnv, dataDir, procs, log })) figure(f, () => f.pass ?? false);
  }

  // ---------------------------------------------------------------- revocation (bench/revocation.ts)
  if (['revoke-close', 'deny-check'].some(want)) {
    for (const f of await revocationFigures({ want, common, authEnv, dataDir, procs, log, alternating })) figure(f, () => f.pass ?? false);
  }
} finally {
  await cleanup();
}

// ---------------------------------------------------------------- report
const machine = {
  nproc: os.availableParallelism(),
  cpu: os.cpus()[0]?.model,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  postgres: await serverVersion(),
  redis: await redisVersion(),
};
async function serverVersion() {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  const v = (await c.query('SHOW server_version')).rows[0].server_version;
  await c.end();
  return v;
}
async function redisVersion() {
  const r = new Redis(REDIS_URL);
  const info = await r.info('server');
  await r.quit();
  return /redis_version:(\S+)/.exec(info)?.[1];
}
let commit = '';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {}

const header = '| figure | value | baseline (same run) | ratio | goal | result |';
const rows = figures.map(
  (f) =>
    `| ${f.figure} | ${f.value === null ? 'pending' : `${fmt(f.value)} ${f.unit}`} | ${f.baseline === null ? '—' : `${fmt(f.baseline)} ${f.unit}`} — ${f.baselineName} | ${
      f.ratio === null ? '—' : pct(f.ratio)
    } | ${f.goal} | ${f.pass === null ? `pending${f.note ? `: ${f.note}` : ''}` : f.pass ? 'PASS' : 'MISS'} |`,
);
const table = [header, '|---|---|---|---|---|---|', ...rows].join('\n');
console.log(`\nBench ${new Date().toISOString()} @ ${commit} — ${machine.nproc} cores, ${machine.memoryGiB} GiB, node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}; ${DURATION} s per figure\n`);
console.log(table);
for (const f of figures) if (f.note && f.pass !== null) console.log(`- ${f.figure}: ${f.note}`);
mkdirSync(path.join(BENCH, 'results'), { recursive: true });
const file = path.join(BENCH, 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), commit, machine, durationSec: DURATION, connections: CONN, figures, table }, null, 2) + '\n');
console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
