// Shared test setup: a registry over a per-file database, state store and blob directory (kit serviceHarness).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import type { App, Database, StateStore } from '@platform/kit';
import { bearer, perSuite, serviceHarness, type HarnessPrepareInput } from '@platform/kit/testing';
import { FsBlobStore, registryService, type AppConfig, type RegistryConfig, type AppDeps } from '../src/index.js';

export { assertError, bearer } from '@platform/kit/testing';

export const ADMIN_EMAIL = 'root@example.test';
export const ADMIN_PASSWORD = 'admin-password-123';

/** What every test registry runs with: the super-admin, a master key, limits out of the way. */
const TEST_ENV = { REGISTRY_ADMIN_EMAIL: ADMIN_EMAIL, REGISTRY_ADMIN_PASSWORD: ADMIN_PASSWORD };
// Tests sign many developers up and in from one address; the limits have their own test.
const NO_LIMITS: Partial<AppConfig> = { rateRegisterPerIp: 100_000, rateLoginPerIp: 100_000, rateLoginPerIpEmail: 100_000, rateLoginMfaPerIp: 100_000 };

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
  const masterKey = randomBytes(32);
  const prepare =
    (more: Partial<AppConfig>) =>
    ({ config: read, dataDir }: HarnessPrepareInput<RegistryConfig>) => ({
      config: { ...read, masterKey, ...NO_LIMITS, ...config, ...more },
      deps: { blobs: new FsBlobStore(path.join(dataDir, 'blobs')) },
    });
  const h = await serviceHarness(registryService, { env: TEST_ENV, deps: { announce: () => {}, ...deps }, prepare: prepare({}) });
  return {
    app: h.app,
    db: h.db,
    state: h.state,
    blobDir: path.join(h.dataDir, 'blobs'),
    config: h.built,
    build: (more = {}, moreDeps = {}) => h.node({}, { deps: moreDeps, prepare: prepare(more) }),
    drop: () => h.close(),
  };
}

/** The suite's harness (kit perSuite): built before its tests, dropped after them. */
export const useHarness = (...args: Parameters<typeof harness>): Harness => perSuite(() => harness(...args), (h) => h.drop());

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
