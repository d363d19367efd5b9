/**
 * N auth node processes that form one service: the same master key, TLS
 * certificate, issuer, audience, database schema and Redis; each its own port
 * and AUTH_NODE_ID. Everything is in one temporary directory removed on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOrCreateTls } from '@platform/kit';
import { freePort } from './ports.js';
import { poolerFor } from './stores.js';
import { ServiceNode, startNodesInOrder } from './node-process.js';
import { ClusterClient, type ClientOptions } from './client.js';

export interface AuthClusterOptions {
  nodes: number;
  databaseUrl: string;
  /** One Redis; or `redis`, the variables naming any Redis (a suite's: suite.ts). */
  redisUrl?: string;
  redis?: Record<string, string>;
  /** PostgreSQL schema (AUTH_DB_SCHEMA). */
  schema: string;
  /** Extra variables for every node (rate limits, lockout numbers …). */
  env?: Record<string, string>;
  /** Prefix of AUTH_NODE_ID; nodes are `<prefix>-1`, `<prefix>-2` … */
  nodeIdPrefix?: string;
}

export interface AuthCluster {
  nodes: ServiceNode[];
  /** PEM of the shared self-signed certificate (trust it in clients and HAProxy). */
  ca: string;
  certPath: string;
  keyPath: string;
  dir: string;
  issuer: string;
  /** A retrying client for node i. */
  client(i: number, opts?: Omit<ClientOptions, 'baseUrl' | 'ca'>): ClusterClient;
  /** The environment node i runs with. */
  envOf(i: number): Record<string, string>;
  close(): Promise<void>;
}

/** Variables a child needs from the parent environment (no secrets: only the runtime's own). */
export function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'TZ', 'NODE_OPTIONS', 'TMPDIR'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return env;
}

/** What every node of any service gets: its own data dir, the shared stores, loopback, quiet logs. */
export function nodeEnv(dir: string, i: number, opts: { databaseUrl: string; redisUrl?: string; redis?: Record<string, string> }): Record<string, string> {
  return {
    ...baseEnv(),
    DATA_DIR: path.join(dir, `node-${i + 1}`),
    DATABASE_URL: opts.databaseUrl,
    // The shared PostgreSQL may be reached through PgBouncer in transaction mode (CI): the nodes are told so.
    ...(poolerFor(opts.databaseUrl) === 'transaction' ? { DATABASE_POOLER: 'transaction' } : {}),
    ...(opts.redis ?? { REDIS_URL: opts.redisUrl ?? '' }),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
}

export async function startAuthCluster(opts: AuthClusterOptions): Promise<AuthCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'auth-cluster-'));
  const tls = await loadOrCreateTls({ dir: path.join(dir, 'tls') });
  const keyPath = path.join(dir, 'tls', 'tls-key.pem');
  const masterKey = randomBytes(32).toString('hex');
  const issuer = 'https://auth.cluster.test';
  const prefix = opts.nodeIdPrefix ?? 'auth';
  const nodes: ServiceNode[] = [];
  for (let i = 0; i < opts.nodes; i++) {
    const port = await freePort();
    const env: Record<string, string> = {
      ...nodeEnv(dir, i, opts),
      AUTH_PORT: String(port),
      AUTH_NODE_ID: `${prefix}-${i + 1}`,
      AUTH_DB_SCHEMA: opts.schema,
      AUTH_MASTER_KEY: masterKey,
      AUTH_TLS_CERT_FILE: tls.certPath,
      AUTH_TLS_KEY_FILE: keyPath,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: 'game-platform',
      // Cheap hashes: the cluster tests measure agreement, not Argon2.
      AUTH_PASSWORD_MEMORY_KIB: '1024',
      AUTH_PASSWORD_TIME_COST: '1',
      AUTH_MAIL_DEFER_MAX_MS: '0',
      ...(opts.env ?? {}),
    };
    nodes.push(new ServiceNode({ name: `${prefix}-${i + 1}`, entry: 'packages/auth/src/main.ts', env, port, protocol: 'https', ca: tls.cert }));
  }
  // The first node migrates and creates the signing key; the rest start together.
  await startNodesInOrder(nodes, dir);
  const clients: ClusterClient[] = [];
  return {
    nodes,
    ca: tls.cert,
    certPath: tls.certPath,
    keyPath,
    dir,
    issuer,
    client(i, copts = {}) {
      const c = new ClusterClient({ ...copts, baseUrl: nodes[i].url, ca: tls.cert });
      clients.push(c);
      return c;
    },
    envOf: (i) => nodes[i].spec.env,
    async close() {
      for (const c of clients) c.close();
      await Promise.allSettled(nodes.map((n) => n.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
