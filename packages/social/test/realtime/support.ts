/**
 * Realtime test support: real `ws` clients against a social node listening on
 * port 0, a second node on the same database and state store (two processes'
 * worth of stores on Redis/PostgreSQL; shared ones in memory), and helpers to
 * wait for frames without sleeping.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { WebSocket, type ClientOptions } from 'ws';
import type { StateStore } from '@platform/kit';
import { later, perSuite } from '@platform/kit/testing';
import { userChannel, type SocialApp } from '../../src/index.js';
import { startHarness, type Harness, type TestUser } from '../support.js';

export interface Frame {
  type: string;
  data: any;
}

export async function listen(app: SocialApp, https = false): Promise<{ ws: string; http: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { ws: `${https ? 'wss' : 'ws'}://127.0.0.1:${port}/v1/ws`, http: `${https ? 'https' : 'http'}://127.0.0.1:${port}` };
}

export type Via = 'header' | 'subprotocol' | 'query';

export interface Client {
  ws: WebSocket;
  frames: Frame[];
  /** Frames that arrived as binary WebSocket frames (the protocol is JSON text: always 0). */
  binaryFrames: number;
  protocol: string;
  /** Opened by connect() with an `Origin` header (a browser's handshake). */
  browser?: boolean;
  /** Resolves with the next not-yet-consumed frame of `type` matching `pred`. */
  next(type: string, pred?: (data: any) => boolean): Promise<Frame>;
  /** Frames of `type` received so far (not consumed). */
  seen(type: string, pred?: (data: any) => boolean): Frame[];
  send(frame: unknown): void;
  /** A marker published on the user's channel after everything before it: earlier user-channel events have arrived. */
  sync(h: { state: { state: StateStore } }, userId: string): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<{ code: number; reason: string }>;
}

const WAIT_MS = 8000;

