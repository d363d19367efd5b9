/**
 * The cost of the kit's HTTP metrics hook (docs/benchmarks.md, "Metrics hook"): one kit service with one route
 * (GET /things/:id, the cheapest a service answers, so the hook's share is the largest it can be), started
 * twice as separate processes, one without metrics and one with them (the onResponse hook counting and timing
 * every response, and the metrics listener open and scraped every second as Prometheus would). autocannon
 * drives both from this process in alternating slices, so the machine's drift weighs on both alike.
 *
 *   node --conditions=development --import tsx bench/metrics-hook.ts [--slices 6] [--seconds 5] [--connections 32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createMetrics, createService, HTTP_DURATION_BUCKETS, listenMetrics } from '@platform/kit';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

/** Child mode: one service, with or without metrics; prints its port (and metrics URL) when listening. */
async function serve(withMetrics: boolean): Promise<void> {
  const metrics = withMetrics ? createMetrics('bench') : undefined;
  const app = await createService({ name: 'bench', fieldCase: 'camel', logLevel: 'silent', metrics });
  app.get('/things/:id', { config: { access: 'public' } }, async (req) => ({ id: (req.params as { id: string }).id }));
  // The process's CPU time so far (user + system, µs), read between slices.
  app.get('/cpu', { config: { access: 'public' } }, async () => {
    const u = process.cpuUsage();
    return { micros: u.user + u.system };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const endpoint = metrics ? await listenMetrics(metrics, { port: 0, host: '127.0.0.1' }) : undefined;
  process.stdout.write(JSON.stringify({ port: (app.server.address() as { port: number }).port, metrics: endpoint?.url }) + '\n');
}

function start(mode: 'plain' | 'metrics'): Promise<{ child: ChildProcess; port: number; metrics?: string }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve({ child, ...JSON.parse(chunk.toString()) }));
  });
}

const cpuMicros = async (port: number) => ((await (await fetch(`http://127.0.0.1:${port}/cpu`)).json()) as { micros: number }).micros;

/** One slice: throughput, latency, and the server's CPU time per request (less sensitive to a busy machine). */
async function slice(port: number, seconds: number, connections: number) {
  const cpuBefore = await cpuMicros(port);
  let i = 0;
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/things/${i++ % 1000}` }) }],
  });
  const cpuPerRequest = (await cpuMicros(port)) - cpuBefore;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx, cpu: cpuPerRequest / Math.max(1, r.requests.total) };
}

/** The hook's own work per response, timed in a warm loop: the children lookup, a counter increment, a histogram observation. */
function hookNanos(): number {
  const metrics = createMetrics('loop');
  const labels = ['method', 'route', 'status'] as const;
  const count = metrics.counter('http_requests_total', 'x', labels);
  const duration = metrics.histogram('http_request_duration_seconds', 'x', labels, HTTP_DURATION_BUCKETS);
  const children = new Map<string, { c: ReturnType<typeof count.labels>; h: ReturnType<typeof duration.labels> }>();
  const once = (i: number) => {
    const status = 200;
    const key = `GET ${status} /things/:id`;
    let child = children.get(key);
    if (!child) children.set(key, (child = { c: count.labels('GET', '/things/:id', String(status)), h: duration.labels('GET', '/things/:id', String(status)) }));
    child.c.inc();
    child.h.observe((i % 100) / 10_000);
  };
  for (let i = 0; i < 200_000; i++) once(i);
  const n = 2_000_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) once(i);
  return Number(process.hrtime.bigint() - t) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const slices = arg('slices', 6);
  const seconds = arg('seconds', 5);
  const connections = arg('connections', 32);
  // Started in parallel: neither process is systematically the older one.
  const [plain, withMetrics] = await Promise.all([start('plain'), start('metrics')]);
  // Scraped every second, as a Prometheus with a short interval would.
  let failedScrapes = 0;
  const scraper = setInterval(
    () =>
      void fetch(withMetrics.metrics!)
        .then((r) => r.text())
        .catch(() => failedScrapes++),
    1000,
  );
  const runs: Record<'plain' | 'metrics', Awaited<ReturnType<typeof slice>>[]> = { plain: [], metrics: [] };
  try {
    // Warm-up: both compiled and their route serializers built.
    await slice(plain.port, 2, connections);
    await slice(withMetrics.port, 2, connections);
    for (let s = 0; s < slices; s++) {
      // Alternating order: neither always runs first in a pair.
      const order = s % 2 === 0 ? (['plain', 'metrics'] as const) : (['metrics', 'plain'] as const);
      for (const mode of order) runs[mode].push(await slice((mode === 'plain' ? plain : withMetrics).port, seconds, connections));
    }
  } finally {
    clearInterval(scraper);
    plain.child.kill();
    withMetrics.child.kill();
  }
  const summary = (mode: 'plain' | 'metrics') => ({
    rps: median(runs[mode].map((r) => r.rps)),
    p50: median(runs[mode].map((r) => r.p50)),
    p99: median(runs[mode].map((r) => r.p99)),
    cpu: median(runs[mode].map((r) => r.cpu)),
    errors: runs[mode].reduce((a, r) => a + r.errors, 0),
  });
  const a = summary('plain');
  const b = summary('metrics');
  console.log(`slices: ${slices} × ${seconds} s each, ${connections} connections, GET /things/:id; failed scrapes: ${failedScrapes}`);
  console.log('| | req/s (median) | server CPU µs / request (median) | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| without metrics | ${a.rps.toFixed(0)} | ${a.cpu.toFixed(1)} | ${a.p50} | ${a.p99} | ${a.errors} |`);
  console.log(`| with metrics (hook + listener scraped every 1 s) | ${b.rps.toFixed(0)} | ${b.cpu.toFixed(1)} | ${b.p50} | ${b.p99} | ${b.errors} |`);
  console.log(`throughput with metrics: ${((b.rps / a.rps) * 100).toFixed(1)} % of without; CPU per request: ${((b.cpu / a.cpu - 1) * 100).toFixed(1)} %`);
  console.log(`the hook alone: ${hookNanos().toFixed(0)} ns per response (in-process loop over the same counter and histogram calls)`);
  console.log('per slice (plain, metrics):', runs.plain.map((r, i) => `${r.rps.toFixed(0)}/${runs.metrics[i].rps.toFixed(0)}`).join(' '));
}

if (process.argv.includes('--serve')) await serve(process.argv[process.argv.indexOf('--serve') + 1] === 'metrics');
else await main();
