// Internal callers over mutual TLS: a second listener that requires a client certificate of the configured CA;
// the certificate's common name, when listed in AUTH_INTERNAL_MTLS_CALLERS, names the caller without a key.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, createAccessTokenVerifier, listenMutualTls, loadOrCreateTls, staticKeyResolver } from '@platform/kit';
import { testCertificateAuthority } from '@platform/kit/testing';
import { readAuthConfig } from '../src/config.js';
import { guest, harness, type Harness } from './support/harness.js';

const REGISTRY_KEY = 'registry-secret-0123456789';

describe('internal callers over mutual TLS', () => {
  let h: Harness;
  let mtls: Awaited<ReturnType<typeof listenMutualTls>>;
  let serverCa: string;
  let publicPort: number;
  let certs: Record<'matchmaking' | 'intruder' | 'foreign', { cert: string; key: string }>;
  const dir = mkdtempSync(path.join(tmpdir(), 'auth-mtls-'));

  before(async () => {
    const ours = await testCertificateAuthority('Internal CA');
    const theirs = await testCertificateAuthority('Some other CA');
    certs = { matchmaking: await ours.client('matchmaking'), intruder: await ours.client('intruder'), foreign: await theirs.client('matchmaking') };
    writeFileSync(path.join(dir, 'internal-ca.pem'), ours.cert);
    const material = await loadOrCreateTls({ dir: path.join(dir, 'tls') });
    serverCa = material.cert;
    h = await harness(
      {
        AUTH_INTERNAL_KEYS: `registry:${REGISTRY_KEY}`,
        AUTH_INTERNAL_MTLS_PORT: '18443',
        AUTH_INTERNAL_MTLS_CA_FILE: path.join(dir, 'internal-ca.pem'),
        AUTH_INTERNAL_MTLS_CALLERS: 'matchmaking,game-server',
      },
      { tls: material },
    );
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    publicPort = (h.app.server.address() as AddressInfo).port;
    mtls = await listenMutualTls(h.app, { port: 0, host: '127.0.0.1', tls: material, ca: h.config.internalMtlsCa! });
  });
  after(async () => {
    await mtls?.close();
    await h?.close();
  });

  const call = (port: number, method: string, url: string, opts: { client?: { cert: string; key: string }; headers?: Record<string, string> } = {}) =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port, path: url, method, ca: serverCa, ...opts.client, headers: opts.headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('a listed client certificate names the caller: a server token and the internal account read, without a key', async () => {
    const r = await call(mtls.port, 'POST', '/internal/server-token', { client: certs.matchmaking });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.sub, 'service:matchmaking');
    const verify = createAccessTokenVerifier({ issuer: h.config.issuer, audience: h.config.audience, keys: staticKeyResolver(() => h.app.auth.keys.publicKeys()) });
    assert.deepEqual((await verify(r.json.access_token)).roles, ['server']);
    const g = await guest(h.app);
    const account = await call(mtls.port, 'GET', `/internal/accounts/${g.account_id}`, { client: certs.matchmaking });
    assert.equal(account.status, 200);
    assert.equal(account.json.id, g.account_id);
  });

  it('a certificate of the CA whose name is not listed is no caller (401); an internal key still works there', async () => {
    const r = await call(mtls.port, 'POST', '/internal/server-token', { client: certs.intruder });
    assert.equal(r.status, 401);
    assert.equal(r.json.code, 'internal_key_required');
    const keyed = await call(mtls.port, 'POST', '/internal/server-token', { client: certs.intruder, headers: { 'x-internal-key': REGISTRY_KEY } });
    assert.equal(keyed.status, 200);
    assert.equal(keyed.json.sub, 'service:registry');
  });

  it('no client certificate, or one from another CA, fails the handshake', async () => {
    await assert.rejects(call(mtls.port, 'POST', '/internal/server-token'));
    await assert.rejects(call(mtls.port, 'POST', '/internal/server-token', { client: certs.foreign }));
  });

  it('the public listener asks for no certificate: one offered there names nobody', async () => {
    const r = await call(publicPort, 'POST', '/internal/server-token', { client: certs.matchmaking });
    assert.equal(r.status, 401);
    assert.equal(r.json.code, 'internal_key_required');
    assert.equal((await call(publicPort, 'GET', '/healthz')).status, 200);
  });

  it('configuration: the port needs a readable CA file and at least one caller, distinct from AUTH_PORT; names are checked', () => {
    const base = { AUTH_MASTER_KEY: 'a'.repeat(64), DATA_DIR: dir };
    const ca = path.join(dir, 'internal-ca.pem');
    const problems = (env: Record<string, string>) => {
      try {
        readAuthConfig({ ...base, ...env });
        return '';
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return (err as Error).message;
      }
    };
    assert.match(problems({ AUTH_INTERNAL_MTLS_PORT: '18443', AUTH_INTERNAL_MTLS_CALLERS: 'x' }), /AUTH_INTERNAL_MTLS_CA_FILE is required/);
    assert.match(problems({ AUTH_INTERNAL_MTLS_PORT: '18443', AUTH_INTERNAL_MTLS_CA_FILE: ca }), /AUTH_INTERNAL_MTLS_CALLERS must name/);
    assert.match(problems({ AUTH_INTERNAL_MTLS_PORT: '8443', AUTH_INTERNAL_MTLS_CA_FILE: ca, AUTH_INTERNAL_MTLS_CALLERS: 'x' }), /must differ from AUTH_PORT/);
    assert.match(problems({ AUTH_INTERNAL_MTLS_PORT: '18443', AUTH_INTERNAL_MTLS_CA_FILE: path.join(dir, 'missing.pem'), AUTH_INTERNAL_MTLS_CALLERS: 'x' }), /cannot read/);
    assert.match(problems({ AUTH_INTERNAL_MTLS_CALLERS: 'bad name!' }), /is not a caller name/);
    assert.match(problems({ AUTH_INTERNAL_MTLS_CALLERS: 'matchmaking,auth' }), /"auth" is reserved/);
    assert.equal(problems({ AUTH_INTERNAL_MTLS_PORT: '18443', AUTH_INTERNAL_MTLS_CA_FILE: ca, AUTH_INTERNAL_MTLS_CALLERS: 'matchmaking' }), '');
  });
});
