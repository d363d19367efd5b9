/** Shared bits of the cluster tests. */
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { eventually, type ClusterClient } from '../src/index.js';

/** kid and claims of a PASETO v4.public token (no verification: the nodes verify). */
export function peekPaseto(token: string): { kid: string; claims: Record<string, any> } {
  const [v, p, body, footer] = token.split('.');
  if (v !== 'v4' || p !== 'public') throw new Error(`not a v4.public token: ${token.slice(0, 20)}`);
  const raw = Buffer.from(body, 'base64url');
  const claims = JSON.parse(raw.subarray(0, raw.length - 64).toString('utf8'));
  const kid = JSON.parse(Buffer.from(footer, 'base64url').toString('utf8')).kid;
  return { kid, claims };
}

export const email = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@cluster.test`;
export const PASSWORD = 'correct horse battery staple 42';
export const fingerprint = () => `fp-${randomBytes(8).toString('hex')}`;

/** Registers an account through `c`; returns the 201 body. */
export async function register(c: ClusterClient, mail: string, password = PASSWORD) {
  const r = await c.post('/register', { email: mail, password, device: { fingerprint: fingerprint() } });
  if (r.status !== 201) throw new Error(`register → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { access_token: string; refresh_token: string; account_id: string };
}

export interface Frame {
  type: string;
  data: any;
}

/** Opens a social socket and resolves once it answers a heartbeat (registered on its node). */
export async function connectSocket(url: string, headers: Record<string, string>, ca?: string) {
  const ws = new WebSocket(url, { headers, ca });
  const frames: Frame[] = [];
  ws.on('message', (raw) => frames.push(JSON.parse(raw.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  ws.send(JSON.stringify({ type: 'heartbeat' }));
  await eventually(async () => frames.some((f) => f.type === 'heartbeatAck'), 8000, 'heartbeatAck');
  return {
    frames,
    next: (type: string, pred: (d: any) => boolean = () => true) =>
      eventually(async () => frames.find((f) => f.type === type && pred(f.data)), 8000, `${type} frame`),
    close: () => ws.close(),
  };
}