export function wrap(ws: WebSocket): Client {
  const frames: Frame[] = [];
  const consumed = new WeakSet<Frame>();
  let wake: (() => void)[] = [];
  ws.on('message', (raw, isBinary) => {
    if (isBinary) c.binaryFrames++;
    frames.push(JSON.parse(raw.toString()));
    const w = wake;
    wake = [];
    w.forEach((f) => f());
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const find = (type: string, pred?: (d: any) => boolean) => frames.find((f) => !consumed.has(f) && f.type === type && (!pred || pred(f.data)));
  const c: Client = {
    ws,
    frames,
    binaryFrames: 0,
    protocol: ws.protocol,
    next(type, pred) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type} frame; got ${JSON.stringify(frames).slice(0, 2000)}`)), WAIT_MS);
        const check = () => {
          const f = find(type, pred);
          if (f) {
            consumed.add(f);
            clearTimeout(timer);
            resolve(f);
          } else wake.push(check);
        };
        check();
      });
    },
    seen: (type, pred) => frames.filter((f) => !consumed.has(f) && f.type === type && (!pred || pred(f.data))),
    send(frame) {
      ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    },
    async sync(h, userId) {
      const id = Math.random().toString(36).slice(2);
      await h.state.state.publish(userChannel(userId), JSON.stringify({ type: 'marker', data: id }));
      await c.next('marker', (d) => d === id);
    },
    closed,
    async close() {
      ws.close();
      return closed;
    },
  };
  return c;
}

export interface Rejected {
  status: number;
  body: any;
  headers: IncomingMessage['headers'];
  /** The handshake carried `Origin` (a browser's). */
  browser: boolean;
}

/** An `Origin` header: what a browser sends with every handshake (refusals then come in band). */
export const BROWSER = { origin: 'https://game.example' };

/** Opens a socket; rejects with {status, body} when the server answers HTTP instead of upgrading. */
export function connect(url: string, token: string | null, opts: { via?: Via; headers?: Record<string, string>; ca?: string | Buffer; protocols?: string[] } = {}): Promise<Client> {
  const via = opts.via ?? 'header';
  let target = url;
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let protocols: string[] | undefined = opts.protocols;
  if (token !== null) {
    if (via === 'header') headers.authorization = `Bearer ${token}`;
    else if (via === 'subprotocol') protocols = ['bearer', token];
    else target = `${url}?access_token=${encodeURIComponent(token)}`;
  }
  const options: ClientOptions = { headers, ...(opts.ca ? { ca: opts.ca } : {}) };
  const browser = Object.keys(headers).some((k) => k.toLowerCase() === 'origin');
  return new Promise((resolve, reject) => {
    const ws = protocols ? new WebSocket(target, protocols, options) : new WebSocket(target, options);
    const client = Object.assign(wrap(ws), { browser });
    ws.once('open', () => {
      client.protocol = ws.protocol;
      resolve(client);
    });
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (ch: Buffer) => chunks.push(ch));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* text */
        }
        reject({ status: res.statusCode ?? 0, body, headers: res.headers, browser } satisfies Rejected);
      });
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Refusals that stay plain HTTP answers: upgrades that are not a socket of ours. */
const HTTP_REFUSALS = new Set(['route_not_found', 'upgrade_required']);

/**
 * Expects the connection to be refused (docs/social-realtime.md, "Refused connections"). A browser (the
 * handshake carried `Origin`): the handshake completes, one error frame with `code` arrives, then the close with
 * 4000 + `status` and `code` as reason. Any other client: the HTTP `status` with the error body, and
 * `Retry-After` (= the body's retryAfterSeconds) on 429 and on a 503 that knows when (draining). Refusals of upgrades that are not ours (another
 * path, no upgrade) are HTTP answers for everyone. Returns the error frame's data (the HTTP body otherwise).
 */
export async function refused(p: Promise<Client>, status: number, code: string): Promise<any> {
  return p.then(
    async (c) => {
      assert.ok(!HTTP_REFUSALS.has(code), `expected HTTP ${status} ${code}, the socket opened`);
      assert.ok(c.browser, `a client without Origin must get HTTP ${status} ${code}, the socket opened`);
      const closed = await c.closed;
      assert.deepEqual(
        { close: closed.code, reason: closed.reason, frames: c.frames.map((f) => `${f.type}:${f.data?.code}`) },
        { close: 4000 + status, reason: code, frames: [`error:${code}`] },
      );
      return c.frames[0].data;
    },
    (err: Rejected) => {
      assert.ok(err.status !== undefined, String(err));
      assert.ok(HTTP_REFUSALS.has(code) || !err.browser, `expected the socket to open and close with ${4000 + status} ${code}, got ${JSON.stringify(err)}`);
      assert.equal(err.status, status, JSON.stringify(err));
      assert.equal(err.body.code, code, JSON.stringify(err.body));
      // 429 always tells when to retry; a 503 when it knows (a draining node: 1 s), in the header and the body alike.
      if (status === 429) assert.ok(err.headers['retry-after'], 'Retry-After');
      assert.equal(err.headers['retry-after'] === undefined ? undefined : Number(err.headers['retry-after']), err.body.retryAfterSeconds, 'Retry-After as in the body');
      return err.body;
    },
  );
}

/** A socket that was accepted and is set up (answers a heartbeat); undefined when it was refused. */
export async function accepted(url: string, token: string): Promise<Client | undefined> {
  const c = await connect(url, token).catch((err: Rejected) => {
    if (err.status === undefined) throw err;
    return undefined;
  });
  if (!c) return undefined;
  c.send({ type: 'heartbeat' });
  const outcome = await Promise.race([c.next('heartbeatAck').then(() => 'open' as const), c.closed.then(() => 'closed' as const)]);
  return outcome === 'open' ? c : undefined;
}

/** A second social node on the same database and state store (Harness.node), listening. */
export async function startSecondNode(h: Harness, env: Record<string, string> = {}): Promise<{ app: SocialApp; urls: { ws: string; http: string }; close(): Promise<void> }> {
  const app = await h.node(env);
  const urls = await listen(app);
  return { app, urls, close: () => app.close() };
}

export interface RealtimeSuite {
  h: Harness;
  /** The harness's app, listening. */
  nodeA: { ws: string; http: string };
  /** The second node (with `second`). */
  nodeB: Awaited<ReturnType<typeof startSecondNode>>;
  /** Sockets the suite opened: terminated after its tests. */
  clients: Client[];
  /** Keeps `c` in `clients` and waits until it is set up (a heartbeat answered). */
  ready(c: Client): Promise<Client>;
}

/**
 * A realtime suite (kit perSuite): the harness listening (node A), with `second` a second node (its env), the
 * sockets it opened; after its tests `beforeClose`, the sockets terminated, the nodes closed.
 */
export function realtimeSuite(
  env: Record<string, string> = {},
  o: { opts?: Parameters<typeof startHarness>[1]; second?: Record<string, string>; beforeClose?: () => void } = {},
): RealtimeSuite {
  const clients: Client[] = [];
  const s = perSuite(
    async () => {
      const h = await startHarness(env, o.opts);
      const nodeA = await listen(h.app);
      const nodeB = o.second ? await startSecondNode(h, o.second) : undefined;
      return { h, nodeA, nodeB };
    },
    async (s) => {
      o.beforeClose?.();
      for (const c of clients) c.ws.terminate();
      await s.nodeB?.close();
      await s.h.close();
    },
  );
  return {
    h: later(() => s.h),
    nodeA: later(() => s.nodeA),
    nodeB: later(() => s.nodeB!),
    clients,
    async ready(c) {
      clients.push(c);
      c.send({ type: 'heartbeat' });
      await c.next('heartbeatAck');
      return c;
    },
  };
}

export type { TestUser };
