/**
 * N social node processes sharing one schema and one Redis. By default they
 * run in server-to-server API-key mode over plain HTTP (behind a
 * TLS-terminating balancer), so they need no auth service; pass
 * `env.SOCIAL__AUTH__JWKSURL` (+ CAFILE) to verify real access tokens instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { ServiceNode, startNodesInOrder } from './node-process.js';
import { ClusterClient, type ClientOptions } from './client.js';
import { nodeEnv } from './auth-cluster.js';

export interface SocialClusterOptions {
  nodes: number;
  databaseUrl: string;
  /** One Redis; or `redis`, the variables naming any Redis (a suite's: suite.ts). */
  redisUrl?: string;
  redis?: Record<string, string>;
  schema: string;
  env?: Record<string, string>;
  /** Open each node's metrics listener (SOCIAL_METRICS_PORT) on a free port: `metricsUrls`. */
  metrics?: boolean;
}

export interface SocialCluster {
  nodes: ServiceNode[];
  /** Each node's Prometheus endpoint, with `metrics: true`. */
  metricsUrls: string[];
  apiKey: string;
  /** A client for node i whose requests act as `userId` (X-Api-Key + X-User-Id). */
  client(i: number, opts?: Omit<ClientOptions, 'baseUrl' | 'ca'>): ClusterClient;
  headers(userId: string, handle?: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startSocialCluster(opts: SocialClusterOptions): Promise<SocialCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'social-cluster-'));
  const apiKey = randomBytes(24).toString('hex');
  const nodes: ServiceNode[] = [];
  const metricsUrls: string[] = [];
  for (let i = 0; i < opts.nodes; i++) {
    const port = await freePort();
    const metricsPort = opts.metrics ? await freePort() : undefined;
    if (metricsPort) metricsUrls.push(`http://127.0.0.1:${metricsPort}/metrics`);
    nodes.push(
      new ServiceNode({
        name: `social-${i + 1}`,
        entry: 'packages/social/src/main.ts',
        port,
        protocol: 'http',
        env: {
          ...nodeEnv(dir, i, opts),
          SOCIAL__LISTEN__PORT: String(port),
          SOCIAL__TLS__MODE: 'http',
          SOCIAL__AUTH__APIKEY: apiKey,
          SOCIAL__DATABASE__SCHEMA: opts.schema,
          ...(metricsPort ? { SOCIAL_METRICS_PORT: String(metricsPort) } : {}),
          ...(opts.env ?? {}),
        },
      }),
    );
  }
  await startNodesInOrder(nodes, dir);
  const clients: ClusterClient[] = [];
  return {
    nodes,
    metricsUrls,
    apiKey,
    client(i, copts = {}) {
      const c = new ClusterClient({ ...copts, baseUrl: nodes[i].url });
      clients.push(c);
      return c;
    },
    headers: (userId, handle) => ({ 'x-api-key': apiKey, 'x-user-id': userId, ...(handle ? { 'x-user-handle': handle } : {}) }),
    async close() {
      for (const c of clients) c.close();
      await Promise.allSettled(nodes.map((n) => n.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
