/**
 * HAProxy in front of N nodes. The balancer terminates TLS with the nodes'
 * certificate and re-encrypts to each node (`ssl verify none` inside the
 * private network; production sets `verify required ca-file …`), probes
 * `GET /healthz` every `checkIntervalMs`, drains a node after `fall` failed
 * checks, and retries a request on another node when the connection to the
 * first one fails or answers 503 (`retries` + `option redispatch` + `retry-on
 * conn-failure 503`: in both cases the node did not process the request, so
 * even a POST is safe to resend; a timeout is NOT retried by the balancer since
 * the node may have done the work — the client decides, with idempotency keys).
 * Terminating at the balancer (rather than TCP passthrough) lets it see HTTP:
 * health checks by status, X-Forwarded-For for per-client rate limits, and
 * per-request balancing over keep-alive connections.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports.js';

export interface Backend {
  name: string;
  host: string;
  port: number;
}

export interface HaproxyConfigOptions {
  /** Port the balancer listens on. */
  bindPort: number;
  bindHost?: string;
  /** PEM bundle (certificate + key) for the frontend; absent → plain HTTP frontend. */
  frontendPem?: string;
  /** Nodes speak TLS (auth, social in https mode). */
  backendTls: boolean;
  backends: Backend[];
  checkIntervalMs?: number;
  fall?: number;
  rise?: number;
  /** Time a client request may wait for a node's answer. */
  serverTimeoutMs?: number;
  /** Stats/admin socket path (tests read server states through it). */
  statsSocket?: string;
}

/** The configuration text; deploy/haproxy/haproxy.cfg is this with production paths. */
export function haproxyConfig(o: HaproxyConfigOptions): string {
  const inter = o.checkIntervalMs ?? 1000;
  const fall = o.fall ?? 2;
  const rise = o.rise ?? 2;
  const ssl = o.backendTls ? ' ssl verify none check-ssl' : '';
  const servers = o.backends
    .map((b) => `    server ${b.name} ${b.host}:${b.port} check inter ${inter} fall ${fall} rise ${rise}${ssl}`)
    .join('\n');
  const bind = `${o.bindHost ?? '127.0.0.1'}:${o.bindPort}${o.frontendPem ? ` ssl crt ${o.frontendPem} ssl-min-ver TLSv1.3` : ''}`;
  return `global
    maxconn 4096
${o.statsSocket ? `    stats socket ${o.statsSocket} mode 600 level admin\n` : ''}
defaults
    mode http
    option httplog
    option forwardfor
    option redispatch
    retries 3
    retry-on conn-failure 503
    timeout connect 1s
    timeout client 30s
    timeout server ${o.serverTimeoutMs ?? 10_000}ms
    timeout http-keep-alive 10s

frontend fe_service
    bind ${bind}
    default_backend be_service

backend be_service
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
${servers}
`;
}

export interface Haproxy {
  port: number;
  url: string;
  configPath: string;
  /** Server states from the stats socket: name → UP/DOWN/… */
  states(): Promise<Record<string, string>>;
  stop(): Promise<void>;
  logs(): string;
}

/** Starts `haproxy -db -f <generated config>` and waits until it listens. */
export async function startHaproxy(opts: {
  backends: Backend[];
  backendTls: boolean;
  /** Certificate and key (PEM text) for a TLS frontend; absent → HTTP frontend. */
  tls?: { cert: string; key: string };
  checkIntervalMs?: number;
  fall?: number;
  rise?: number;
  serverTimeoutMs?: number;
}): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(tmpdir(), 'haproxy-'));
  const port = await freePort();
  let frontendPem: string | undefined;
  if (opts.tls) {
    frontendPem = path.join(dir, 'frontend.pem');
    writeFileSync(frontendPem, `${opts.tls.cert.trim()}\n${opts.tls.key.trim()}\n`, { mode: 0o600 });
  }
  const statsSocket = path.join(dir, 'admin.sock');
  const configPath = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    configPath,
    haproxyConfig({ ...opts, bindPort: port, frontendPem, statsSocket }),
  );
  let output = '';
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-32_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  try {
    await Promise.race([waitForPort(port, 10_000), spawnError, exited.then(() => Promise.reject(new Error(`haproxy exited:\n${output}`)))]);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    configPath,
    async states() {
      const text = await adminCommand(statsSocket, 'show stat\n');
      const lines = text.trim().split('\n');
      const header = lines[0].replace(/^# /, '').split(',');
      const pxi = header.indexOf('pxname');
      const svi = header.indexOf('svname');
      const sti = header.indexOf('status');
      const out: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const f = l.split(',');
        if (f[pxi] === 'be_service' && f[svi] !== 'BACKEND') out[f[svi]] = f[sti];
      }
      return out;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGUSR1 = soft stop; SIGTERM = immediate. Tests want it gone.
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
    logs: () => output,
  };
}

async function adminCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socketPath);
    let data = '';
    s.on('connect', () => s.write(command));
    s.on('data', (d) => (data += d.toString()));
    s.on('end', () => resolve(data));
    s.on('error', reject);
  });
}

/** Is the haproxy binary on PATH? */
export async function haproxyAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const c = spawn('haproxy', ['-v'], { stdio: 'ignore' });
    c.once('error', () => resolve(false));
    c.once('exit', (code) => resolve(code === 0));
  });
}

