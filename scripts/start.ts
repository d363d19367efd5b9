// `npm start`: runs every service of the platform on embedded defaults, each
// as its own process (as production runs them), in dependency order:
// auth (8443, TLS) → registry (3004, calling auth) → social (9443, trusting auth's cert).
// Wiring (each only when not set in the environment):
//   - both TLS certificates are made before any service starts (each service trusts the other's);
//   - registry → auth: REGISTRY_AUTH_URL, REGISTRY_AUTH_CA_FILE, REGISTRY_AUTH_INTERNAL_KEY;
//   - auth: AUTH_INTERNAL_KEYS (registry's key), AUTH_OUTBOX_TARGETS → social, AUTH_OUTBOX_CA_FILE;
//   - the internal key is generated once into DATA_DIR/internal-keys.json (mode 0600).
// Ctrl-C or SIGTERM stops them all gracefully.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadOrCreateLocalCa, loadOrCreateTls } from '@platform/kit';
import https from 'node:https';
import http from 'node:http';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = path.resolve(process.env.DATA_DIR ?? path.join(root, 'data'));

interface ServiceDef {
  name: string;
  health: string;
  env: () => Record<string, string>;
}

const authCert = path.join(dataDir, 'auth', 'tls', 'tls-cert.pem');
const socialCert = path.join(dataDir, 'social', 'tls', 'tls-cert.pem');
// Made here (the services would make the same files on their first start) so each side can trust the other's at once.
// One local certificate authority issues both (distinct subjects, SANs localhost/127.0.0.1/::1): a client
// trusts one CA file for every service. A self-signed pair of an older data directory is issued again.
const localCa = await loadOrCreateLocalCa(path.join(dataDir, 'ca'));
if (!process.env.AUTH_TLS_CERT) await loadOrCreateTls({ dir: path.dirname(authCert), ca: localCa, commonName: 'auth.platform.localhost' });
if (!process.env.SOCIAL__TLS__CERTFILE) await loadOrCreateTls({ dir: path.dirname(socialCert), ca: localCa, commonName: 'social.platform.localhost' });

/** Service-to-service secrets, generated once (development only; production sets the variables). */
function internalKeys(): { registry: string } {
  const file = path.join(dataDir, 'internal-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  mkdirSync(dataDir, { recursive: true });
  const keys = { registry: randomBytes(32).toString('base64url') };
  writeFileSync(file, JSON.stringify(keys, null, 2) + '\n', { mode: 0o600 });
  return keys;
}
const keys = internalKeys();
const registryKey = process.env.REGISTRY_AUTH_INTERNAL_KEY ?? keys.registry;

const services: ServiceDef[] = [
  {
    name: 'auth',
    health: 'https://127.0.0.1:8443/healthz',
    env: () => ({
      AUTH_INTERNAL_KEYS: process.env.AUTH_INTERNAL_KEYS ?? `registry:${registryKey}`,
      AUTH_OUTBOX_TARGETS: process.env.AUTH_OUTBOX_TARGETS ?? 'https://127.0.0.1:9443/v1/internal/auth-events',
      AUTH_OUTBOX_CA_FILE: process.env.AUTH_OUTBOX_CA_FILE ?? (process.env.SOCIAL__TLS__CERTFILE ? socialCert : localCa.certPath),
    }),
  },
  {
    name: 'registry',
    health: 'http://127.0.0.1:3004/healthz',
    env: () => ({
      REGISTRY_AUTH_URL: process.env.REGISTRY_AUTH_URL ?? 'https://127.0.0.1:8443',
      REGISTRY_AUTH_CA_FILE: process.env.REGISTRY_AUTH_CA_FILE ?? (process.env.AUTH_TLS_CERT ? authCert : localCa.certPath),
      REGISTRY_AUTH_INTERNAL_KEY: registryKey,
    }),
  },
  {
    name: 'social',
    health: 'https://127.0.0.1:9443/healthz',
    env: () => ({
      SOCIAL__AUTH__JWKSURL: process.env.SOCIAL__AUTH__JWKSURL ?? 'https://127.0.0.1:8443/.well-known/jwks.json',
      SOCIAL__AUTH__CAFILE: process.env.SOCIAL__AUTH__CAFILE ?? (process.env.AUTH_TLS_CERT ? authCert : localCa.certPath),
      SOCIAL__REGISTRY__URL: process.env.SOCIAL__REGISTRY__URL ?? 'http://127.0.0.1:3004',
    }),
  },
];

const children: ChildProcess[] = [];
let stopping = false;

function prefix(name: string, stream: NodeJS.ReadableStream, out: NodeJS.WritableStream) {
  let buf = '';
  stream.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      out.write(`[${name}] ${buf.slice(0, i)}\n`);
      buf = buf.slice(i + 1);
    }
  });
}

function probe(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const lib = url.startsWith('https') ? https : http;
    const req = lib.get(url, { rejectUnauthorized: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

async function waitHealthy(s: ServiceDef, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`${s.name} exited with code ${child.exitCode}`);
    if (await probe(s.health)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${s.name} did not become healthy at ${s.health}`);
}

function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  for (const c of [...children].reverse()) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 12_000).unref();
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r))))).then(() => process.exit(code));
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

const started: string[] = [];
for (const s of services) {
  const main = path.join(root, 'packages', s.name, 'src', 'main.ts');
  if (!existsSync(main)) continue;
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, ...s.env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  prefix(s.name, child.stdout!, process.stdout);
  prefix(s.name, child.stderr!, process.stderr);
  child.on('exit', (code) => {
    if (!stopping) {
      console.error(`[platform] ${s.name} exited (${code}); stopping the platform`);
      stopAll(code ?? 1);
    }
  });
  try {
    await waitHealthy(s, child);
  } catch (err) {
    console.error(`[platform] ${(err as Error).message}`);
    stopAll(1);
    break;
  }
  started.push(s.name);
}

if (!stopping) {
  const base: Record<string, string> = {
    registry: 'http://localhost:3004',
    auth: 'https://localhost:8443',
    social: 'https://localhost:9443',
  };
  console.log('\n[platform] running on embedded storage under', dataDir);
  for (const name of started) console.log(`[platform]   ${name.padEnd(8)} ${base[name]}   docs: ${base[name]}/docs   OpenAPI: ${base[name]}/openapi.json`);
  console.log(`[platform] trust this one CA file for auth and social: ${localCa.certPath} (curl --cacert …, NODE_EXTRA_CA_CERTS=…)`);
  if (started.includes('registry')) {
    console.log(
      `[platform] registry super-admin: ${process.env.REGISTRY_ADMIN_EMAIL ?? 'admin@localhost'} (a generated password is printed above on the first start only; REGISTRY_ADMIN_PASSWORD sets it)`,
    );
  }
  console.log('[platform] walkthrough: docs/walkthrough.md   architecture: docs/architecture.md');
  console.log('[platform] Ctrl-C stops everything.\n');
}
