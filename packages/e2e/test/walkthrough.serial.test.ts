// docs/walkthrough.md runs as written: `npm start` on the fixed ports, then every ```sh block of the document
// (except the one that installs and starts) in one bash, in order, from the repository root, with curl and jq.
// Skipped when a port is taken or curl/jq are missing (.ci/run installs them).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatabase, type TestDatabase } from '@platform/kit/testing';
import { eventually } from '../src/index.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** The shell blocks of the walkthrough, the install-and-start block left out (the test starts the platform). */
export function walkthroughScript(markdown: string): string {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.filter((b) => !/^npm (ci|start)/m.test(b)).join('\n');
}

describe('docs/walkthrough.md', async () => {
  const free = (await Promise.all([3004, 8443, 9443].map(portFree))).every(Boolean);
  const tools = has('curl') && has('jq');
  const skip = !free ? 'ports 3004/8443/9443 are in use' : !tools ? 'curl or jq is missing' : false;
  let child: ChildProcess | undefined;
  let out = '';
  const schemas: TestDatabase[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-walkthrough-'));

  before(async () => {
    if (skip) return;
    const storage: Record<string, string> = {};
    if (process.env.DATABASE_URL) {
      for (const svc of ['registry', 'auth', 'social']) schemas.push(await testDatabase(svc));
      Object.assign(storage, { REGISTRY_DB_SCHEMA: schemas[0].schema, AUTH_DB_SCHEMA: schemas[1].schema, SOCIAL_DB_SCHEMA: schemas[2].schema });
    }
    const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env;
    if (process.env.DATABASE_URL) Object.assign(storage, { DATABASE_URL: process.env.DATABASE_URL }, process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {});
    child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      env: { ...env, ...storage, DATA_DIR: dir, LOG_LEVEL: 'warn', AUTH_PASSWORD_MEMORY_KIB: '1024', AUTH_PASSWORD_TIME_COST: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    await eventually('the platform is up', async () => {
      if (child!.exitCode !== null) throw new Error(`npm start exited: ${out}`);
      return out.includes('Ctrl-C stops everything') ? true : undefined;
    }, 1200, 100);
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    for (const s of schemas) await s.drop();
  });

  it('every command runs and shows what the text says', { skip }, async () => {
    const script = walkthroughScript(readFileSync(path.join(root, 'docs/walkthrough.md'), 'utf8'));
    assert.ok(script.includes('curl') && script.includes('ws-demo.mjs'), 'the walkthrough blocks were found');
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const bash = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: root, env: { ...process.env, DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      bash.stdout.on('data', (c) => (stdout += c));
      bash.stderr.on('data', (c) => (stderr += c));
      bash.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    assert.equal(run.status, 0, `the walkthrough failed:\n${run.stderr}\n--- stdout ---\n${run.stdout.slice(-4000)}\n--- platform ---\n${out.slice(-4000)}`);
    // What the comments promise: the rich presence seen by a friend in the same game, the socket's chat
    // frame, the guest upgraded, and Bob gone from Ada's friends.
    assert.match(run.stdout, /"activity": "Qualifying lap"/);
    assert.match(run.stdout, /"sameGame": true/);
    assert.match(run.stdout, /"type":"chatMessage".*hello over the socket/);
    assert.match(run.stdout, /^false$/m, 'is_guest is false after the link');
    assert.match(run.stdout, /"status": "deleted"/);
    // The SDK section: a guest made through the SDK with the client key, and Ada seeing Carol's request.
    assert.match(run.stdout, /^sdk: Carol#\d{4} asked .+#\d{4} to be friends$/m);
    assert.match(run.stdout, /^"Carol#\d{4}"$/m);
  });
});
