// The kit's service definition (service.ts): workers started after build and stopped on close, one start shape,
// the stores closed after the app, periodic passes that never overlap, and main's exit codes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, createService, defineService, openDatabase, periodicWorker, type App, type ServiceStores, type Worker } from '../src/index.js';
import { serviceHarness, testDatabasePooler } from '../src/testing.js';

const MIGRATIONS = path.join(import.meta.dirname, 'fixtures', 'slow-migrations');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function logCollector() {
  const warnings: { obj: object; msg: string }[] = [];
  return { warnings, warn: (obj: object, msg: string) => void warnings.push({ obj, msg }) };
}

function testService(opts: { workers?: (events: string[]) => Worker[]; dataDir: string; schema: string }) {
  const events: string[] = [];
  const service = defineService<{ dataDir: string; databaseUrl?: string; databasePoolSize: number; databasePooler?: 'none' | 'transaction'; schema: string; host: string; metricsHost: string }, { dataDir: string }, ServiceStores & { label?: string }, App>({
    name: 'sample',
    readConfig: (env) => {
      if (env.SAMPLE_BAD) throw new ConfigError(['SAMPLE_BAD is not a setting']);
      // PostgreSQL when the suite has one (a schema of its own, dropped after), else PGlite under dataDir.
      return { dataDir: opts.dataDir, databaseUrl: process.env.DATABASE_URL, databasePoolSize: 1, databasePooler: testDatabasePooler(), schema: opts.schema, host: '127.0.0.1', metricsHost: '127.0.0.1' };
    },
    migrations: MIGRATIONS,
    port: () => 0,
    prepare: async (config) => ({ config: { dataDir: config.dataDir }, deps: { label: 'prepared' }, log: [{ level: 'warn', msg: 'a generated key is in use' }] }),
    async build(_config, deps) {
      const app = await createService({ name: 'sample', fieldCase: 'camel', logLevel: 'silent' });
      app.get('/label', { config: { access: 'public' } }, async () => ({ label: deps.label, rows: (await deps.db.query('SELECT count(*)::int AS n FROM slow_passes')).rows[0] }));
      app.addHook('onClose', async () => void events.push('service close hook'));
      return app;
    },
    workers: () => opts.workers?.(events) ?? [],
  });
  return { service, events };
}

/** A worker that records its start and stop in `events`. */
const recording = (name: string, events: string[]): Worker => ({ name, start: () => void events.push(`${name} started`), stop: () => void events.push(`${name} stopped`) });

/** Runs `fn` with a fresh data directory and schema name, both removed after. */
async function inDataDir(fn: (dataDir: string, schema: string) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kit-service-'));
  const schema = `kit_service_${randomBytes(4).toString('hex')}`;
  try {
    await fn(dataDir, schema);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (process.env.DATABASE_URL) {
      const db = await openDatabase({ url: process.env.DATABASE_URL, poolSize: 1, schema, pooler: testDatabasePooler() });
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.close();
    }
  }
}

describe('serviceHarness', () => {
  it('builds the definition on migrated test stores with the test\'s prepare; nodes share the stores; close stops the apps, then the stores', () =>
    inDataDir(async (dataDir, schema) => {
      const { service, events } = testService({ dataDir, schema, workers: (ev) => [recording('w', ev)] });
      const h = await serviceHarness(service, { prepare: ({ config }) => ({ config: { dataDir: config.dataDir }, deps: { label: 'from the test' } }) });
      assert.deepEqual((await h.request('GET', '/label')).body, { label: 'from the test', rows: { n: 0 } });
      const node = await h.node({}, { deps: { label: 'another node' } });
      assert.deepEqual((await node.inject({ method: 'GET', url: '/label' })).json(), { label: 'another node', rows: { n: 0 } });
      await h.close();
      assert.deepEqual(events, ['w started', 'w started', 'w stopped', 'service close hook', 'w stopped', 'service close hook']);
      await assert.rejects(h.db.query('SELECT 1'));
    }));
});

describe('defineService', () => {
  it('start: migrated stores, prepared deps, one shape; close stops the workers before the service hooks, then the stores', () =>
    inDataDir(async (dataDir, schema) => {
      const { service, events } = testService({ dataDir, schema, workers: (ev) => [recording('first', ev), recording('second', ev)] });
      const running = await service.start({}, { handleSignals: false });
      assert.deepEqual(Object.keys(running).sort(), ['app', 'close', 'config', 'metricsUrl', 'name', 'url']);
      assert.equal(running.name, 'sample');
      assert.match(running.url!, /^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${running.url}/label`);
      assert.deepEqual(await res.json(), { label: 'prepared', rows: { n: 0 } });
      await running.close();
      assert.deepEqual(events, ['first started', 'second started', 'second stopped', 'first stopped', 'service close hook']);
      await assert.rejects(fetch(`${running.url}/label`));
    }));

  it('build: a worker that fails to start stops the ones started and closes the app; the error reaches the caller', () =>
    inDataDir(async (dataDir, schema) => {
      const { service, events } = testService({
        dataDir,
        schema,
        workers: (ev) => [
          recording('ok', ev),
          {
            name: 'broken',
            start: () => {
              throw new Error('no subscription');
            },
            stop: () => void ev.push('broken stopped'),
          },
        ],
      });
      await assert.rejects(service.start({}, { handleSignals: false }), /no subscription/);
      assert.deepEqual(events, ['ok started', 'ok stopped', 'service close hook']);
    }));

  it('a config error comes out of start as the ConfigError, before anything is opened', () =>
    inDataDir(async (dataDir, schema) => {
      const { service } = testService({ dataDir, schema });
      await assert.rejects(service.start({ SAMPLE_BAD: '1' }, { handleSignals: false }), ConfigError);
    }));
});

describe('periodicWorker', () => {
  it('never runs two passes at once, logs a failed pass and goes on, and stop waits for the running pass', async () => {
    const log = logCollector();
    let running = 0;
    let maxRunning = 0;
    let passes = 0;
    let finished = 0;
    const worker = periodicWorker(
      'slow pass',
      10,
      async () => {
        passes++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(35);
        running--;
        finished++;
        if (passes === 1) throw new Error('first pass fails');
      },
      log,
    );
    worker.start();
    await sleep(120);
    await worker.stop();
    const afterStop = passes;
    assert.equal(maxRunning, 1);
    assert.ok(passes >= 2, `passes: ${passes}`);
    assert.equal(finished, passes, 'stop waited for the pass in progress');
    assert.equal(log.warnings.length, 1);
    assert.equal(log.warnings[0].msg, 'slow pass failed');
    await sleep(40);
    assert.equal(passes, afterStop, 'no pass after stop');
  });
});

describe('runMain', () => {
  const run = (code: string) =>
    spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', cwd: import.meta.dirname });
  const entry = (start: string) =>
    `import { runMain, ConfigError } from '${path.join(import.meta.dirname, '..', 'src', 'index.ts')}';\nawait runMain({ definition: { name: 'sample' }, start: async () => { ${start} } });`;

  it('a config error: exit 2 and its message, named by the service', () => {
    const r = run(entry(`throw new ConfigError(['SAMPLE_PORT must be a number']);`));
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^sample: invalid configuration:\n +SAMPLE_PORT must be a number\n$/);
  });

  it('any other failure: exit 1, "failed to start" and why', () => {
    const r = run(entry(`throw new Error('database unreachable');`));
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^sample: failed to start: Error: database unreachable/);
  });
});
