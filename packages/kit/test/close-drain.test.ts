// A closing service is not held open by its clients (connection-drain.ts): connections that never carried a
// request are cut at once, a request in flight may finish within HTTP_SHUTDOWN_GRACE_MS, and one that does not is
// cut then. The connection timeouts are left at their defaults (60 s idle): any socket still open after
// GIVE_UP_MS is one the close was waiting for.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closedByServer, GIVE_UP_MS } from './support.js';
import { createService, loadOrCreateTls, tls13Options, readConfig, commonVars, type App } from '../src/index.js';

/** app.close(), or a rejection if it has not finished after GIVE_UP_MS. */
function closeApp(app: App): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('app.close() was still waiting')), GIVE_UP_MS);
    app.close().then(() => {
      clearTimeout(timer);
      resolve();
    }, reject);
  });
}

async function service(opts: { https?: boolean; graceMs?: number } = {}): Promise<{ app: App; port: number; release: () => void }> {
  const https = opts.https ? { https: tls13Options(await loadOrCreateTls({ dir: mkdtempSync(path.join(tmpdir(), 'kit-drain-')) })) } : {};
  const app = await createService({
    name: 'demo',
    fieldCase: 'camel',
    logLevel: 'silent',
    timeouts: opts.graceMs ? { httpShutdownGraceMs: opts.graceMs } : {},
    server: https,
  });
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  app.get('/slow', { config: { access: 'public' } }, async (req) => {
    const ms = Number((req.query as { ms?: string }).ms);
    await Promise.race([held, new Promise((r) => setTimeout(r, ms))]);
    return { done: true };
  });
  app.get('/stuck', { config: { access: 'public' } }, async () => {
    await held;
    return { done: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, release };
}

const connected = (s: net.Socket, event: 'connect' | 'secureConnect') =>
  new Promise<void>((resolve, reject) => s.once(event, resolve).once('error', reject));

describe('closing a service with clients connected', () => {
  it('cuts at once a TLS connection that never sent a request, and one that never finished its handshake', async () => {
    const { app, port } = await service({ https: true, graceMs: 60_000 });
    const silent = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await connected(silent, 'secureConnect');
    const raw = net.connect(port, '127.0.0.1');
    await connected(raw, 'connect');
    const gone = [closedByServer(silent), closedByServer(raw)];
    await closeApp(app);
    await Promise.all(gone);
  });

  it('cuts at once a plain connection that never sent a request, and closes an idle keep-alive one', async () => {
    const { app, port } = await service({ graceMs: 60_000 });
    const silent = net.connect(port, '127.0.0.1');
    await connected(silent, 'connect');
    const keptAlive = net.connect(port, '127.0.0.1');
    await connected(keptAlive, 'connect');
    const answered = new Promise<void>((r) => keptAlive.once('data', () => r()));
    keptAlive.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    const gone = [closedByServer(silent), closedByServer(keptAlive)];
    await answered;
    await closeApp(app);
    assert.match(await gone[1]!, /^HTTP\/1\.1 200 OK/);
    await gone[0];
  });

  it('lets a request in flight finish within the grace period', async () => {
    const { app, port } = await service({ https: true, graceMs: 5000 });
    const s = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await connected(s, 'secureConnect');
    const answer = closedByServer(s);
    s.write('GET /slow?ms=300 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await new Promise((r) => setTimeout(r, 50));
    await closeApp(app);
    const got = await answer;
    assert.match(got, /^HTTP\/1\.1 200 OK[\s\S]*"done":true/);
  });

  it('cuts a request still running when the grace period ends', async () => {
    const { app, port, release } = await service({ graceMs: 200 });
    const s = net.connect(port, '127.0.0.1');
    await connected(s, 'connect');
    const answer = closedByServer(s);
    s.write('GET /stuck HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise((r) => setTimeout(r, 50));
    await closeApp(app);
    assert.equal(await answer, '', 'the stuck request got no response: its connection was cut');
    release();
  });

  it('reads HTTP_SHUTDOWN_GRACE_MS (default 10 s)', () => {
    assert.equal(readConfig(commonVars, {}).httpShutdownGraceMs, 10_000);
    assert.equal(readConfig(commonVars, { HTTP_SHUTDOWN_GRACE_MS: '2500' }).httpShutdownGraceMs, 2500);
  });
});
