/**
 * The three services in one process on real sockets: auth over HTTPS (TLS 1.3,
 * its own self-signed certificate), social over HTTPS (its own certificate),
 * the registry over HTTP — each on its own database schema (PostgreSQL when
 * DATABASE_URL is set, in-memory PGlite otherwise) and its own state-store
 * prefix (so auth and social share no pub/sub channel, as with the embedded
 * defaults: key_rotation has to travel through the outbox). The registry
 * publishes its game credential notices on social's store, as npm start and a
 * shared Redis do. `socialNodes` > 1 starts more social nodes on the same
 * database and state (their own connections on PostgreSQL and Redis).
 *
 * Wiring is the one `npm start` does: registry → auth (REGISTRY_AUTH_URL,
 * CA, internal key), auth outbox → social (/v1/internal/auth-events, CA),
 * social → auth key set (CA) and → registry (validate-key).
 */
import { mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadOrCreateTls,
  migrate,
  openDatabase,
  openStateStore,
  requestJson,
  tls13Options,
  type App,
  type Database,
  type Env,
  type JsonResponse,
  type StateStore,
  type TlsMaterial,
} from '@platform/kit';
import { freePort, testDatabase, testStateStore, type TestDatabase, type TestStateStore } from '@platform/kit/testing';
import { buildApp as buildAuth, migrateAuth, readAuthConfig, type AuthApp } from '@platform/auth';
import { buildApp as buildRegistry, FsBlobStore, MIGRATIONS_DIR as REGISTRY_MIGRATIONS, readRegistryConfig } from '@platform/registry';
import { buildApp as buildSocial, readSocialConfig, type SocialApp } from '@platform/social';

const SOCIAL_MIGRATIONS = fileURLToPath(new URL('../../social/migrations', import.meta.url));

export const ADMIN_EMAIL = 'root@e2e.test';
export const ADMIN_PASSWORD = 'e2e-admin-password';
export const ISSUER = 'https://auth.e2e.test';
export const AUDIENCE = 'game-platform';

export { freePort };

/**
 * A free port held by a listener until `release()`: the social port must be known before auth starts (its outbox
 * target), and a port only looked up could be taken by a parallel test in the seconds before social listens.
 */
async function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  let released = false;
  return {
    port,
    async release() {
      if (released) return;
      released = true;
      await new Promise((r) => srv.close(r));
    },
  };
}

export interface Client {
  url: string;
  call(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string>; token?: string }): Promise<JsonResponse>;
}

export function client(url: string, ca?: string): Client {
  return {
    url,
    call(method, p, opts = {}) {
      const headers = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      return requestJson(method, url + p, { body: opts.body, headers, ca, timeoutMs: 15_000 });
    },
  };
}

export interface Platform {
  dir: string;
  authTls: TlsMaterial;
  socialTls: TlsMaterial;
  internalKey: string;
  /** The moderation tool's key in auth's AUTH_INTERNAL_KEYS (name `moderation`: social's moderation notices). */
  moderationKey: string;
  auth: Client & { app: AuthApp };
  registry: Client & { app: App };
  social: Client;
  socialUrl: string;
  /** Auth's database (tests grant roles in SQL: `UPDATE accounts SET roles = …`). */
  authDb: Database;
  /** Social's database (tests count its profiles). */
  socialDb: Database;
  /** Every social node (the first is `social`), with its URL; `socialNodes` of the options. */
  socialNodes: (Client & { url: string })[];
  /** Stops the social service (its data stays); the auth outbox then fails and retries. `abrupt`: every connection cut at once. */
  stopSocial(opts?: { abrupt?: boolean }): Promise<void>;
  /** Starts the social service again on the same port and data. */
  startSocial(): Promise<void>;
  socialRunning(): boolean;
  /**
   * Another social node on the same database and state store (its own connections on PostgreSQL and Redis,
   * the same stores in memory), on a free port; closed with the platform.
   */
  addSocialNode(): Promise<SocialNode>;
  close(): Promise<void>;
}

