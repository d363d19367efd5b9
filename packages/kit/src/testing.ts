/**
 * Test helpers: each test file gets its own database schema (PostgreSQL) or
 * in-memory PGlite, and its own Redis key prefix, so files run in parallel.
 * With DATABASE_URL / REDIS_URL set (CI) the real servers are used.
 */
import { Writable } from 'node:stream';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { generate } from 'selfsigned';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { migrate, openDatabase, type Database } from './db.js';
import type { Env } from './config.js';
import { AppError } from './errors.js';
import type { Prepared, Service, ServiceConfigBase, ServiceStores } from './service.js';
import { openStateStore, type StateStore } from './state/index.js';
import { routesOf, type App } from './http.js';
import type { RegisteredRoute } from './route-access.js';

const suffix = () => randomBytes(5).toString('hex');

export interface TestDatabase {
  db: Database;
  url: string | null;
  schema: string;
  drop(): Promise<void>;
}

/** A fresh, empty schema on PostgreSQL (DATABASE_URL) or an in-memory PGlite. */
export async function testDatabase(service: string, url: string | null = process.env.DATABASE_URL ?? null): Promise<TestDatabase> {
  const schema = `t_${service}_${suffix()}`;
  const db = await openDatabase({ url: url ?? undefined, schema, poolSize: 5 });
  return {
    db,
    url,
    schema,
    async drop() {
      if (db.kind === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await db.close();
    },
  };
}

export interface TestStateStore {
  state: StateStore;
  prefix: string;
  url: string | null;
  drop(): Promise<void>;
}

/** A state store with a unique key prefix on Redis (REDIS_URL), or in memory. */
export async function testStateStore(url: string | null = process.env.REDIS_URL ?? null): Promise<TestStateStore> {
  const prefix = `t:${suffix()}:`;
  const state = await openStateStore({ url: url ?? undefined, prefix });
  return {
    state,
    prefix,
    url,
    async drop() {
      await state.close();
      if (url) {
        const r = new Redis(url);
        let cursor = '0';
        do {
          const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length) await r.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        await r.quit();
      }
    },
  };
}

/** A log destination that keeps every line, to prove what is (not) logged. */
export function captureLogs(): { stream: Writable & { write(chunk: string): boolean }; text(): string; lines(): any[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    stream: stream as never,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

/** A certificate authority for tests of mutual TLS: its certificate, and client certificates it signs. */
export async function testCertificateAuthority(name: string): Promise<{ cert: string; client(commonName: string): Promise<{ cert: string; key: string }> }> {
  const ca = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true },
    ],
  } as never);
  return {
    cert: ca.cert,
    async client(commonName) {
      const c = await generate([{ name: 'commonName', value: commonName }], {
        keyType: 'ec',
        algorithm: 'sha256',
        ca: { key: ca.private, cert: ca.cert },
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true },
          { name: 'extKeyUsage', clientAuth: true },
        ],
      } as never);
      return { cert: c.cert, key: c.private };
    },
  };
}

/**
 * Spellings of one request path that a router may map to the same route, or a URL-string guard may judge
 * differently from the router: letters percent-encoded (lower and upper hex), double-encoded, case-changed
 * segments, dot segments, a trailing slash, doubled and encoded slashes. Each variant names what it does.
 */
