// Shared test setup: a registry over a per-file database, state store and blob directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { migrate, type App, type Database, type StateStore } from '@platform/kit';
import { testDatabase, testStateStore, type TestDatabase, type TestStateStore } from '@platform/kit/testing';
import { buildApp, FsBlobStore, MIGRATIONS_DIR, readRegistryConfig, type AppConfig, type AppDeps } from '../src/index.js';

export const ADMIN_EMAIL = 'root@example.test';
export const ADMIN_PASSWORD = 'admin-password-123';

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    ...readRegistryConfig({ REGISTRY_ADMIN_EMAIL: ADMIN_EMAIL, REGISTRY_ADMIN_PASSWORD: ADMIN_PASSWORD, LOG_LEVEL: 'silent' }),
    masterKey: randomBytes(32),
    // Tests sign many developers up and in from one address; the limits have their own test.
    rateRegisterPerIp: 100_000,
    rateLoginPerIp: 100_000,
    rateLoginPerIpEmail: 100_000,
    ...overrides,
  };
}

export interface Harness {
  app: App;
  db: Database;
  state: StateStore;
  blobDir: string;
  config: AppConfig;
  /** Another app (another "node") over the same stores. */
  build(config?: Partial<AppConfig>, deps?: Partial<AppDeps>): Promise<App>;
  drop(): Promise<void>;
}

export async function harness(config: Partial<AppConfig> = {}, deps: Partial<AppDeps> = {}): Promise<Harness> {
  const t: TestDatabase = await testDatabase('registry');
  const s: TestStateStore = await testStateStore();
  await migrate(t.db, MIGRATIONS_DIR);
  const blobDir = mkdtempSync(path.join(tmpdir(), 'registry-blobs-'));
  const cfg = testConfig(config);
  const apps: App[] = [];
  const build = async (more: Partial<AppConfig> = {}, moreDeps: Partial<AppDeps> = {}) => {
    const app = await buildApp({ ...cfg, ...more }, { db: t.db, state: s.state, blobs: new FsBlobStore(blobDir), announce: () => {}, ...deps, ...moreDeps });
    apps.push(app);
    return app;
  };
  const app = await build();
  return {
    app,
    db: t.db,
    state: s.state,
    blobDir,
    config: cfg,
    build,
    async drop() {
      for (const a of apps) await a.close();
      await s.drop();
      await t.drop();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let counter = 0;
export const uniqueEmail = (name = 'dev') => `${name}.${process.pid}.${++counter}.${randomBytes(3).toString('hex')}@example.test`;

export interface Dev {
  token: string;
  id: string;
  email: string;
}

export async function registerDeveloper(app: App, email = uniqueEmail(), password = 'correct horse battery'): Promise<Dev> {
  const r = await app.inject({ method: 'POST', url: '/developers/register', payload: { Email: email, Password: password, DisplayName: 'Dev' } });
  assert.equal(r.statusCode, 201, r.body);
  return { token: r.json().Token, id: r.json().DeveloperId, email: r.json().Email };
}

export async function loginAdmin(app: App): Promise<Dev> {
  const r = await app.inject({ method: 'POST', url: '/developers/login', payload: { Email: ADMIN_EMAIL, Password: ADMIN_PASSWORD } });
  assert.equal(r.statusCode, 200, r.body);
  return { token: r.json().Token, id: r.json().DeveloperId, email: r.json().Email };
}

export interface CreatedGame {
  gameId: string;
  apiKey: string;
  apiSecret: string;
  clientKey: string;
}

export async function createGame(app: App, token: string, name = 'Game'): Promise<CreatedGame> {
  const r = await app.inject({ method: 'POST', url: '/games', headers: bearer(token), payload: { DisplayName: name } });
  assert.equal(r.statusCode, 201, r.body);
  return { gameId: r.json().Game.GameId, apiKey: r.json().Game.ApiKey, apiSecret: r.json().ApiSecret, clientKey: r.json().Game.ClientKey };
}

/** Asserts an error answer: status and stable code. */
export function assertError(r: { statusCode: number; json(): any; body: string }, status: number, code: string): any {
  assert.equal(r.statusCode, status, r.body);
  assert.equal(r.json().Code, code, r.body);
  return r.json();
}