export interface SocialNode extends Client {
  app: SocialApp;
  close(): Promise<void>;
}

export interface PlatformOptions {
  authEnv?: Env;
  socialEnv?: Env;
  /** Leave the social service stopped at first (startSocial() later). */
  socialStopped?: boolean;
  /** Social nodes (default 1); the others on the same database and state store. */
  socialNodes?: number;
  /**
   * Social on auth's state store (the same Redis prefix, or the same memory store): auth's channels
   * (auth:key_rotation, auth:revocation) reach social, as with one shared Redis in production.
   */
  sharedBus?: boolean;
  /** The registry's port (default: any free one); a browser test needs its origin before auth and social start (CORS). */
  registryPort?: number;
  /** More registry settings (e.g. REGISTRY_WEBAUTHN_ORIGINS for a browser test's passkeys). */
  registryEnv?: Env;
}

/** Auth's other internal callers: social (its account checks) and a moderation tool. */
type InternalKeys = { social: string; moderation: string };
type Stores = { db: TestDatabase['db']; state: TestStateStore['state'] };
type Tls = Awaited<ReturnType<typeof loadOrCreateTls>>;

/** Auth on a free port, its outbox aimed at social's (future) address. */
async function startAuth(o: { dir: string; stores: Stores; tls: Tls; internalKey: string; keys: InternalKeys; socialUrl: string; socialTls: Tls; env?: Env }) {
  const { dir, stores, internalKey, socialUrl, socialTls } = o;
  await migrateAuth(stores.db);
  const authConfig = readAuthConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dir,
    AUTH_MASTER_KEY: randomBytes(32).toString('hex'),
    AUTH_PASSWORD_MEMORY_KIB: '1024',
    AUTH_PASSWORD_TIME_COST: '1',
    AUTH_ISSUER: ISSUER,
    AUTH_AUDIENCE: AUDIENCE,
    AUTH_INTERNAL_KEYS: `registry:${internalKey},social:${o.keys.social},moderation:${o.keys.moderation}`,
    AUTH_OUTBOX_TARGETS: `${socialUrl}/v1/internal/auth-events`,
    AUTH_OUTBOX_CA_FILE: socialTls.certPath,
    AUTH_OUTBOX_POLL_MS: '200',
    AUTH_OUTBOX_MAX_BACKOFF_SECONDS: '1',
    ...o.env,
  });
  // Platform providers come from authEnv (AUTH_STORE_B_* …), verified for real.
  const authApp = await buildAuth(authConfig, { ...stores, tls: o.tls });
  await authApp.listen({ port: 0, host: '127.0.0.1' });
  const authUrl = `https://127.0.0.1:${(authApp.server.address() as AddressInfo).port}`;
  return { authApp, authUrl };
}

/** The registry on a free port, registering players with auth. */
async function startRegistry(o: { dir: string; stores: Stores; bus: StateStore; authUrl: string; socialUrl: string; authTls: Tls; internalKey: string; port?: number; env?: Env }) {
  const { dir, stores, bus, authUrl, authTls, internalKey } = o;
  await migrate(stores.db, REGISTRY_MIGRATIONS);
  const regConfig = readRegistryConfig({
    LOG_LEVEL: 'silent',
    REGISTRY_ADMIN_EMAIL: ADMIN_EMAIL,
    REGISTRY_ADMIN_PASSWORD: ADMIN_PASSWORD,
    REGISTRY_AUTH_URL: authUrl,
    REGISTRY_AUTH_CA_FILE: authTls.certPath,
    REGISTRY_AUTH_INTERNAL_KEY: internalKey,
    // The web console (docs/console.md) reaches auth and social where this platform listens.
    REGISTRY_CONSOLE_AUTH_URL: authUrl,
    REGISTRY_CONSOLE_SOCIAL_URL: o.socialUrl,
    ...o.env,
  });
  const registryApp = await buildRegistry(
    { ...regConfig, masterKey: randomBytes(32) },
    { ...stores, bus, blobs: new FsBlobStore(path.join(dir, 'blobs')), announce: () => {} },
  );
  await registryApp.listen({ port: o.port ?? 0, host: '127.0.0.1' });
  const registryUrl = `http://127.0.0.1:${(registryApp.server.address() as AddressInfo).port}`;
  return { registryApp, registryUrl };
}

