/**
 * TLS material for services that terminate TLS themselves (auth, social):
 * the configured certificate and key, or a pair generated once into the data
 * directory and reused on later starts — issued by the platform's local
 * certificate authority (DATA_DIR/ca) when one is given, so a client trusts
 * one CA file for every service (distinct subjects, SANs for localhost).
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import { nodeServerTimeoutOptions, resolveHttpTimeouts, type HttpTimeouts } from './config.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate lives (to tell clients what to trust). */
  certPath: string;
  generated: boolean;
}

export interface LocalCa {
  cert: string;
  key: string;
  certPath: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** The local certificate authority of an embedded platform: made once into `dir` (key 0600), reused after. */
/** Loaded only to make a certificate (about a second of start-up otherwise, for certificates that exist). */
const selfsigned = () => import('selfsigned');

export async function loadOrCreateLocalCa(dir: string, name = 'Game platform local CA'): Promise<LocalCa> {
  const certPath = path.join(dir, 'ca-cert.pem');
  const keyPath = path.join(dir, 'ca-key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath };
  mkdirSync(dir, { recursive: true });
  const { generate } = await selfsigned();
  const pems = await generate([{ name: 'commonName', value: `${name} ${new Date().toISOString().slice(0, 10)}` }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3650 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  } as never);
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private, certPath };
}

/**
 * A service's TLS material: its configured certificate and key files, else a pair kept in `dir` and issued by the
 * platform's local CA (<dataDir>/ca, made on first use), so that one CA is all a client has to trust.
 */
export async function serviceTls(
  config: { tlsCertFile?: string; tlsKeyFile?: string; dataDir: string },
  dir: string,
  commonName: string,
): Promise<TlsMaterial> {
  const configured = Boolean(config.tlsCertFile || config.tlsKeyFile);
  return loadOrCreateTls({
    certPath: config.tlsCertFile,
    keyPath: config.tlsKeyFile,
    dir,
    commonName,
    ca: configured ? undefined : await loadOrCreateLocalCa(path.join(config.dataDir, 'ca')),
  });
}

/** Whether `certPem` was issued by `ca` (false for a self-signed pair of an older data directory). */
function issuedBy(certPem: string, ca: LocalCa): boolean {
  try {
    return new X509Certificate(certPem).checkIssued(new X509Certificate(ca.cert));
  } catch {
    return false;
  }
}

export async function loadOrCreateTls(opts: {
  certPath?: string;
  keyPath?: string;
  dir: string;
  commonName?: string;
  altNames?: string[];
  /** Issue the generated pair from this CA (a pair made earlier by another issuer is issued again). */
  ca?: LocalCa;
}): Promise<TlsMaterial> {
  if (opts.certPath || opts.keyPath) {
    if (!opts.certPath || !opts.keyPath) throw new Error('both a TLS certificate and a key are needed');
    return { cert: readFileSync(opts.certPath, 'utf8'), key: readFileSync(opts.keyPath, 'utf8'), certPath: opts.certPath, generated: false };
  }
  const certPath = path.join(opts.dir, 'tls-cert.pem');
  const keyPath = path.join(opts.dir, 'tls-key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (!opts.ca || issuedBy(cert, opts.ca)) return { cert, key: readFileSync(keyPath, 'utf8'), certPath, generated: false };
  }
  mkdirSync(opts.dir, { recursive: true });
  const { generate } = await selfsigned();
  const names = opts.altNames ?? ['localhost'];
  const altNames = { name: 'subjectAltName', altNames: [...names.map((value) => ({ type: 2 as const, value })), { type: 7 as const, ip: '127.0.0.1' }, { type: 7 as const, ip: '::1' }] };
  const pems = opts.ca
    ? await generate([{ name: 'commonName', value: opts.commonName ?? 'localhost' }], {
        keyType: 'ec',
        algorithm: 'sha256',
        notAfterDate: new Date(Date.now() + 825 * DAY_MS),
        ca: { cert: opts.ca.cert, key: opts.ca.key },
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true },
          altNames,
        ],
      } as never)
    : await generate([{ name: 'commonName', value: opts.commonName ?? 'localhost' }], {
        keySize: 2048,
        algorithm: 'sha256',
        notAfterDate: new Date(Date.now() + 825 * DAY_MS),
        extensions: [
          { name: 'basicConstraints', cA: true },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
          { name: 'extKeyUsage', serverAuth: true },
          altNames,
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
  opts: { port: number; host?: string; tls: TlsMaterial; ca: string; timeouts?: Partial<HttpTimeouts> },
): Promise<{ server: https.Server; port: number; close(): Promise<void> }> {
  const t = resolveHttpTimeouts(opts.timeouts);
  const server = https.createServer(
    { ...tls13Options(opts.tls), ...nodeServerTimeoutOptions(t), ca: opts.ca, requestCert: true, rejectUnauthorized: true },
    (req, res) => app.routing(req, res),
  );
  server.setTimeout(t.httpIdleTimeoutMs);
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
