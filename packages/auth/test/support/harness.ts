/** A migrated auth app on its own schema and key prefix (PGlite + memory, or PostgreSQL + Redis in CI): kit serviceHarness. */
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import { later, perSuite, serviceHarness, type TestDatabase, type TestStateStore } from '@platform/kit/testing';
import type { Env, TlsMaterial } from '@platform/kit';
import type { AuthApp } from '../../src/app.js';
import { authService } from '../../src/service.js';
import type { AuthConfig } from '../../src/config.js';
import type { PlatformVerifiers } from '../../src/services/platform.js';
import { startSmtpServer, type TestSmtpServer } from './smtp.js';

export { assertAppError, assertError, bearer } from '@platform/kit/testing';

/** Cheap Argon2 for tests that are not about the password parameters. */
// Mail jobs at once: only enumeration.test.ts is about their random start.
export const FAST_ENV: Env = { AUTH_PASSWORD_MEMORY_KIB: '1024', AUTH_PASSWORD_TIME_COST: '1', AUTH_MAIL_DEFER_MAX_MS: '0', LOG_LEVEL: 'silent' };

export interface Harness {
  app: AuthApp;
  config: AuthConfig;
  tdb: TestDatabase;
  tstate: TestStateStore;
  /** Another node on the same database and state store. */
  node(env?: Env): Promise<AuthApp>;
  close(): Promise<void>;
}

export async function harness(
  env: Env = {},
  deps: { logStream?: DestinationStream; tls?: TlsMaterial; platformVerifiers?: PlatformVerifiers } = {},
): Promise<Harness> {
  const h = await serviceHarness(authService, { env: { ...FAST_ENV, AUTH_MASTER_KEY: randomBytes(32).toString('hex'), AUTH_NODE_ID: 'node-a', ...env }, deps });
  let nodes = 1;
  return {
    app: h.app,
    config: h.config,
    tdb: h.tdb,
    tstate: h.tstate,
    // Other nodes share the verifiers, not the log stream or the TLS material.
    node: (extra = {}) => h.node({ AUTH_NODE_ID: `node-${++nodes}`, ...extra }, { deps: { logStream: undefined, tls: undefined } }),
    close: () => h.close(),
  };
}

/** The suite's harness (kit perSuite): started before its tests, closed after them. */
export const useHarness = (...args: Parameters<typeof harness>): Harness => perSuite(() => harness(...args));

/** The suite's harness mailing through a test SMTP server (AUTH_SMTP_URL): both started before its tests, closed after. */
export function useMailHarness(env: Env = {}, smtpLogin?: Parameters<typeof startSmtpServer>[0]): { h: Harness; smtp: TestSmtpServer } {
  const s = perSuite(
    async () => {
      const smtp = await startSmtpServer(smtpLogin);
      return { smtp, h: await harness({ AUTH_SMTP_URL: smtp.url, ...env }) };
    },
    async ({ h, smtp }) => {
      await h.close();
      await smtp.close();
    },
  );
  return { h: later(() => s.h), smtp: later(() => s.smtp) };
}

let fp = 0;
export const fingerprint = () => `device-${process.pid}-${++fp}-${randomBytes(4).toString('hex')}`;

export async function guest(app: AuthApp, body: Record<string, unknown> = {}) {
  const r = await app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fingerprint(), ...body } });
  if (r.statusCode !== 200) throw new Error(`guest: ${r.statusCode} ${r.body}`);
  return r.json() as { access_token: string; refresh_token: string; expires_in: number; account_id: string; guest_secret: string };
}

let emails = 0;
export const email = () => `player${++emails}-${randomBytes(3).toString('hex')}@example.test`;
export const GOOD_PASSWORD = 'correct horse battery staple 42';

export async function register(app: AuthApp, e = email(), password = GOOD_PASSWORD) {
  const r = await app.inject({ method: 'POST', url: '/register', payload: { email: e, password } });
  if (r.statusCode !== 201) throw new Error(`register: ${r.statusCode} ${r.body}`);
  return { ...(r.json() as { access_token: string; refresh_token: string; account_id: string }), email: e, password };
}

/** How many audit entries of `event` the account has. */
export async function auditCount(h: Harness, accountId: string, event: string): Promise<number> {
  const r = await h.tdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE account_id = $1 AND event = $2`, [accountId, event]);
  return r.rows[0].n;
}

/** A registered account given these roles, signed in again so its tokens carry them (`token`: the access token). */
export async function withRoles(h: Harness, roles: string[]) {
  const u = await register(h.app);
  await h.tdb.db.query(`UPDATE accounts SET roles = $2::text[] WHERE id = $1`, [u.account_id, roles]);
  const login = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
  if (login.statusCode !== 200) throw new Error(`login: ${login.statusCode} ${login.body}`);
  const pair = login.json() as { access_token: string; refresh_token: string };
  return { ...u, ...pair, token: pair.access_token };
}
