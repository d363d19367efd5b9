/**
 * TLS material for services that terminate TLS themselves (auth, social):
 * the configured certificate and key, or a self-signed pair generated once
 * into the data directory and reused on later starts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
