// `npm start` (scripts/start.ts, started by e2e startNpmStart): the three services in one process on their fixed ports, wired by the
// script alone (certificates, registry → auth, auth outbox → social). Skipped when a port is taken.
// With DATABASE_URL set (CI) the services use PostgreSQL, each in a fresh schema (dropped afterwards), and Redis;
// otherwise the embedded defaults.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { client, eventually, startNpmStart, type NpmStart } from '../src/index.js';

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });

describe('npm start', async () => {
  const free = (await Promise.all([3004, 8443, 9443].map(portFree))).every(Boolean);
  let platform: NpmStart | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-start-'));
  const output = () => platform?.output() ?? '';

  before(async () => {
    if (!free) return;
    platform = await startNpmStart(dir, { HOST: '127.0.0.1' });
  });
  after(async () => {
    await platform?.stop();
  });

  it('wires the services: register-user through auth, deletion through the outbox to social', { skip: !free && 'ports 3004/8443/9443 are in use' }, async () => {
    const out = output();
    assert.match(out, /Generated password \(shown only this once\): \S+/);
    assert.match(out, /docs: https:\/\/localhost:9443\/docs/);
    assert.equal(statSync(path.join(dir, 'internal-keys.json')).mode & 0o777, 0o600);
    const password = /Generated password \(shown only this once\): (\S+)/.exec(out)![1];
    const registry = client('http://127.0.0.1:3004');
    // One CA file, printed at start, verifies both services.
    const caFile = path.join(dir, 'ca/ca-cert.pem');
    assert.ok(out.includes(`trust this one CA file for auth and social: ${caFile}`), out);
    // Without AUTH_SMTP_URL, auth's mail goes to DATA_DIR/mailbox, and the console says so.
    assert.ok(out.includes(`each message is written to ${path.join(dir, 'mailbox')}`), out);
    const ca = readFileSync(caFile).toString();
    const auth = client('https://127.0.0.1:8443', ca);
    const social = client('https://127.0.0.1:9443', ca);

    const admin = await registry.call('POST', '/developers/login', { body: { Email: 'admin@localhost', Password: password } });
    assert.equal(admin.status, 200);
    const g = await registry.call('POST', '/games', { token: admin.body.Token, body: { DisplayName: 'Started' } });
    const api = { 'x-platform-api-key': g.body.Game.ApiKey, 'x-platform-api-secret': g.body.ApiSecret };
    const guest = await auth.call('POST', '/guest', { body: { device_fingerprint: 'npm-start-device-1' } });
    const reg = await registry.call('POST', '/games/register-user', { headers: api, body: { UserId: guest.body.account_id } });
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    const byEmail = await registry.call('POST', '/games/register-user', { headers: api, body: { Email: 'start@example.com', Password: 'a long enough passphrase' } });
    assert.equal(byEmail.status, 200, JSON.stringify(byEmail.body));
    assert.equal(byEmail.body.AccountCreated, true);

    const other = await auth.call('POST', '/guest', { body: { device_fingerprint: 'npm-start-device-2' } });
    const pa = (await social.call('GET', '/v1/me', { token: guest.body.access_token })).body.publicId;
    const pb = (await social.call('GET', '/v1/me', { token: other.body.access_token })).body.publicId;
    await social.call('POST', '/v1/friends/requests', { token: guest.body.access_token, body: { toPublicId: pb } });
    assert.equal((await social.call('POST', `/v1/friends/requests/${pa}/accept`, { token: other.body.access_token })).status, 200);
    assert.equal((await auth.call('DELETE', '/account', { token: other.body.access_token })).status, 202);
    await eventually('erased in social', async () => {
      const f = await social.call('GET', '/v1/friends', { token: guest.body.access_token });
      return f.body.length === 0 ? true : undefined;
    });
  });

  it('prints the console URL and serves it; auth and social allow its origin (CORS)', { skip: !free && 'ports 3004/8443/9443 are in use' }, async () => {
    const out = output();
    assert.match(out, /console {2}http:\/\/localhost:3004\/console\//);
    const page = await fetch('http://127.0.0.1:3004/console/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /connect-src 'self' https:\/\/localhost:8443 https:\/\/localhost:9443/);
    const config = await (await fetch('http://127.0.0.1:3004/console/config.json')).json();
    assert.deepEqual(config, { authUrl: 'https://localhost:8443', socialUrl: 'https://localhost:9443', idleMinutes: 15 });
    const ca = readFileSync(path.join(dir, 'ca/ca-cert.pem')).toString();
    for (const [url, p] of [['https://127.0.0.1:8443', '/login'], ['https://127.0.0.1:9443', '/v1/moderation/reports']]) {
      const pre = await client(url, ca).call('OPTIONS', p, {
        headers: { origin: 'http://localhost:3004', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      assert.equal(pre.headers['access-control-allow-origin'], 'http://localhost:3004', `${url} allows the console (on PostgreSQL too)`);
    }
  });
});
