// The kit's metrics: HTTP responses counted by route pattern (never the raw URL), the separate metrics listener
// (loopback by default, off unless opened), one registry per service, the database pool gauges.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics, createService, databaseMetrics, listenMetrics, metricsOf, metricsVars, perScrape, readConfig, setOrAbsent, type App } from '../src/index.js';
import { scrapeMetrics, testDatabase } from '../src/testing.js';

async function service(name: string): Promise<{ app: App; base: string }> {
  const metrics = createMetrics(name);
  const app = await createService({ name, fieldCase: 'camel', logLevel: 'silent', metrics });
  app.get('/things/:id', { config: { access: 'public' } }, async (req) => ({ id: (req.params as { id: string }).id }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  return { app, base: `http://127.0.0.1:${address.port}` };
}

describe('metrics', () => {
  const apps: App[] = [];
  after(async () => {
    for (const a of apps) await a.close();
  });

  it('counts and times responses by method, route pattern and status; unmatched paths share one label', async () => {
    const { app, base } = await service('kit_demo');
    apps.push(app);
    const metrics = metricsOf(app)!;
    const endpoint = await listenMetrics(metrics, { port: 0, host: '127.0.0.1' });
    assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    for (const id of ['a1', 'b2', 'c3']) assert.equal((await fetch(`${base}/things/${id}`)).status, 200);
    assert.equal((await fetch(`${base}/nothing/secret-token-123?email=a@b.example`)).status, 404);
    assert.equal((await fetch(`${base}/other/path`)).status, 404);

    const m = await scrapeMetrics(endpoint.url);
    assert.equal(m.status, 200);
    assert.match(m.contentType ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(m.value('kit_demo_http_requests_total', { method: 'GET', route: '/things/:id', status: '200' }), 3);
    assert.equal(m.value('kit_demo_http_requests_total', { route: 'unmatched', status: '404' }), 2);
    assert.equal(m.families.find((f) => f.name === 'kit_demo_http_request_duration_seconds')?.type, 'HISTOGRAM');
    // The histogram's series by label, from the registry (the text parser merges a histogram's label sets).
    const series = (await metrics.registry.getSingleMetric('kit_demo_http_request_duration_seconds')!.get()).values as {
      metricName?: string;
      labels: Record<string, string | number>;
      value: number;
    }[];
    const count = series.find((v) => v.metricName?.endsWith('_count') && v.labels.route === '/things/:id' && v.labels.status === '200');
    assert.equal(count?.value, 3);
    const sum = series.find((v) => v.metricName?.endsWith('_sum') && v.labels.route === '/things/:id');
    assert.ok(sum!.value > 0);
    // Bounded labels: no raw path, id, token or query reaches a label.
    const routes = new Set(m.labelsOf('kit_demo_http_requests_total').map((l) => l.route));
    assert.deepEqual([...routes].sort(), ['/things/:id', 'unmatched']);
    const text = await (await fetch(endpoint.url)).text();
    for (const leaked of ['a1', 'secret-token-123', 'a@b.example', '/other/path']) assert.ok(!text.includes(leaked), leaked);
    // Process and runtime metrics, prefixed with the service.
    assert.ok(m.value('kit_demo_process_cpu_user_seconds_total')! > 0);
    assert.ok(m.value('kit_demo_nodejs_heap_size_used_bytes')! > 0);
    assert.equal(m.families.filter((f) => !f.name.startsWith('kit_demo_')).length, 0);
  });

  it('serves only GET /metrics on its listener; the public listener has no /metrics', async () => {
    const { app, base } = await service('kit_paths');
    apps.push(app);
    const endpoint = await listenMetrics(metricsOf(app)!, { port: 0, host: '127.0.0.1' });
    const publicAnswer = await fetch(`${base}/metrics`);
    assert.equal(publicAnswer.status, 404);
    assert.equal((await publicAnswer.json()).code, 'route_not_found');
    const origin = endpoint.url.replace('/metrics', '');
    assert.equal((await fetch(`${origin}/`)).status, 404);
    assert.equal((await fetch(`${origin}/metrics/x`)).status, 404);
    const post = await fetch(endpoint.url, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.equal((await fetch(endpoint.url, { method: 'HEAD' })).status, 200);
    await assert.rejects(listenMetrics(metricsOf(app)!, { port: 0, host: '127.0.0.1' }), /already open/);
  });

  it('keeps one registry per service in one process, and closes the listener with the app', async () => {
    const a = await service('svc_a');
    const b = await service('svc_b');
    apps.push(b.app);
    const ea = await listenMetrics(metricsOf(a.app)!, { port: 0, host: '127.0.0.1' });
    const eb = await listenMetrics(metricsOf(b.app)!, { port: 0, host: '127.0.0.1' });
    await fetch(`${a.base}/things/1`);
    const ma = await scrapeMetrics(ea.url);
    const mb = await scrapeMetrics(eb.url);
    assert.equal(ma.value('svc_a_http_requests_total', { route: '/things/:id' }), 1);
    assert.equal(mb.value('svc_b_http_requests_total', { route: '/things/:id' }), undefined);
    assert.ok(!mb.families.some((f) => f.name.startsWith('svc_a_')));
    await a.app.close();
    await assert.rejects(fetch(ea.url));
    assert.equal(metricsOf(a.app)!.endpoint, undefined);
  });

  it('reads the database pool at each scrape', async () => {
    const t = await testDatabase('metrics');
    try {
      const metrics = createMetrics('kit_db');
      databaseMetrics(metrics, t.db);
      await t.db.query('SELECT 1');
      const text = await metrics.registry.metrics();
      const backend = t.db.kind;
      assert.match(text, new RegExp(`kit_db_db_pool_max_connections\\{backend="${backend}"\\} ${backend === 'postgres' ? 5 : 1}`));
      assert.match(text, new RegExp(`kit_db_db_pool_connections\\{backend="${backend}"\\} 1`));
      assert.match(text, new RegExp(`kit_db_db_pool_idle_connections\\{backend="${backend}"\\} 1`));
      assert.match(text, new RegExp(`kit_db_db_pool_waiting\\{backend="${backend}"\\} 0`));
    } finally {
      await t.drop();
    }
  });

  it('leaves a scrape-time gauge out when its read fails or is late, and serves the rest; one read per scrape', async () => {
    const metrics = createMetrics('kit_late');
    let reads = 0;
    let mode: 'ok' | 'hang' | 'fail' = 'ok';
    const read = perScrape(async () => {
      reads++;
      if (mode === 'hang') return new Promise<number>(() => {});
      if (mode === 'fail') throw new Error('database down');
      return 7;
    }, 100);
    for (const name of ['first', 'second']) metrics.gauge(name, 'x', [], async (g) => setOrAbsent(g, await read()));
    metrics.counter('served_total', 'x').inc();
    const endpoint = await listenMetrics(metrics, { port: 0, host: '127.0.0.1' });
    try {
      let m = await scrapeMetrics(endpoint.url);
      assert.equal(m.value('kit_late_first'), 7);
      assert.equal(m.value('kit_late_second'), 7);
      assert.equal(reads, 1);
      for (const failing of ['hang', 'fail'] as const) {
        mode = failing;
        m = await scrapeMetrics(endpoint.url);
        assert.equal(m.status, 200);
        assert.equal(m.value('kit_late_first'), undefined, failing);
        assert.equal(m.value('kit_late_second'), undefined, failing);
        assert.equal(m.value('kit_late_served_total'), 1);
      }
    } finally {
      await endpoint.close();
    }
  });

  it('reads <SERVICE>_METRICS_PORT (unset: no listener) and <SERVICE>_METRICS_HOST (loopback by default)', () => {
    assert.deepEqual(readConfig(metricsVars('DEMO'), {}), { metricsPort: undefined, metricsHost: '127.0.0.1' });
    assert.deepEqual(readConfig(metricsVars('DEMO'), { DEMO_METRICS_PORT: '9464', DEMO_METRICS_HOST: '10.0.0.5' }), { metricsPort: 9464, metricsHost: '10.0.0.5' });
    assert.throws(() => readConfig(metricsVars('DEMO'), { DEMO_METRICS_PORT: '70000' }), /DEMO_METRICS_PORT/);
  });
});
