/**
 * One test harness for every service, built on its definition (service.ts): `serviceHarness` builds the service on
 * test stores; `perSuite` opens one for a suite; `request`, `bearer` and the error asserts are what every test repeats.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import type { App } from '../app-type.js';
import type { Env } from '../config.js';
import { migrate, openDatabase, type Database } from '../db.js';
import { AppError } from '../errors.js';
import type { Prepared, Service, ServiceConfigBase, ServiceStores } from '../service.js';
import { openStateStore, type StateStore } from '../state/index.js';
import { testDatabase, testStateStore, type TestDatabase, type TestStateStore } from './stores.js';

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
  /** The settings this node reads instead of the harness's (over testDefaults and its DATA_DIR). */
  env?: Env;
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
          db = await openDatabase({ url: tdb.url, schema: tdb.schema, poolSize: 3, pooler: tdb.pooler });
          closers.push(() => db.close());
        }
        if (o.ownConnections && tstate.url) {
          state = await openStateStore({ url: tstate.url, prefix: tstate.prefix });
          closers.push(() => state.close());
        }
        const base = o.env ? { ...testDefaults, DATA_DIR: dataDir, ...o.env } : env;
        return (await buildOn(definition.readConfig({ ...base, ...extra }), db, state, o)).app;
      },
      close,
    };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}

/**
 * A stand-in for an object that exists only later (once a suite's `before` ran): every property read goes to `get()`
 * (functions bound to it).
 */
export function later<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const current = get();
      const value = Reflect.get(current, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
}

/**
 * One harness for the tests of a suite: opened in a `before` hook, closed in an `after` hook (`close`, default
 * `close()`). Returns a stand-in that reads through to the harness once open (`later`), so a suite says only
 * `const h = perSuite(() => harness(env))`.
 */
export function perSuite<T extends object>(open: () => Promise<T>, close: (t: T) => unknown = (t) => (t as { close(): unknown }).close()): T {
  let current: T | undefined;
  before(async () => {
    current = await open();
  });
  after(async () => {
    if (current) await close(current);
  });
  return later(() => {
    if (!current) throw new Error("the suite's harness is not open yet");
    return current;
  });
}
