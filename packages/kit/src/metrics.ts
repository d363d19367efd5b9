/**
 * Prometheus metrics of a service (prom-client; docs/deployment.md, "Metrics"). Each service has its own
 * Registry (never prom-client's global one): `npm start` runs the three services in one process, and each
 * exposes only its own metrics, every name prefixed with the service (`auth_`, `registry_`, `social_`).
 *
 * - HTTP: one counter and one latency histogram by method, route pattern (Fastify's routeOptions.url, never
 *   the raw URL: a path no route serves counts as `route="unmatched"`) and status, from one onResponse hook.
 * - Database pool: gauges read at scrape time from the Database (`stats()`).
 * - Process and runtime (prom-client's defaults, prefixed), registered when the endpoint opens.
 * - The endpoint is a listener of its own (metrics-listener.ts), off unless `<SERVICE>_METRICS_PORT` is set.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from './db.js';
import { withTimeout, type App } from './app-type.js';

export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The route label of a request no route matched (404 route_not_found): one label, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: from a cached read (1 ms) to a slow sign-in (Argon2) and beyond. */
export const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SERVICE_NAME = /^[a-z][a-z0-9_]*$/;

/** Where a service's metrics are served (set by listenMetrics). */
export interface MetricsEndpoint {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

export interface ServiceMetrics {
  readonly service: string;
  /** `<service>_`: every metric of the service starts with it. */
  readonly prefix: string;
  readonly registry: Registry;
  /** A counter named `<prefix><name>` in this registry. */
  counter<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  /** A gauge named `<prefix><name>`; `collect` runs at each scrape (read the value there). */
  gauge<L extends string = never>(name: string, help: string, labelNames?: readonly L[], collect?: (g: Gauge<L>) => void | Promise<void>): Gauge<L>;
  histogram<L extends string = never>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L>;
  /** The open endpoint, when listenMetrics opened one. */
  endpoint?: MetricsEndpoint;
  /** Adds prom-client's process and runtime metrics (once; the endpoint does it when it opens). */
  collectDefaults(): void;
}

export function createMetrics(service: string): ServiceMetrics {
  if (!SERVICE_NAME.test(service)) throw new Error(`invalid metrics service name ${service}`);
  const prefix = `${service}_`;
  const registry = new Registry();
  let defaults = false;
  return {
    service,
    prefix,
    registry,
    counter: <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name: prefix + name, help, labelNames, registers: [registry] }),
    gauge: <L extends string>(name: string, help: string, labelNames: readonly L[] = [], collect?: (g: Gauge<L>) => void | Promise<void>) =>
      new Gauge<L>({
        name: prefix + name,
        help,
        labelNames,
        registers: [registry],
        ...(collect
          ? {
              collect(this: Gauge<L>) {
                return collect(this);
              },
            }
          : {}),
      }),
    histogram: <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
      new Histogram<L>({ name: prefix + name, help, labelNames, buckets, registers: [registry] }),
    collectDefaults() {
      if (defaults) return;
      defaults = true;
      collectDefaultMetrics({ register: registry, prefix });
    },
  };
}

const byApp = new WeakMap<object, ServiceMetrics>();

/** The metrics createService was given for this app (undefined without). */
export function metricsOf(app: App): ServiceMetrics | undefined {
  return byApp.get(app);
}

type Observed = { count: Counter.Internal; duration: Histogram.Internal<string> };

/**
 * Counts every response by method, route pattern and status, and observes its latency (Fastify's
 * `reply.elapsedTime`, from the request's arrival to the response's end). Callback style and one map
 * lookup per response: the label children are made once per (method, route, status). While no endpoint is
 * open (the listener is off by default) the hook returns at once.
 */
export function installHttpMetrics(app: App, metrics: ServiceMetrics): void {
  byApp.set(app, metrics);
  const labels = ['method', 'route', 'status'] as const;
  const requests = metrics.counter('http_requests_total', 'HTTP responses by method, route pattern and status', labels);
  const duration = metrics.histogram('http_request_duration_seconds', 'HTTP request latency by method, route pattern and status', labels, HTTP_DURATION_BUCKETS);
  const children = new Map<string, Observed>();
  app.addHook('onResponse', (req, reply, done) => {
    // Nothing to count for while no endpoint serves the metrics (the listener is off by default).
    if (!metrics.endpoint) return done();
    const method = METHODS.has(req.method) ? req.method : 'OTHER';
    const route = req.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      const l = { method, route, status: String(status) };
      children.set(key, (child = { count: requests.labels(l), duration: duration.labels(l) }));
    }
    child.count.inc();
    child.duration.observe(reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onClose', async () => {
    await metrics.endpoint?.close();
  });
}

/**
 * The database pool as gauges read at each scrape: PostgreSQL's pool (connections open, idle, callers
 * waiting for one, the maximum), or the embedded PGlite (one connection; `waiting` counts the statements
 * queued behind the one running, shared by every service of an `npm start` process).
 */
export function databaseMetrics(metrics: ServiceMetrics, db: Database): void {
  const read = (pick: (s: NonNullable<ReturnType<NonNullable<Database['stats']>>>) => number) => (g: Gauge<'backend'>) => {
    const s = db.stats?.();
    g.reset();
    if (s) g.set({ backend: s.backend }, pick(s));
  };
  metrics.gauge('db_pool_max_connections', 'Largest number of database connections the pool may open', ['backend'], read((s) => s.max));
  metrics.gauge('db_pool_connections', 'Database connections open', ['backend'], read((s) => s.total));
  metrics.gauge('db_pool_idle_connections', 'Database connections open and idle', ['backend'], read((s) => s.idle));
  metrics.gauge('db_pool_waiting', 'Callers waiting for a database connection (PGlite: statements queued behind the running one)', ['backend'], read((s) => s.waiting));
}

/**
 * Sets a gauge without labels, or leaves it out of the scrape when the value is unknown (null, undefined):
 * prom-client would print 0 for an unset gauge without labels, which reads as a value.
 */
export function setOrAbsent(g: Gauge<never>, value: number | null | undefined): void {
  g.reset();
  if (value === undefined || value === null) g.remove();
  else g.set(value);
}

/**
 * A read at scrape time shared by the gauges of one scrape (the first gauge collected starts it, the others
 * await the same promise), bounded by `timeoutMs`: undefined when it fails or is late, so a slow or absent
 * database leaves those gauges out of the scrape instead of making the whole scrape time out.
 */
export function perScrape<T>(read: () => Promise<T>, timeoutMs = 1000): () => Promise<T | undefined> {
  let current: Promise<T | undefined> | undefined;
  return () =>
    (current ??= withTimeout(read(), timeoutMs)
      .catch(() => undefined)
      .finally(() => {
        current = undefined;
      }));
}
