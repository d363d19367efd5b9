/**
 * An auth node process with its mutual-TLS listener (AUTH_INTERNAL_MTLS_PORT): started from the environment as
 * production starts it, a caller with a listed client certificate gets a server token there, and SIGTERM closes
 * both listeners and exits 0.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { testCertificateAuthority } from '@platform/kit/testing';
import { freePort, skipWithoutSharedStores, startAuthCluster, type AuthCluster, onSuiteStores } from '../src/index.js';

const skip = skipWithoutSharedStores();

describe('auth node: the mutual-TLS listener', { skip }, () => {
  let cluster: AuthCluster;
  let mtlsPort: number;
  let client: { cert: string; key: string };

  onSuiteStores('cl_mtls', 10, {
    async start(suite) {
      const ca = await testCertificateAuthority('Internal CA');
      client = await ca.client('game-server');
      mtlsPort = await freePort();
      const caFile = path.join(process.env.TMPDIR ?? '/tmp', `internal-ca-${process.pid}.pem`);
      writeFileSync(caFile, ca.cert);
      cluster = await startAuthCluster({
        nodes: 1,
        ...suite,
        env: { AUTH_INTERNAL_MTLS_PORT: String(mtlsPort), AUTH_INTERNAL_MTLS_CA_FILE: caFile, AUTH_INTERNAL_MTLS_CALLERS: 'game-server' },
      });
    },
    async stop() {
      await cluster?.close();
    },
  });

  const serverToken = (withCert: boolean) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port: mtlsPort, path: '/internal/server-token', method: 'POST', ca: cluster.ca, agent: false, ...(withCert ? client : {}) },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('serves a listed client certificate, refuses a handshake without one, and exits 0 on SIGTERM', async () => {
    const r = await serverToken(true);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sub, 'service:game-server');
    assert.deepEqual(r.body.roles, ['server']);
    await assert.rejects(serverToken(false));
    assert.equal(await cluster.nodes[0].stop(), 0);
    // Both listeners are gone with the process.
    await assert.rejects(serverToken(true));
  });
});
