/**
 * The metrics endpoint: a plain HTTP listener of its own, apart from the service's public one (docs/deployment.md,
 * "Metrics"). Off unless `<SERVICE>_METRICS_PORT` is set; bound to `<SERVICE>_METRICS_HOST`, 127.0.0.1 by
 * default. It serves `GET /metrics` (and HEAD) in the Prometheus text format and nothing else: the public
 * listener has no /metrics route at all (404 route_not_found), so a public address never shows the metrics.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { vars, type Variable } from './config.js';
import { metricsOf, type MetricsEndpoint, type ServiceMetrics } from './metrics.js';
import type { App } from './http.js';

export const METRICS_PATH = '/metrics';

/** `<PREFIX>_METRICS_PORT` (unset: no endpoint; 0: any free port) and `<PREFIX>_METRICS_HOST` (127.0.0.1). */
export function metricsVars(prefix: string) {
  return {
    metricsPort: vars.int(`${prefix}_METRICS_PORT`, {
      min: 0,
      max: 65535,
      description: 'Port of the Prometheus metrics listener (GET /metrics); unset: no metrics listener',
    }) as Variable<number | undefined>,
    metricsHost: vars.string(`${prefix}_METRICS_HOST`, {
      default: '127.0.0.1',
      description: 'Interface of the metrics listener: loopback by default; a private interface for a Prometheus elsewhere, never a public one',
    }),
  };
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

async function handle(metrics: ServiceMetrics, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== METRICS_PATH) return answer(res, 404, 'not found: the metrics are at /metrics\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
  try {
    const body = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    answer(res, 500, 'metrics unavailable\n');
  }
}

/**
 * Opens the metrics listener (and adds the process and runtime metrics to the registry). The service's app
 * closes it when it closes (installHttpMetrics). Resolves once listening; `port` 0 picks a free port.
 */
export async function listenMetrics(metrics: ServiceMetrics, opts: { port: number; host: string }): Promise<MetricsEndpoint> {
  if (metrics.endpoint) throw new Error(`${metrics.service}: the metrics listener is already open`);
  metrics.collectDefaults();
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
    void handle(metrics, req, res);
  });
  // Prometheus keeps its connection between scrapes (15 s apart by default): kept 65 s, like the services'.
  server.keepAliveTimeout = 65_000;
  server.setTimeout(70_000, (socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | undefined;
  const endpoint: MetricsEndpoint = {
    url: `http://${hostPart}:${port}${METRICS_PATH}`,
    port,
    host: opts.host,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => {
        if (metrics.endpoint === endpoint) metrics.endpoint = undefined;
      });
      return closing;
    },
  };
  metrics.endpoint = endpoint;
  return endpoint;
}

/**
 * A started service's metrics listener, when its config asks for one (`<SERVICE>_METRICS_PORT` set); logs
 * where. The start functions call it once the service listens; the app closes it when it closes.
 */
export async function serveMetrics(app: App, config: { metricsPort?: number; metricsHost: string }): Promise<MetricsEndpoint | undefined> {
  const metrics = metricsOf(app);
  if (config.metricsPort === undefined || !metrics) return undefined;
  const endpoint = await listenMetrics(metrics, { port: config.metricsPort, host: config.metricsHost });
  app.log.info({ url: endpoint.url }, `metrics on ${endpoint.url}`);
  return endpoint;
}
