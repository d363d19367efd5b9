/**
 * Test helpers (@platform/kit/testing): the stores of a test (testing/stores.ts), the one service harness and the
 * helpers every test repeats (testing/harness.ts), logs, certificates, route spellings, OpenAPI lint, metrics, Chromium.
 */
import { Writable } from 'node:stream';
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { routesOf, type App } from './http.js';
import type { RegisteredRoute } from './route-access.js';

export * from './testing/stores.js';
export * from './testing/harness.js';
export * from './testing/ports.js';
export * from './testing/soft-authenticator.js';
export * from './testing/processes.js';

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

/** Real wasm modules for tests: a compiler from WebAssembly text to a wasm binary (wabt, loaded and initialised once for it). */
export async function watCompiler(): Promise<(text: string) => Buffer> {
  const { default: wabtInit } = await import('wabt');
  const wabt = await wabtInit();
  return (text) => {
    const mod = wabt.parseWat('m.wat', text);
    try {
      return Buffer.from(mod.toBinary({}).buffer);
    } finally {
      mod.destroy();
    }
  };
}
