/**
 * One service definition (docs/architecture.md): every service says what it is once, with `defineService`, and the
 * kit builds, starts and stops all of them the same way.
 *
 *   - `build(config, deps)` is the service's buildApp (routes, context); the kit then starts its `workers` and stops
 *     them when the app closes, so tests that build an app get the same background work as production;
 *   - `start(env, options)` reads the config, opens the stores (PostgreSQL or PGlite, migrated; Redis or memory),
 *     lets the service `prepare` what only a started service has (master key file, TLS material), builds, listens,
 *     serves metrics, runs `afterListen`, and returns one shape: `{ name, app, url, metricsUrl, close }`;
 *   - `close()` stops in one order: the app (workers first, then connections drain), then the stores;
 *   - `runMain(definition)` is every service's main.ts: a config error exits 2 with its message, any other failure 1.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { App } from './app-type.js';
import { ConfigError, deprecatedNamesInUse, type Env, type Variable } from './config.js';
import { migrate, openDatabase, type DatabasePooler } from './db.js';
import type { Database } from './db-types.js';
import { serveMetrics } from './metrics-listener.js';
import type { EmbeddedPostgres } from './pglite.js';
import { openStateStore, stateStoreOptions } from './state/store.js';
import type { StateStore } from './state/types.js';

/** Background work of a service (sweepers, purges, outbox delivery, subscriptions): started after build, stopped on close. */
export interface Worker {
  readonly name: string;
  start(): void | Promise<void>;
  /** Takes no new work and waits for the work in progress. */
  stop(): void | Promise<void>;
}

interface WorkerLog {
  warn(obj: object, msg: string): void;
}

/**
 * A pass every `everyMs` (the timer does not keep the process alive). A pass still running when the next is due is
 * not started twice; a failed pass is logged and the next one runs as planned; `stop` waits for a running pass.
 */