export function pathVariants(path: string, opts: { paramSegments?: readonly number[] } = {}): { kind: string; path: string }[] {
  // A path parameter's segment gets only spellings of the same value (an encoded letter); a changed case or a
  // double encoding there is another value, not another spelling, and is the route's own input to judge.
  const params = new Set(opts.paramSegments ?? []);
  const [pathname, query] = path.split('?');
  const segments = pathname.split('/').slice(1);
  const out: { kind: string; path: string }[] = [];
  const join = (segs: string[]) => '/' + segs.join('/') + (query !== undefined ? '?' + query : '');
  const hex = (c: string) => c.charCodeAt(0).toString(16);
  segments.forEach((seg, i) => {
    const at = seg.search(/[a-z]/i);
    if (at < 0) return;
    const withSeg = (s: string) => join(segments.map((x, j) => (j === i ? s : x)));
    const c = seg[at];
    out.push({ kind: `segment ${i} letter encoded`, path: withSeg(seg.slice(0, at) + '%' + hex(c) + seg.slice(at + 1)) });
    out.push({ kind: `segment ${i} letter encoded, upper hex`, path: withSeg(seg.slice(0, at) + '%' + hex(c).toUpperCase() + seg.slice(at + 1)) });
    if (params.has(i)) return;
    out.push({ kind: `segment ${i} double-encoded`, path: withSeg(seg.slice(0, at) + '%25' + hex(c) + seg.slice(at + 1)) });
    const swapped = seg.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + seg.slice(at + 1);
    out.push({ kind: `segment ${i} case changed`, path: withSeg(swapped) });
  });
  const all = segments.map((s) => s.replace(/[a-z]/gi, (c) => '%' + hex(c)));
  out.push({ kind: 'every letter encoded', path: join(all) });
  if (segments.length > 1) {
    const last = segments.length - 1;
    out.push({ kind: 'dot-dot segment', path: join([...segments.slice(0, last), 'x', '..', segments[last]]) });
    out.push({ kind: 'encoded dot-dot segment', path: join([...segments.slice(0, last), 'x', '%2e%2e', segments[last]]) });
    out.push({ kind: 'dot segment', path: join([...segments.slice(0, last), '.', segments[last]]) });
    out.push({ kind: 'doubled slash', path: join([...segments.slice(0, last), '', segments[last]]) });
    if (!params.has(last) && !params.has(last - 1)) out.push({ kind: 'encoded slash', path: '/' + segments.slice(0, last).join('/') + '%2F' + segments[last] + (query !== undefined ? '?' + query : '') });
  }
  out.push({ kind: 'trailing slash', path: pathname + '/' + (query !== undefined ? '?' + query : '') });
  return out;
}

/** A response reduced to what a caller can act on: status and error code. */
export interface Answer {
  status: number;
  code?: string;
}

/**
 * Whether a variant's answer is the plain path's answer for the same caller. A variant that reaches no route
 * (404 route_not_found) is acceptable: it is refused, never more permissive.
 */
export function sameAnswerOrNoRoute(plain: Answer, variant: Answer): boolean {
  if (variant.status === 404 && variant.code === 'route_not_found') return true;
  return plain.status === variant.status && plain.code === variant.code;
}

/**
 * Concrete sample path of a route pattern: each `:param` becomes `sample(name)`, a wildcard `x`; with the
 * indexes of the segments that hold parameters (for pathVariants).
 */
export function samplePath(pattern: string, sample: (param: string) => string): { path: string; paramSegments: number[] } {
  const segments = pattern.split('/').slice(1);
  const paramSegments = segments.flatMap((seg, i) => (seg.startsWith(':') || seg === '*' ? [i] : []));
  const path = pattern.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => sample(name)).replace(/\*$/, 'x');
  return { path, paramSegments };
}

/** What routeSpellingMismatches needs of a service. */
export interface RouteSpellingWalk {
  /** Each caller makes the headers of one request (a fresh player per request keeps state changes apart). */
  callers: (() => Promise<Record<string, string>>)[];
  /** Value of a path parameter by name (default: a random UUID). */
  sample?: (param: string) => string;
  /** Routes left out (default: HEAD, the CORS preflight and the docs UI). */
  skip?: (route: RegisteredRoute) => boolean;
}

/**
 * Walks every route the app registered: for each caller, the plain sample path and every spelling of it
 * (pathVariants). Returns one line per spelling answered otherwise than the plain path (sameAnswerOrNoRoute).
 */
