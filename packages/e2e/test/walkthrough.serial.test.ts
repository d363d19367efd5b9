// docs/walkthrough.md runs as written: `npm start` on the fixed ports, then every ```sh block of the document
// (except the one that installs and starts) in one bash, in order, from the repository root, with curl and jq.
// Skipped when a port is taken or curl/jq are missing (.ci/run installs them).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNpmStart, type NpmStart } from '../src/index.js';

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
  const tools = has('curl') && has('jq') && has('openssl') && has('python3');
  // The browser section runs Debian's Chromium: CI must have it (REQUIRE_CHROMIUM=1), a developer machine may not.
  const browser = has('chromium') || process.env.REQUIRE_CHROMIUM === '1';
  const skip = !free
    ? 'ports 3004/8443/9443 are in use'
    : !tools
      ? 'curl, jq, openssl or python3 is missing'
      : !browser
        ? 'chromium is missing (apt-get install chromium; REQUIRE_CHROMIUM=1 makes this a failure)'
        : false;
  let platform: NpmStart | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-walkthrough-'));
  const output = () => platform?.output() ?? '';

  before(async () => {
    if (skip) return;
    // In CI the walkthrough's npm start runs on PostgreSQL, where CORS has no localhost default (the embedded start a
    // reader runs allows localhost origins): its browser section's page origin is allowed explicitly.
    platform = await startNpmStart(dir, { CORS_ALLOWED_ORIGINS: 'http://localhost:8081' });
  });
  after(async () => {
    await platform?.stop();
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
    assert.equal(run.status, 0, `the walkthrough failed:\n${run.stderr}\n--- stdout ---\n${run.stdout.slice(-4000)}\n--- platform ---\n${output().slice(-4000)}`);
    // What the comments promise: the rich presence seen by a friend in the same game, the socket's chat
    // frame, the guest upgraded, and Bob gone from Ada's friends.
    assert.match(run.stdout, /"activity": "Qualifying lap"/);
    assert.match(run.stdout, /"sameGame": true/);
    assert.match(run.stdout, /"type":"chatMessage".*hello over the socket/);
    assert.match(run.stdout, /^false$/m, 'is_guest is false after the link');
    assert.match(run.stdout, /"status": "deleted"/);
    // The password reset read from the local mailbox: Ada's address confirmed, her sessions ended, the code spent,
    // the new password signs in.
    assert.match(run.stdout, /"email": "ada@example.com",\s*"verified": true,\s*"changed": false/);
    assert.match(run.stdout, /^Subject: Game Platform: reset your password$/m);
    assert.match(run.stdout, /"sessions_revoked": 1/);
    assert.match(run.stdout, /^"invalid_token"$/m);
    assert.match(run.stdout, /^"email_token_used"$/m);
    assert.match(run.stdout, /^true$/m);
    // The SDK section: a guest made through the SDK with the client key, and Ada seeing Carol's request.
    assert.match(run.stdout, /^sdk: Carol#\d{4} asked .+#\d{4} to be friends$/m);
    assert.match(run.stdout, /^"Carol#\d{4}"$/m);
    // The browser section: the same SDK bundled for a page on its own origin, run by headless Chromium.
    assert.match(run.stdout, /^browser: Dana#\d{4} asked .+#\d{4} to be friends; socket open$/m);
    assert.match(run.stdout, /^"Dana#\d{4}"$/m);
  });
});
