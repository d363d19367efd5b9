// The real process: `main.ts` on port 0 (embedded stores in a temporary DATA_DIR), a socket connected, then
// SIGTERM: the socket is closed with 1001 and the process exits 0 (no socket keeps it alive).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ISSUER, startKeySet, type KeySet } from '../support.js';
import { connect } from './support.js';
import { nodeCommand } from '@platform/kit/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('realtime: SIGTERM on the real process', () => {
  let keys: KeySet;
  let child: ChildProcess;
  let dir: string;
  let port = 0;
  let output = '';

  before(async () => {
    keys = await startKeySet();
    dir = mkdtempSync(path.join(tmpdir(), 'social-sigterm-'));
    const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env;
    const command = nodeCommand('packages/social/src/main.ts', {
      ...rest,
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SOCIAL__LISTEN__PORT: '0',
      SOCIAL__TLS__MODE: 'http',
      SOCIAL__AUTH__JWKSURL: keys.url,
      SOCIAL__AUTH__ISSUER: ISSUER,
    });
    child = spawn(process.execPath, command.args, {
      cwd: root,
      env: command.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    for (let i = 0; !port; i++) {
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) port = Number(m[1]);
      else if (child.exitCode !== null || i > 1200) throw new Error(`social did not start: ${output}`);
      else await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('closes sockets with 1001 and exits 0', async () => {
    const token = await keys.sign('acct-sigterm');
    const c = await connect(`ws://127.0.0.1:${port}/v1/ws`, token, { via: 'subprotocol' });
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal((await c.closed).code, 1001);
    assert.equal(await exited, 0, output);
    assert.ok(!output.includes(token), 'the token reached the logs');
  });
});
