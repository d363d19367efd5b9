// Connection timeouts on real listening servers: partial headers, a silent connection (plain and after the TLS
// handshake), an unfinished TLS handshake and an idle keep-alive connection are all closed by the server.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closedByServer } from './support.js';
import { createService, loadOrCreateTls, tls13Options, readConfig, commonVars, ConfigError, type App, type HttpTimeouts } from '../src/index.js';

// Short limits so the test runs quickly; the server closes within 1.5 × each limit.
const SHORT: HttpTimeouts = { httpHeadersTimeoutMs: 300, httpRequestTimeoutMs: 600, httpKeepAliveTimeoutMs: 300, httpIdleTimeoutMs: 400, tlsHandshakeTimeoutMs: 300, httpShutdownGraceMs: 300 };

async function listen(app: App): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

describe('connection timeouts (plain HTTP)', () => {
  let app: App;
  let port: number;
  before(async () => {
    app = await createService({ name: 'demo', fieldCase: 'camel', logLevel: 'silent', timeouts: SHORT });
    port = await listen(app);
  });
  after(() => app.close());

  it('closes a connection that sends half its headers', async () => {
    const s = net.connect(port, '127.0.0.1');
    s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const got = await closedByServer(s);
    assert.match(got, /^HTTP\/1\.1 408|^$/);
  });

  it('closes a connection that sends nothing', async () => {
    await closedByServer(net.connect(port, '127.0.0.1'));
  });

  it('closes an idle keep-alive connection after its response', async () => {
    const s = net.connect(port, '127.0.0.1');
    s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    const got = await closedByServer(s);
    assert.match(got, /^HTTP\/1\.1 200 OK/);
    assert.match(got, /keep-alive/i);
  });

  it('closes a request whose body never finishes', async () => {
    const s = net.connect(port, '127.0.0.1');
    s.write('POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    // Keep trickling bytes so the idle timeout never fires: only the request timeout can end this.
    const trickle = setInterval(() => s.writable && s.write(' '), 50);
    try {
      await closedByServer(s);
    } finally {
      clearInterval(trickle);
    }
  });
});

describe('connection timeouts (TLS)', () => {
  let app: App;
  let port: number;
  before(async () => {
    const material = await loadOrCreateTls({ dir: mkdtempSync(path.join(tmpdir(), 'kit-tls-')) });
    app = await createService({ name: 'demo', fieldCase: 'camel', logLevel: 'silent', timeouts: SHORT, server: { https: tls13Options(material) } });
    port = await listen(app);
  });
  after(() => app.close());

  it('closes a connection that never starts the TLS handshake', async () => {
    await closedByServer(net.connect(port, '127.0.0.1'));
  });

  it('closes a connection that sends nothing after the TLS handshake', async () => {
    const s = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => s.once('secureConnect', resolve).once('error', reject));
    await closedByServer(s);
  });

  it('still serves a normal request', async () => {
    const s = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await new Promise<void>((resolve) => s.once('secureConnect', resolve));
    s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    assert.match(await closedByServer(s), /^HTTP\/1\.1 200 OK[\s\S]*"status":"ok"/);
  });
});

describe('connection timeout configuration', () => {
  it('reads HTTP_*_TIMEOUT_MS and TLS_HANDSHAKE_TIMEOUT_MS with documented defaults, and refuses headers > request', async () => {
    const c = readConfig(commonVars, { HTTP_HEADERS_TIMEOUT_MS: '5000', TLS_HANDSHAKE_TIMEOUT_MS: '2000' });
    assert.deepEqual(
      [c.httpHeadersTimeoutMs, c.httpRequestTimeoutMs, c.httpKeepAliveTimeoutMs, c.httpIdleTimeoutMs, c.tlsHandshakeTimeoutMs],
      [5000, 60_000, 65_000, 60_000, 2000],
    );
    assert.throws(() => readConfig(commonVars, { HTTP_IDLE_TIMEOUT_MS: 'soon' }), ConfigError);
    await assert.rejects(createService({ name: 'demo', fieldCase: 'camel', timeouts: { httpHeadersTimeoutMs: 9000, httpRequestTimeoutMs: 1000 } }), ConfigError);
  });
});
