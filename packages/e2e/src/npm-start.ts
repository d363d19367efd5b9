/**
 * `npm start` as the serial tests run it: scripts/start.mjs, as `npm start` runs it (the build when current, else the
 * sources through tsx), on the fixed ports, a fresh
 * DATA_DIR, cheap password hashing; with DATABASE_URL (CI) each service in a fresh schema (dropped by `stop`),
 * with Redis when REDIS_URL is set (under a fresh REDIS_KEY_PREFIX, deleted by `stop`). Resolves once the start banner is printed.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { dropRedisPrefix, testDatabase, withoutDevelopmentCondition, type TestDatabase } from '@platform/kit/testing';
import { eventually } from './platform.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface NpmStart {
  /** Everything the platform printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

export async function startNpmStart(dataDir: string, extraEnv: Record<string, string> = {}): Promise<NpmStart> {
  const storage: Record<string, string> = {};
  const schemas: TestDatabase[] = [];
  if (process.env.DATABASE_URL) {
    for (const svc of ['registry', 'auth', 'social']) schemas.push(await testDatabase(svc));
    Object.assign(storage, { REGISTRY_DB_SCHEMA: schemas[0].schema, AUTH_DB_SCHEMA: schemas[1].schema, SOCIAL_DB_SCHEMA: schemas[2].schema });
    // A fresh key prefix: a run never sees an earlier run's rate windows (the same mailbox address, the same IP).
    const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `npm-start-${randomUUID()}:` } : {};
    Object.assign(storage, { DATABASE_URL: process.env.DATABASE_URL }, redis);
  }
  const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env;
  // As `npm start` runs: the test run's `--conditions=development` would send the build's imports to the sources.
  env.NODE_OPTIONS = withoutDevelopmentCondition(env.NODE_OPTIONS);
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...env, ...storage, DATA_DIR: dataDir, LOG_LEVEL: 'warn', AUTH_PASSWORD_MEMORY_KIB: '1024', AUTH_PASSWORD_TIME_COST: '1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    for (const s of schemas) await s.drop();
    if (storage.REDIS_URL) await dropRedisPrefix(storage.REDIS_URL, storage.REDIS_KEY_PREFIX);
  };
  try {
    await eventually('the platform is up', async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited: ${out}`);
      return out.includes('Ctrl-C stops everything') ? true : undefined;
    }, 1200, 100);
  } catch (err) {
    await stop();
    throw err;
  }
  return { output: () => out, stop };
}