/** Another social node on the same stores: its own connections on PostgreSQL and Redis, the same objects in memory. */
async function startSocialNode(d: TestDatabase, s: TestStateStore, config: ReturnType<typeof readSocialConfig>, tls: Tls): Promise<SocialNode> {
  const db = d.url ? await openDatabase({ url: d.url, schema: d.schema, poolSize: 3, pooler: d.pooler }) : d.db;
  const state = s.url ? await openStateStore({ url: s.url, prefix: s.prefix }) : s.state;
  const app = await buildSocial(config, { db, state, https: tls13Options(tls) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...client(`https://127.0.0.1:${(app.server.address() as AddressInfo).port}`, tls.cert),
    app,
    async close() {
      await app.close();
      if (state !== s.state) await state.close();
      if (db !== d.db) await db.close();
    },
  };
}

/** Social's settings: auth's key set and CA, the registry, social's internal key at auth. */
function socialSettings(o: { authUrl: string; authTls: Tls; registryUrl: string; internalKey: string; env?: Env }) {
  return readSocialConfig({
    LOG_LEVEL: 'silent',
    SOCIAL__AUTH__JWKSURL: `${o.authUrl}/.well-known/jwks.json`,
    SOCIAL__AUTH__CAFILE: o.authTls.certPath,
    SOCIAL__AUTH__ISSUER: ISSUER,
    SOCIAL__AUTH__AUDIENCE: AUDIENCE,
    SOCIAL__REGISTRY__URL: o.registryUrl,
    SOCIAL_AUTH_INTERNAL_KEY: o.internalKey,
    ...o.env,
  });
}

/** A database and a state store for each service, opened together (an embedded PGlite takes seconds to start). */
async function openStores() {
  const dbs: TestDatabase[] = [];
  const states: TestStateStore[] = [];
  const opened: Record<string, { d: TestDatabase; s: TestStateStore }> = {};
  const stores = async (name: string) => {
    const d = await testDatabase(name);
    const s = await testStateStore();
    dbs.push(d);
    states.push(s);
    opened[name] = { d, s };
    return { db: d.db, state: s.state };
  };
  const [authStores, regStores, socialStores] = await Promise.all([stores('auth'), stores('registry'), stores('social')]);
  return { dbs, states, opened, authStores, regStores, socialStores };
}

export async function startPlatform(opts: PlatformOptions = {}): Promise<Platform> {
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-e2e-'));
  const authTls = await loadOrCreateTls({ dir: path.join(dir, 'auth-tls') });
  const socialTls = await loadOrCreateTls({ dir: path.join(dir, 'social-tls') });
  const internalKey = randomBytes(24).toString('base64url');
  const keys: InternalKeys = { social: randomBytes(24).toString('base64url'), moderation: randomBytes(24).toString('base64url') };
  const socialReservation = await reservePort();
  const socialPort = socialReservation.port;
  const socialUrl = `https://127.0.0.1:${socialPort}`;
  const { dbs, states, opened, authStores, regStores, socialStores } = await openStores();

  const { authApp, authUrl } = await startAuth({ dir, stores: authStores, tls: authTls, internalKey, keys, socialUrl, socialTls, env: opts.authEnv });
  // The registry's notices go to social's store: its own connection on Redis, the same object in memory. With
  // `sharedBus` social's store is auth's (auth's channels reach social too).
  const socialState = opts.sharedBus ? opened.auth.s : opened.social.s;
  const sameState = () => (socialState.url ? openStateStore({ url: socialState.url, prefix: socialState.prefix }) : Promise.resolve(socialState.state));
  const closeIfOwn = async (s: StateStore) => {
    if (s !== socialState.state) await s.close();
  };
  const bus = await sameState();
  const { registryApp, registryUrl } = await startRegistry({ dir, stores: regStores, bus, authUrl, socialUrl, authTls, internalKey, port: opts.registryPort, env: opts.registryEnv });

  // social
  await migrate(socialStores.db, SOCIAL_MIGRATIONS);
  if (opts.sharedBus) socialStores.state = await sameState();
  const socialConfig = socialSettings({ authUrl, authTls, registryUrl, internalKey: keys.social, env: opts.socialEnv });
  let socialApp: App | undefined;
  const startSocial = async () => {
    if (socialApp) return;
    const app = await buildSocial(socialConfig, { ...socialStores, https: tls13Options(socialTls) });
    await socialReservation.release();
    await app.listen({ port: socialPort, host: '127.0.0.1' });
    socialApp = app;
  };
  const stopSocial = async (o: { abrupt?: boolean } = {}) => {
    const app = socialApp;
    socialApp = undefined;
    const closing = app?.close();
    // A network drop rather than a drain: every connection is cut at once (the clients see 1006, not 1001).
    if (o.abrupt) app?.server.closeAllConnections();
    await closing;
  };
  if (!opts.socialStopped) await startSocial();
  const more = await startMoreSocial(opts.socialNodes ?? 1, socialConfig, socialTls, opened.social.d, sameState, closeIfOwn);
  const extraNodes: SocialNode[] = [];
  const addSocialNode = async () => {
    const node = await startSocialNode(opened.social.d, socialState, socialConfig, socialTls);
    extraNodes.push(node);
    return node;
  };

  return {
    dir,
    authTls,
    socialTls,
    internalKey,
    moderationKey: keys.moderation,
    auth: { ...client(authUrl, authTls.cert), app: authApp },
    registry: { ...client(registryUrl), app: registryApp },
    authDb: authStores.db,
    socialDb: socialStores.db,
    social: client(socialUrl, socialTls.cert),
    socialUrl,
    socialNodes: [{ ...client(socialUrl, socialTls.cert), url: socialUrl }, ...more.nodes],
    stopSocial,
    startSocial,
    socialRunning: () => socialApp !== undefined,
    addSocialNode,
    async close() {
      for (const n of extraNodes) await n.close();
      await more.close();
      await stopSocial();
      await socialReservation.release();
      if (opts.sharedBus) await closeIfOwn(socialStores.state);
      await registryApp.close();
      await closeIfOwn(bus);
      await authApp.close();
      for (const s of states) await s.drop();
      for (const d of dbs) await d.drop();
    },
  };
}

/** Social nodes 2…n on the database and state of the first (their own connections on PostgreSQL and Redis). */
async function startMoreSocial(
  n: number,
  config: ReturnType<typeof readSocialConfig>,
  tls: Tls,
  db: TestDatabase,
  sameState: () => Promise<StateStore>,
  closeIfOwn: (s: StateStore) => Promise<void>,
) {
  const apps: { app: App; state: StateStore; db: TestDatabase['db'] }[] = [];
  const nodes: (Client & { url: string })[] = [];
  for (let i = 1; i < n; i++) {
    const state = await sameState();
    const pool = db.url ? await openDatabase({ url: db.url, schema: db.schema, poolSize: 3, pooler: db.pooler }) : db.db;
    const app = await buildSocial(config, { db: pool, state, https: tls13Options(tls) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    apps.push({ app, state, db: pool });
    const url = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    nodes.push({ ...client(url, tls.cert), url });
  }
  return {
    nodes,
    async close() {
      for (const a of apps) {
        await a.app.close();
        await closeIfOwn(a.state);
        if (a.db !== db.db) await a.db.close();
      }
    },
  };
}

/** Polls until check() returns a value (not undefined); fails after `tries` × `everyMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, tries = 150, everyMs = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`never happened: ${what}`);
}
