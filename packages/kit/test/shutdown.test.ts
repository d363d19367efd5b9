// SIGTERM (kit service.ts): in-flight requests finish, new connections are refused, workers stop, stores close, exit 0.
import { after, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../src/index.js';
import { testDatabasePooler } from '../src/testing.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

function get(port: number, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('graceful shutdown', () => {
  it('drains an in-flight request on SIGTERM, then refuses connections and exits 0', async () => {
    const schema = `kit_slow_${randomBytes(4).toString('hex')}`;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'slow-service.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SLOW_SCHEMA: schema },
    });
    after(async () => {
      if (!process.env.DATABASE_URL) return;
      const db = await openDatabase({ url: process.env.DATABASE_URL, poolSize: 1, schema, pooler: testDatabasePooler() });
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.close();
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Up to a minute to start: a loaded CI machine (tsx compiles the fixture) took more than 10 s once.
    for (let i = 0; i < 1200 && !/port=\d+/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const started = /port=(\d+)/.exec(out);
    if (!started) child.kill('SIGKILL');
    assert.ok(started, `the fixture did not start: ${out}`);
    const port = Number(started[1]);
    const inflight = get(port, '/slow');
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGTERM');
    const res = await inflight;
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { done: true });
    assert.equal(await exited, 0);
    // The request finished before the worker stopped; the app's own close hooks ran with the stores still open.
    const events = /events=(.*)/.exec(out)?.[1].split(',');
    assert.deepEqual(events, ['worker started', 'request done', 'worker stopped', 'app closed']);
    await assert.rejects(get(port, '/healthz'));
  });
});