export async function routeSpellingMismatches(app: App, walk: RouteSpellingWalk): Promise<{ walked: number; mismatches: string[] }> {
  const skip = walk.skip ?? ((r: RegisteredRoute) => r.method === 'HEAD' || r.method === 'OPTIONS' || r.url.startsWith('/docs'));
  const routes = routesOf(app).filter((r) => !skip(r));
  const answer = async (method: string, url: string, headers: Record<string, string>): Promise<Answer> => {
    const r = await app.inject({ method: method as 'GET', url, headers });
    let body: Record<string, unknown> = {};
    try {
      body = r.json();
    } catch {
      /* not JSON: the status is the answer */
    }
    const code = body.code ?? body.Code;
    return { status: r.statusCode, code: typeof code === 'string' ? code : undefined };
  };
  const mismatches: string[] = [];
  for (const route of routes) {
    const { path, paramSegments } = samplePath(route.url, walk.sample ?? (() => randomUUID()));
    for (const caller of walk.callers) {
      const plain = await answer(route.method, path, await caller());
      for (const v of pathVariants(path, { paramSegments })) {
        const got = await answer(route.method, v.path, await caller());
        if (!sameAnswerOrNoRoute(plain, got)) {
          mismatches.push(`${route.method} ${v.path} (${v.kind}): ${got.status} ${got.code} vs plain ${plain.status} ${plain.code}`);
        }
      }
    }
  }
  return { walked: routes.length, mismatches };
}

/**
 * The listed error codes a service's doc does not show in a table row of their status
 * (`| 404 | \`game_not_found\` | …`): the doc's error table must match the code list.
 */
export function errorCodesMissingFromDoc(doc: string, entries: readonly { code: string; status: number }[]): string[] {
  const rows = doc.split('\n').filter((l) => /^\|\s*\d{3}\s*\|/.test(l));
  return entries
    .filter((e) => !rows.some((row) => row.match(/^\|\s*(\d{3})\s*\|/)![1] === String(e.status) && row.includes(`\`${e.code}\``)))
    .map((e) => `${e.status} ${e.code}`);
}

/**
 * Lints an OpenAPI document with Redocly's CLI (recommended rules) and returns its problems of severity
 * error, each as `ruleId pointer: message`. The CLI is a dev dependency of the workspace root.
 */
export async function lintOpenApi(doc: unknown): Promise<{ errors: string[]; warnings: number }> {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { execFile } = await import('node:child_process');
  const { createRequire } = await import('node:module');
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  try {
    const out = await new Promise<string>((resolve, reject) =>
      // Exit status 1 means "problems found": the JSON report says which.
      execFile(process.execPath, [cli, 'lint', file, '--format=json'], { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
        stdout ? resolve(stdout) : reject(err ?? new Error('redocly printed nothing')),
      ),
    );
    const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: { warnings: number }; problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[] };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
    return { errors, warnings: report.totals.warnings };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ScrapedMetrics {
  status: number;
  contentType: string | null;
  /** The exposition as received. */
  text: string;
  /** The families as parse-prometheus-text-format reads the text (it throws on a line Prometheus would refuse). */
  families: PrometheusFamily[];
  /**
   * The sum of the samples of the counter or gauge `name` whose labels include `labels` (undefined: none).
   * Histograms are not read here: the parser merges a histogram's label sets into one sample (it reads only
   * unlabelled histograms right), so tests read a histogram from its registry (`getSingleMetric(name).get()`).
   */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The label sets of the samples of the counter or gauge `name`. */
  labelsOf(name: string): Record<string, string>[];
}

/** GET a metrics endpoint and parse the Prometheus text it answers with a Prometheus text-format parser. */
export async function scrapeMetrics(url: string): Promise<ScrapedMetrics> {
  const res = await fetch(url);
  const text = await res.text();
  const families = res.status === 200 ? parsePrometheusTextFormat(text) : [];
  const matching = (name: string, labels: Record<string, string>) =>
    (families.find((f) => f.name === name && f.type !== 'HISTOGRAM' && f.type !== 'SUMMARY')?.metrics ?? [])
      .filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))
      .map((s) => ({ labels: s.labels ?? {}, value: Number(s.value) }));
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
    families,
    value(name, labels = {}) {
      const samples = matching(name, labels);
      return samples.length ? samples.reduce((a, s) => a + s.value, 0) : undefined;
    },
    labelsOf: (name) => matching(name, {}).map((s) => s.labels),
  };
}

