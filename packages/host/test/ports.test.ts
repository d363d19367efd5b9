// npm start on ports of its own (issue 25, item 15): REGISTRY_PORT moves the registry, and with AUTH_PORT and
// SOCIAL_PORT set every URL the platform prints or sends follows — the issuer (which social accepts), mail links, the
// device flow's verification_uri, the discovery documents and each service's OpenAPI servers entry.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import https from 'node:https';
import path from 'node:path';
import { ConfigError, requestJson } from '@platform/kit';
import { startHost, type RunningHost } from '../src/index.js';
import { embeddedHostEnv } from './support.js';

/** A form post (the device flow's endpoints take application/x-www-form-urlencoded). */
function form(url: string, body: string, ca?: string): Promise<{ status: number; body: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'POST', ca: ca ?? caText, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
let caText = '';

describe('npm start (embedded): the ports it runs on', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-ports-'));
  let host: RunningHost;
  let ca: string;
  let ports: { authPort: number; socialPort: number; registryPort: number };
  const get = (url: string, token?: string) => requestJson('GET', url, { ca, timeoutMs: 30_000, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) => requestJson('POST', url, { body, ca, timeoutMs: 30_000, headers });

  before(async () => {
    const prepared = await embeddedHostEnv(dir, 'host-ports-admin');
    ports = prepared;
    // The registry's port from the environment, as a developer sets it (no test-only option).
    host = await startHost({ ...prepared.env, REGISTRY_PORT: String(prepared.registryPort) }, { log: () => {} });
    ca = readFileSync(host.caFile, 'utf8');
    caText = ca;
  });
  after(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('REGISTRY_PORT moves the registry; the printed URLs and each OpenAPI servers entry name the ports in use', async () => {
    const { authPort, socialPort, registryPort } = ports;
    assert.deepEqual(host.urls, { auth: `https://localhost:${authPort}`, registry: `http://localhost:${registryPort}`, social: `https://localhost:${socialPort}` });
    assert.equal(host.consoleUrl, `http://localhost:${registryPort}/console/`);
    const registry = await get(`http://127.0.0.1:${registryPort}/openapi.json`);
    assert.equal(registry.status, 200);
    assert.equal(registry.body.servers[0].url, `http://localhost:${registryPort}`);
    assert.equal((await get(`https://127.0.0.1:${authPort}/openapi.json`)).body.servers[0].url, `https://localhost:${authPort}`);
    assert.equal((await get(`https://127.0.0.1:${socialPort}/openapi.json`)).body.servers[0].url, `https://localhost:${socialPort}`);
  });

  it("auth's issuer, discovery, device verification_uri and mail links follow AUTH_PORT; social accepts its tokens", async () => {
    const { authPort, socialPort } = ports;
    const base = `https://localhost:${authPort}`;
    const meta = await get(`https://127.0.0.1:${authPort}/.well-known/oauth-authorization-server`);
    assert.equal(meta.body.issuer, base);
    assert.ok(Object.values(meta.body).filter((v) => typeof v === 'string' && v.startsWith('https://')).every((v) => (v as string).startsWith(base)), JSON.stringify(meta.body));
    const device = await form(`https://127.0.0.1:${authPort}/oauth/device_authorization`, 'client_id=tv');
    assert.equal(device.status, 200, JSON.stringify(device.body));
    assert.equal(device.body.verification_uri, `${base}/device`);

    const email = 'ports-player@example.test';
    const reg = await post(`https://127.0.0.1:${authPort}/register`, { email, password: 'a long enough passphrase' });
    assert.ok(reg.status === 201 || reg.status === 202, JSON.stringify(reg.body));
    assert.equal((await post(`https://127.0.0.1:${authPort}/password/reset-request`, { email })).status, 202);
    let mail: string | undefined;
    for (let i = 0; i < 200 && !mail; i++) {
      const file = readdirSync(host.mailbox!).find((f) => f.includes('-password_reset-'));
      if (file) mail = readFileSync(path.join(host.mailbox!, file), 'utf8').replace(/=\r?\n/g, '');
      else await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(mail?.includes(`${base}/email-link/reset-password`), mail);
    assert.ok(!mail?.includes('localhost:8443'));

    const guest = await post(`https://127.0.0.1:${authPort}/guest`, { device_fingerprint: 'ports-device-1' });
    assert.equal(guest.status, 200, JSON.stringify(guest.body));
    const me = await get(`https://127.0.0.1:${socialPort}/v1/me`, guest.body.access_token);
    assert.equal(me.status, 200, JSON.stringify(me.body));
  });

  it('REGISTRY_PORT that is not a port stops the start with a message naming it', async () => {
    await assert.rejects(startHost({ REGISTRY_PORT: '30o4', DATA_DIR: dir }, { log: () => {} }), (err: unknown) => err instanceof ConfigError && /REGISTRY_PORT/.test(err.message));
  });
});
