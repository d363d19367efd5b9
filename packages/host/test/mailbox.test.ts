// npm start's embedded defaults: without AUTH_SMTP_URL auth's mail is written to DATA_DIR/mailbox (the host says
// where), and a password reset works from the file alone, as the walkthrough does it with shell tools.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requestJson } from '@platform/kit';
import { startHost, type RunningHost } from '../src/index.js';
import { embeddedHostEnv } from './support.js';

/** The mail's text as written: quoted-printable soft breaks joined, =XX decoded (ASCII mail). */
const quotedPrintable = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('npm start (embedded): the local mailbox', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-mailbox-'));
  let host: RunningHost;
  let ca: string;
  let auth: string;
  const call = (p: string, body: unknown) => requestJson('POST', auth + p, { body, ca, timeoutMs: 30_000 });

  before(async () => {
    const { env, authPort, registryPort } = await embeddedHostEnv(dir, 'host-mailbox-admin');
    host = await startHost(env, { registryPort, log: () => {} });
    ca = readFileSync(host.caFile, 'utf8');
    auth = `https://127.0.0.1:${authPort}`;
  });
  after(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mail goes to DATA_DIR/mailbox; the reset code in the file resets the password', async () => {
    assert.equal(host.mailbox, path.join(dir, 'mailbox'));
    const email = 'mailbox-player@example.test';
    assert.equal((await call('/register', { email, password: 'the first long passphrase' })).status, 201);
    assert.equal((await call('/password/reset-request', { email })).status, 202);
    let file: string | undefined;
    for (let i = 0; i < 200 && !file; i++) {
      file = readdirSync(host.mailbox!, { withFileTypes: true }).find((f) => f.name.includes('-password_reset-'))?.name;
      if (!file) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(file, 'the reset mail was written');
    const token = /^reset code: (\S+)$/m.exec(quotedPrintable(readFileSync(path.join(host.mailbox!, file), 'utf8')))?.[1];
    assert.ok(token);
    const reset = await call('/password/reset', { token, password: 'the second long passphrase' });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal((await call('/login', { email, password: 'the second long passphrase' })).status, 200);
  });
});