/** Debian's Chromium, the one browser the browser tests drive (through playwright-core; never a browser from npm). */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The `skip` option of a browser suite: false when Chromium is installed, else the reason. With REQUIRE_CHROMIUM=1
 * (.ci/run) a missing Chromium throws instead, so a browser suite never skips in CI.
 */
export function chromiumSkip(): false | string {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.REQUIRE_CHROMIUM === '1') throw new Error(`${CHROMIUM} is missing and REQUIRE_CHROMIUM=1`);
  return `${CHROMIUM} is missing (install chromium)`;
}

/** base64(SHA-256(SubjectPublicKeyInfo)) of a certificate: the form --ignore-certificate-errors-spki-list takes. */
export const spkiHash = (certPem: string) =>
  createHash('sha256').update(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');

/** playwright-core's launch options for Chromium, trusting exactly the keys of these (self-signed) certificates. */
export function chromiumLaunchOptions(trustedCertPems: string[] = []) {
  const trust = trustedCertPems.length ? [`--ignore-certificate-errors-spki-list=${trustedCertPems.map(spkiHash).join(',')}`] : [];
  return { executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...trust] };
}

/** The bearer header of an access token. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What an error assert reads of a response: app.inject's answer, or a harness request's. */
type ErrorAnswer = { statusCode: number; body: string; json(): any } | { status: number; body: any };

/**
 * Asserts an error answer: its status and stable code (`code`, or the registry's `Code`); returns the body.
 * Takes an app.inject response or a harness request's `{ status, body }`.
 */
export function assertError(res: ErrorAnswer, status: number, code: string): any {
  const [got, body] = 'statusCode' in res ? [res.statusCode, safeJson(res.body)] : [res.status, res.body];
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  assert.equal(got, status, text);
  assert.equal(body?.code ?? body?.Code, code, text);
  return body;
}

/** Awaits `promise` and asserts it rejects with an AppError of this status and code (and message). */
export async function assertAppError(promise: Promise<unknown>, status: number, code: string, message?: RegExp): Promise<AppError> {
  const err = await promise.then(
    () => assert.fail(`expected ${status} ${code}, but it resolved`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, status);
  if (message) assert.match(err.message, message);
  return err;
}

function safeJson(text: string): any {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (with a JSON content type unless `headers` say otherwise). */
  raw?: string;
  /** An access token: the bearer header. */
  token?: string;
  headers?: Record<string, string>;
}

/** An answer with its body parsed (JSON, else the text). */
export interface JsonAnswer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  /** The body as received. */
  text: string;
}

/** One request through app.inject: a JSON body, a bearer token, the answer's body parsed. */
export async function request(app: App, method: Method, url: string, opts: RequestOptions = {}): Promise<JsonAnswer> {
  const headers: Record<string, string> = { ...(opts.token ? bearer(opts.token) : {}), ...(opts.headers ?? {}) };
  const payload = opts.raw ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const r = await app.inject({ method, url, headers, payload });
  return { status: r.statusCode, body: safeJson(r.body), headers: r.headers, text: r.body };
}

/** Settings every test service runs with (a test's env overrides them). */
export const testDefaults: Env = { LOG_LEVEL: 'silent' };

/** What a harness's `prepare` is given: the config read, the test stores, a fresh data directory. */
export interface HarnessPrepareInput<C> {
  config: C;
  db: Database;
  state: StateStore;
  dataDir: string;
}

export interface ServiceHarnessOptions<C, B, D> {
  /** Settings over testDefaults (DATA_DIR is a fresh directory unless given). */
  env?: Env;
  /** Deps over what prepare gives, for every app this harness builds (logStream, clock, …). */
  deps?: Partial<Omit<D, keyof ServiceStores>>;
  /**
   * The test's stand-in for the definition's `prepare` (no key files, no TLS): the config to build with and the
   * deps beyond the stores. Default: the config read, no deps.
   */
  prepare?(input: HarnessPrepareInput<C>): Prepared<B, D> | Promise<Prepared<B, D>>;
}

