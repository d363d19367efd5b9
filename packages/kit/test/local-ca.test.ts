// The local certificate authority: one CA file a client trusts for every service; distinct subjects;
// an older data directory's self-signed pair is issued again by the CA.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadOrCreateLocalCa, loadOrCreateTls, tls13Options, type TlsMaterial } from '../src/index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'local-ca-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function serve(tls: TlsMaterial): Promise<{ port: number; close(): void }> {
  const server = https.createServer(tls13Options(tls), (_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

function get(port: number, ca: string | string[], host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    https.get({ host, port, path: '/', ca, servername: host === '127.0.0.1' ? undefined : host }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('local certificate authority', () => {
  it('issues each service a certificate with its own subject; one CA file verifies both over TLS 1.3', async () => {
    const ca = await loadOrCreateLocalCa(path.join(dir, 'ca'));
    assert.equal(statSync(path.join(dir, 'ca', 'ca-key.pem')).mode & 0o777, 0o600);
    const auth = await loadOrCreateTls({ dir: path.join(dir, 'auth'), ca, commonName: 'auth.platform.localhost' });
    const social = await loadOrCreateTls({ dir: path.join(dir, 'social'), ca, commonName: 'social.platform.localhost' });
    const a = new X509Certificate(auth.cert);
    const s = new X509Certificate(social.cert);
    assert.notEqual(a.subject, s.subject);
    assert.ok(a.checkIssued(new X509Certificate(ca.cert)) && s.checkIssued(new X509Certificate(ca.cert)));
    assert.equal(a.ca, false);
    const servers = [await serve(auth), await serve(social)];
    try {
      for (const srv of servers) {
        assert.equal(await get(srv.port, ca.cert), 'ok');
        assert.equal(await get(srv.port, ca.cert, 'localhost'), 'ok');
      }
    } finally {
      for (const srv of servers) srv.close();
    }
    // Reused on the next start.
    assert.equal((await loadOrCreateLocalCa(path.join(dir, 'ca'))).cert, ca.cert);
    assert.equal((await loadOrCreateTls({ dir: path.join(dir, 'auth'), ca })).generated, false);
  });

  it("issues an older data directory's self-signed pair again from the CA", async () => {
    const old = await loadOrCreateTls({ dir: path.join(dir, 'old') });
    assert.equal(old.generated, true);
    const ca = await loadOrCreateLocalCa(path.join(dir, 'ca'));
    const again = await loadOrCreateTls({ dir: path.join(dir, 'old'), ca, commonName: 'auth.platform.localhost' });
    assert.equal(again.generated, true);
    assert.ok(new X509Certificate(again.cert).checkIssued(new X509Certificate(ca.cert)));
    const srv = await serve(again);
    try {
      assert.equal(await get(srv.port, ca.cert), 'ok');
    } finally {
      srv.close();
    }
  });
});