export function periodicWorker(name: string, everyMs: number, pass: () => Promise<unknown>, log: WorkerLog): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = pass()
      .then(
        () => undefined,
        (err: unknown) => log.warn({ err: (err as Error).message, worker: name }, `${name} failed`),
      )
      .finally(() => {
        running = undefined;
      });
  };
  return {
    name,
    start() {
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The stores every service runs on; a service's deps extend them. */
export interface ServiceStores {
  db: Database;
  state: StateStore;
  /**
   * Where the services' notices travel (game credentials, …): `state` by default, which in production is the
   * Redis every service shares; npm start on memory passes one store all services share.
   */
  bus?: StateStore;
}

/** What `start` reads from every service's config. */
export interface ServiceConfigBase {
  dataDir: string;
  databaseUrl?: string;
  databasePoolSize: number;
  /** DATABASE_POOLER: 'transaction' behind PgBouncer in transaction mode (kit db.ts). */
  databasePooler?: DatabasePooler;
  schema: string;
  redisUrl?: string;
  redisClusterNodes?: string[];
  redisSentinels?: string[];
  redisSentinelName?: string;
  redisKeyPrefix?: string;
  host: string;
  metricsPort?: number;
  metricsHost: string;
  /** HTTP_SHUTDOWN_GRACE_MS: how long requests in flight may run on shutdown (kit connection-drain.ts). */
  httpShutdownGraceMs?: number;
}

/** What `prepare` hands to `build`: the config to build with, the deps beyond the stores, what to log once built. */
export interface Prepared<B, D> {
  config: B;
  deps: Omit<D, keyof ServiceStores>;
  /** Logged once the app has its logger: a generated key file in use, where the certificate is, … */
  log?: { level: 'info' | 'warn'; msg: string; fields?: object }[];
}

export interface StartOptions {
  /** The process's shared PGlite (npm start), used instead of DATA_DIR/<name>/pg. */
  embedded?: EmbeddedPostgres;
  /** See ServiceStores.bus. */
  bus?: StateStore;
  /** False (hosted with other services, tests): the caller stops the service with close(). */
  handleSignals?: boolean;
  /** The port instead of the service's own (tests, npm start's REGISTRY_PORT); 0: any free port. */
  port?: number;
  /** False: built, not listening (tests through app.inject). */
  listen?: boolean;
}

/** One running service, the same shape for all three. */
export interface RunningService<A extends App = App, C = unknown> {
  name: string;
  app: A;
  config: C;
  /** Where it listens (http or https), undefined with `listen: false`. */
  url?: string;
  /** Its metrics endpoint, when <SERVICE>_METRICS_PORT is set. */
  metricsUrl?: string;
  /** Stops the workers, drains the connections, closes the stores. */
  close(): Promise<void>;
}

export interface ServiceDefinition<C extends ServiceConfigBase, B, D extends ServiceStores, A extends App> {
  name: string;
  /** env -> typed config; every problem reported at once (ConfigError). */
  readConfig(env: Env): C;
  /** Its settings as declared (kit config.ts): a deprecated name in use is logged at start. */
  settings?: Record<string, Variable<unknown>>;
  /** The service's migrations directory (one set for PostgreSQL and PGlite). */
  migrations: string;
  /** The port it listens on when the start options name none. */
  port(config: C): number;
  /** Whether it serves HTTPS (its URL's scheme). */
  https?(config: C): boolean;
  /** What only a started service has (key files, TLS material): the config and deps `build` takes. */
  prepare(config: C): Promise<Prepared<B, D>>;
  /** Routes and context: the app, not yet ready (the kit adds the workers' hooks, then readies it). */
  build(config: B, deps: D): Promise<A>;
  /** Its background work (started by the kit after build, stopped when the app closes). */
  workers?(app: A, config: B): Worker[];
  /** More listeners once the app listens (auth's internal mutual-TLS listener); closed before the app. */
  afterListen?(app: A, config: B, deps: D): Promise<void>;
}

export interface Service<C extends ServiceConfigBase, B, D extends ServiceStores, A extends App> {
  readonly definition: ServiceDefinition<C, B, D, A>;
  /** Builds the app and starts its workers (stopped when the app closes): tests and `start` alike. */
  build(config: B, deps: D): Promise<A>;
  /** `deps`: what a test puts in place of the service's own (auth's platform verifiers). */
  start(env?: Env, options?: StartOptions & { deps?: Partial<Omit<D, keyof ServiceStores>> }): Promise<RunningService<A, C>>;
}

/**
 * Starts the workers in order; when the app closes (after its connections drain, before the service's own close
 * hooks and its stores), stops them in reverse order. Call before the app is ready (Fastify takes no hook after).
 */
export async function runWorkers(app: App, workers: Worker[]): Promise<void> {
  const started: Worker[] = [];
  // onClose hooks run last registered first: this one, registered after the service's, runs before them.
  app.addHook('onClose', async () => {
    for (const w of started.splice(0).reverse()) {
      await Promise.resolve()
        .then(() => w.stop())
        .catch((err: unknown) => app.log.warn({ err: (err as Error).message, worker: w.name }, `${w.name} did not stop cleanly`));
    }
  });
  for (const w of workers) {
    await w.start();
    started.push(w);
  }
}

export function defineService<C extends ServiceConfigBase, B, D extends ServiceStores, A extends App>(
  definition: ServiceDefinition<C, B, D, A>,
): Service<C, B, D, A> {
  const build = async (config: B, deps: D): Promise<A> => {
    const app = await definition.build(config, deps);
    try {
      await runWorkers(app, definition.workers?.(app, config) ?? []);
      await app.ready();
    } catch (err) {
      await app.close();
      throw err;
    }
    return app;
  };

  async function start(env: Env = process.env, options: StartOptions & { deps?: Partial<Omit<D, keyof ServiceStores>> } = {}): Promise<RunningService<A, C>> {
    const config = definition.readConfig(env);
    const stores = await openStores(definition.name, definition.migrations, config, options.embedded);
    let app: A | undefined;
    const close = async () => {
      await app?.close();
      await stores.state.close();
      await stores.db.close();
    };
    try {
      const prepared = await definition.prepare(config);
      const deps = { ...prepared.deps, ...options.deps, db: stores.db, state: stores.state, bus: options.bus } as unknown as D;
      app = await build(prepared.config, deps);
      for (const line of prepared.log ?? []) app.log[line.level](line.fields ?? {}, line.msg);
      for (const warning of definition.settings ? deprecatedNamesInUse(definition.settings, env) : []) app.log.warn(warning);
      let url: string | undefined;
      let metricsUrl: string | undefined;
      if (options.listen !== false) {
        await app.listen({ port: options.port ?? definition.port(config), host: config.host });
        const { port } = app.server.address() as AddressInfo;
        url = `${definition.https?.(config) ? 'https' : 'http'}://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;
        metricsUrl = (await serveMetrics(app, config))?.url;
        await definition.afterListen?.(app, prepared.config, deps);
      }
      const running: RunningService<A, C> = { name: definition.name, app, config, url, metricsUrl, close };
      // Past the drain (HTTP_SHUTDOWN_GRACE_MS) and the stores' close, the process exits anyway.
      if (options.handleSignals !== false && options.listen !== false) stopOnSignals(running, (config.httpShutdownGraceMs ?? 10_000) + 5_000);
      return running;
    } catch (err) {
      await close().catch(() => {});
      throw err;
    }
  }

  return { definition, build, start };
}

/** PostgreSQL (DATABASE_URL) or PGlite (the shared one, or DATA_DIR/<name>/pg), migrated; Redis (REDIS_URL) or memory. */
async function openStores(name: string, migrations: string, config: ServiceConfigBase, embedded?: EmbeddedPostgres): Promise<ServiceStores> {
  const db = await openDatabase({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    pooler: config.databasePooler,
    dataDir: path.join(config.dataDir, name, 'pg'),
    schema: config.schema,
    embedded,
  });
  try {
    await migrate(db, migrations);
    return { db, state: await openStateStore(stateStoreOptions(config)) };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** SIGTERM or SIGINT: close (workers, connections, stores), then exit; past `deadlineMs`, exit anyway. */
function stopOnSignals(running: RunningService<App, unknown>, deadlineMs: number): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    running.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), deadlineMs);
    force.unref();
    try {
      await running.close();
      process.exit(0);
    } catch (err) {
      running.app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/** Every service's main.ts: start from the environment; a config error exits 2 with its message, any other failure 1. */
export async function runMain(service: { definition: { name: string }; start(env?: Env): Promise<unknown> }, env: Env = process.env): Promise<void> {
  try {
    await service.start(env);
  } catch (err) {
    const name = service.definition.name;
    if (err instanceof ConfigError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${name}: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}