export interface NodeOptions<C, B, D> {
  /** Deps over the harness's, for this app. */
  deps?: Partial<Omit<D, keyof ServiceStores>>;
  /** This app's prepare instead of the harness's. */
  prepare?: ServiceHarnessOptions<C, B, D>['prepare'];
  /** See ServiceHarness.node. */
  ownConnections?: boolean;
}

export interface ServiceHarness<A extends App, C, B, D> {
  app: A;
  /** The config read (readConfig). */
  config: C;
  /** The config built with (what prepare returned). */
  built: B;
  db: Database;
  state: StateStore;
  tdb: TestDatabase;
  tstate: TestStateStore;
  dataDir: string;
  /** The env the config was read from (testDefaults, DATA_DIR, the test's). */
  env: Env;
  /** A request to `app` (see `request`). */
  request(method: Method, url: string, opts?: RequestOptions): Promise<JsonAnswer>;
  /**
   * Another app (another node) of the service over the same stores, closed with the harness. `ownConnections`:
   * on PostgreSQL/Redis it opens its own connections to the same schema and key prefix (so events really cross
   * Redis pub/sub); in memory the stores are shared anyway.
   */
  node(env?: Env, opts?: NodeOptions<C, B, D>): Promise<A>;
  close(): Promise<void>;
}

/**
 * A service as its definition builds it, on test stores: config from `readConfig({ ...testDefaults, DATA_DIR, ...env })`,
 * a fresh database schema (testDatabase) and key prefix (testStateStore), migrated with the definition's
 * migrations, the app built with `service.build` (its workers included). `close()`: the apps, then the stores dropped.
 */
export async function serviceHarness<C extends ServiceConfigBase, B, D extends ServiceStores, A extends App>(
  service: Service<C, B, D, A>,
  opts: ServiceHarnessOptions<C, B, D> = {},
): Promise<ServiceHarness<A, C, B, D>> {
  const { definition } = service;
  const tdb = await testDatabase(definition.name);
  const tstate = await testStateStore();
  const apps: A[] = [];
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const a of apps.splice(0).reverse()) await a.close();
    for (const c of closers.splice(0)) await c();
    await tstate.drop();
    await tdb.drop();
  };
  try {
    await migrate(tdb.db, definition.migrations);
    const dataDir = opts.env?.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), `${definition.name}-test-`));
    const env: Env = { ...testDefaults, DATA_DIR: dataDir, ...opts.env };
    const buildOn = async (config: C, db: Database, state: StateStore, o: NodeOptions<C, B, D> = {}) => {
      const prepare = o.prepare ?? opts.prepare;
      const prepared = prepare ? await prepare({ config, db, state, dataDir }) : { config: config as unknown as B, deps: {} };
      const app = await service.build(prepared.config, { ...prepared.deps, ...opts.deps, ...o.deps, db, state } as unknown as D);
      apps.push(app);
      return { app, built: prepared.config };
    };
    const config = definition.readConfig(env);
    const { app, built } = await buildOn(config, tdb.db, tstate.state);
    return {
      app,
      config,
      built,
      db: tdb.db,
      state: tstate.state,
      tdb,
      tstate,
      dataDir,
      env,
      request: (method, url, o) => request(app, method, url, o),
      async node(extra = {}, o = {}) {
        let { db } = tdb;
        let { state } = tstate;
        if (o.ownConnections && tdb.url) {
          db = await openDatabase({ url: tdb.url, schema: tdb.schema, poolSize: 3 });
          closers.push(() => db.close());
        }
        if (o.ownConnections && tstate.url) {
          state = await openStateStore({ url: tstate.url, prefix: tstate.prefix });
          closers.push(() => state.close());
        }
        return (await buildOn(definition.readConfig({ ...env, ...extra }), db, state, o)).app;
      },
      close,
    };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
