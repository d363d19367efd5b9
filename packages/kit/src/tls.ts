/**
 * TLS material for services that terminate TLS themselves (auth, social):
 * the configured certificate and key, or a self-signed pair generated once
 * into the data directory and reused on later starts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate lives (to tell clients what to trust). */
  certPath: string;
  generated: boolean;
}

export async function loadOrCreateTls(opts: {
  certPath?: string;
  keyPath?: string;
  dir: string;
  commonName?: string;
  altNames?: string[];
}): Promise<TlsMaterial> {
  if (opts.certPath || opts.keyPath) {
    if (!opts.certPath || !opts.keyPath) throw new Error('both a TLS certificate and a key are needed');
    return { cert: readFileSync(opts.certPath, 'utf8'), key: readFileSync(opts.keyPath, 'utf8'), certPath: opts.certPath, generated: false };
  }
  const certPath = path.join(opts.dir, 'tls-cert.pem');
  const keyPath = path.join(opts.dir, 'tls-key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath, generated: false };
  }
  mkdirSync(opts.dir, { recursive: true });
  const names = opts.altNames ?? ['localhost'];
  const pems = await generate([{ name: 'commonName', value: opts.commonName ?? 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...names.map((value) => ({ type: 2 as const, value })), { type: 7 as const, ip: '127.0.0.1' }, { type: 7 as const, ip: '::1' }],
      },
    ],
  } as never);
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private, certPath, generated: true };
}

/** Fastify `https` options for TLS 1.3 only. */
export function tls13Options(m: TlsMaterial) {
  return { cert: m.cert, key: m.key, minVersion: 'TLSv1.3' as const, maxVersion: 'TLSv1.3' as const };
}

/**
 * A second TLS 1.3 listener for the same app that requires a client certificate issued by `ca` (mutual TLS):
 * a connection without one, or with one from another issuer, fails in the handshake. Requests are routed
 * by the app as on its main listener; `mutualTlsName` tells a route who the verified peer is. A separate
 * listener because asking every client of the public one for a certificate makes browsers prompt.
 */
export async function listenMutualTls(
  app: { routing(req: IncomingMessage, res: ServerResponse): void },
  opts: { port: number; host?: string; tls: TlsMaterial; ca: string },
): Promise<{ server: https.Server; port: number; close(): Promise<void> }> {
  const server = https.createServer({ ...tls13Options(opts.tls), ca: opts.ca, requestCert: true, rejectUnauthorized: true }, (req, res) => app.routing(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : opts.port,
    // Requests in flight finish (idle connections close at once); whatever is left after 5 s is cut.
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 5000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * The subject common name of the client certificate that a mutual-TLS listener verified for this socket,
 * or undefined (plain TCP, a public TLS listener, no or an unverified certificate).
 */
export function mutualTlsName(socket: unknown): string | undefined {
  const s = socket as Partial<TLSSocket> | undefined;
  if (!s || s.authorized !== true || typeof s.getPeerCertificate !== 'function') return undefined;
  const cn = s.getPeerCertificate().subject?.CN as unknown;
  return typeof cn === 'string' && cn ? cn : undefined;
}
