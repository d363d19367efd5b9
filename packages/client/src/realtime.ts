/**
 * The realtime client: social's /v1/ws with reconnects (exponential backoff with jitter, a fresh token before
 * each attempt), heartbeats within the presence TTL, typed events and frames, and re-authentication: with every
 * heartbeat the client asks for a token valid at least `tokenMinValiditySeconds` (the session refreshes when
 * the current one is closer to its expiry, one refresh in flight) and, when it differs from the socket's,
 * sends it in an `authenticate` frame on the open socket instead of reconnecting. A socket closed 4004
 * `token_expired` reconnects with a refreshed token.
 *
 * The token travels as the subprotocol pair `["bearer", token]`, the way a browser can send it without putting
 * it in the URL; the server echoes `bearer` only. The game's client key goes in the query (`clientKey=`): a
 * browser cannot set headers on a socket. "Open" means subscribed: after the upgrade the client sends a
 * heartbeat and reports the socket open when it is answered (the server handles frames only after the socket's
 * channels are live).
 */
import { parseRetryAfter, PlatformError } from './errors.js';
import { closeReason, type ClientFrame, type CloseReason, type RealtimeEvents } from './events.js';
import { laterId, parseFrame, refusalCode } from './realtime-wire.js';
import type { ChatKind, PresenceInput } from './types.js';

/** The HTTP answer to a refused handshake, as `ws` hands it over (Node's IncomingMessage). */
export interface HandshakeResponse {
  statusCode?: number;
  headers: Record<string, string | string[] | undefined>;
  on(event: 'data', listener: (chunk: string | Uint8Array) => void): unknown;
  on(event: 'end' | 'error' | 'close', listener: () => void): unknown;
}

/** The part of the WebSocket API the client uses (the browser's, Node 22's global, `ws`'s). */
export interface WebSocketLike {
  readonly readyState: number;
  /** Sends a text frame. */
  send(data: string): void;
  /** Closes the socket. */
  close(code?: number, reason?: string): void;
  // `any`: the browser's and `ws`'s event types differ; the handlers below read only `data` and `code`.
  /** Listens for open, message, close and error. */
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
  /**
   * `ws` (Node) only: the HTTP answer of a refused handshake. A client without `Origin` (not a browser) is refused
   * with the HTTP status (401, 429 + Retry-After, 400, 503) instead of in band; the client reads it as the close
   * 4000 + status with the body's code (docs/social-realtime.md, "Refused connections").
   */
  on?(event: 'unexpected-response', listener: (request: unknown, response: HandshakeResponse) => void): unknown;
  /** `ws` only: ends a handshake that got an HTTP answer. */
  terminate?(): void;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export interface ReconnectOptions {
  /** First delay (ms); doubles per failed attempt up to maxDelayMs. Default 500. */
  initialDelayMs?: number;
  /** Default 30 000. */
  maxDelayMs?: number;
  /** Random source in [0, 1) for the jitter (each delay is between half and all of the backoff). */
  random?: () => number;
}

export interface RealtimeOptions {
  /** The social service's base URL (https://… → wss://…). */
  socialUrl: string;
  /**
   * An access token valid for at least `minValiditySeconds`; `forceRefresh` asks for a new one. Asked before each
   * connect and with every heartbeat: a token other than the open socket's is sent in an `authenticate` frame.
   */
  token(o: { minValiditySeconds: number; forceRefresh: boolean }): Promise<string>;
  WebSocket: WebSocketConstructor;
  clientKey?: string;
  /** Heartbeat interval; within the presence TTL (60 s by default: every TTL/3). Default 20. */
  heartbeatSeconds?: number;
  /** A token handed to a new socket, or renewed on an open one, is valid at least this long. Default 60. */
  tokenMinValiditySeconds?: number;
  reconnect?: ReconnectOptions | false;
  /**
   * Where to resume from on the first connect (e.g. `lastEventId` kept from an earlier page): the server replays
   * what came after it, or sends `resync`. Later reconnects always resume from the last id seen.
   */
  lastEventId?: string;
  /**
   * The server ended the session under the socket (close 4002 session_revoked, 4003 account_disabled, or a
   * refusal with token_revoked): called once, before the `close` event; createClient signs the session out
   * locally (Session `signedOut`). Not for 4001 account_deleted: social's own erasure (DELETE /v1/me) closes
   * with it too and leaves the auth session alive (a deleted auth account's token is refused at the next call).
   */
  onSessionEnded?(reason: SessionEndReason): void;
}

/** Why the server ended the session under a socket. */
export type SessionEndReason = 'session_revoked' | 'account_disabled';

type Handler<K extends keyof RealtimeEvents> = (data: RealtimeEvents[K]) => void;
type Waiter = { resolve: () => void; reject: (e: unknown) => void };

const OPEN = 1;

function report(e: unknown): void {
  const g = globalThis as { reportError?: (e: unknown) => void };
  if (g.reportError) g.reportError(e);
  else console.error(e);
}

/** The social realtime socket (`client.realtime()`): connects, reconnects with backoff, resumes missed events, keeps its token fresh, and emits typed events. */
export class RealtimeClient {
  private ws: WebSocketLike | undefined;
  private ready = false;
  private wanted = false;
  private opening = false;
  private everOpened = false;
  private attempt = 0;
  private failuresBeforeOpen = 0;
  /** The server refused the last token (4401 unauthorized): the next attempt asks for a new one. */
  private tokenRefused = false;
  /** The server's Retry-After of the last refusal (429, 503; in band or over HTTP): the next attempt waits at least this. */
  private retryAfterMs = 0;
  /** The token the open socket holds (sent at connect or in the last `authenticate` frame). */
  private socketToken: string | undefined;
  private renewing = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private lastPresence: PresenceInput | undefined;
  private lastId: string | undefined;
  private waiters: Waiter[] = [];
  private readonly handlers = new Map<string, Set<(data: never) => void>>();
  private readonly frameHandlers = new Set<(type: string, data: unknown, id?: string) => void>();

  constructor(private readonly o: RealtimeOptions) {
    this.lastId = o.lastEventId;
  }

  /** The id of the last event (or caughtUp / resync) received: every reconnect resumes from it. */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  /** True while a socket is open and subscribed. */
  get connected(): boolean {
    return this.ready && this.ws?.readyState === OPEN;
  }

  /**
   * Opens the socket (and keeps it open: reconnects until close()). Resolves once it is open and subscribed;
   * rejects when the client stops for good (close(), account erased, session ended).
   */
  connect(): Promise<void> {
    this.wanted = true;
    if (this.connected) return Promise.resolve();
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.ws && !this.reconnectTimer && !this.opening) void this.open();
    return p;
  }

  /** Closes the socket for good (code 1000); no reconnect. */
  close(): void {
    this.stop(new PlatformError({ status: 0, code: 'closed', message: 'The realtime client was closed', source: 'realtime' }));
    const ws = this.ws;
    this.ws = undefined;
    if (!ws) return;
    ws.close(1000, 'client closed');
    this.ready = false;
    this.emit('close', { code: 1000, reason: 'closed_by_client', willReconnect: false });
  }

  /** Calls `fn` for each event of this type; returns the function that stops it. */
  on<K extends keyof RealtimeEvents>(type: K, fn: Handler<K>): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(fn as (data: never) => void);
    return () => set.delete(fn as (data: never) => void);
  }

  /** Calls `fn` for every server frame, including types this version does not know (`id`: the event's id). */
  onFrame(fn: (type: string, data: unknown, id?: string) => void): () => void {
    this.frameHandlers.add(fn);
    return () => this.frameHandlers.delete(fn);
  }

  /** The next event of this type (that `match` accepts). */
  next<K extends keyof RealtimeEvents>(type: K, match: (data: RealtimeEvents[K]) => boolean = () => true): Promise<RealtimeEvents[K]> {
    return new Promise((resolve) => {
      const off = this.on(type, (data) => {
        if (!match(data)) return;
        off();
        resolve(data);
      });
    });
  }

  private emit<K extends keyof RealtimeEvents>(type: K, data: RealtimeEvents[K]): void {
    for (const fn of this.handlers.get(type) ?? []) {
      try {
        (fn as Handler<K>)(data);
      } catch (e) {
        report(e);
      }
    }
  }

  /** Sends a client frame; throws PlatformError `not_connected` when no socket is open. */
  send(frame: ClientFrame): void {
    if (!this.ws || this.ws.readyState !== OPEN) {
      throw new PlatformError({ status: 0, code: 'not_connected', message: 'The realtime socket is not open', source: 'realtime' });
    }
    this.ws.send(JSON.stringify(frame));
  }

  /** Sends a heartbeat now (the client sends them on its own every `heartbeatSeconds`). */
  heartbeat(): void {
    this.send({ type: 'heartbeat' });
  }

  /** Sets presence over the socket (answered by `presenceUpdated`); also re-sent when the presence lapsed. */
  updatePresence(input: PresenceInput): void {
    this.lastPresence = input;
    this.send({ type: 'presenceUpdate', ...input });
  }

  /**
   * Sends a chat message; it comes back as a `chatMessage` event (to this socket too), masked when the game's
   * text filter masks it; an `error` event with code `text_filtered` when the filter refuses it.
   */
  sendChat(channel: ChatKind, channelId: string, body: string): void {
    this.send({ type: 'chatSend', channel, channelId, body });
  }

  private socketUrl(): string {
    const base = this.o.socialUrl.replace(/\/+$/, '').replace(/^http/i, 'ws');
    const query = [
      ...(this.o.clientKey ? [`clientKey=${encodeURIComponent(this.o.clientKey)}`] : []),
      // Resume: the server replays what came after the last id seen, before any new event (or sends resync).
      ...(this.lastId !== undefined ? [`lastEventId=${encodeURIComponent(this.lastId)}`] : []),
    ];
    return `${base}/v1/ws${query.length ? `?${query.join('&')}` : ''}`;
  }

  private async open(): Promise<void> {
    this.opening = true;
    let token: string;
    try {
      // Three failures in a row before any open: the token may be the reason (refused, revoked), so ask for a new
      // one, once per run of failures (a refresh that fails with 401 means the session is over).
      const forceRefresh = this.tokenRefused || this.failuresBeforeOpen === 3;
      this.tokenRefused = false;
      token = await this.o.token({ minValiditySeconds: this.o.tokenMinValiditySeconds ?? 60, forceRefresh });
    } catch (e) {
      this.opening = false;
      // No session any more (signed out, refresh token refused): reconnecting cannot help.
      if (e instanceof PlatformError && e.status === 401) return this.endForGood('signed_out', e);
      return this.scheduleReconnect();
    }
    this.opening = false;
    if (!this.wanted) return;
    let ws: WebSocketLike;
    try {
      ws = new this.o.WebSocket(this.socketUrl(), ['bearer', token]);
    } catch (e) {
      return this.endForGood('unknown', new PlatformError({ status: 0, code: 'socket_failed', message: String(e), source: 'realtime', cause: e }));
    }
    this.ws = ws;
    this.socketToken = token;
    this.ready = false;
    this.attach(ws);
  }

  private attach(ws: WebSocketLike): void {
    let errorCode: string | undefined;
    let retryAfterSeconds: number | undefined;
    // A handshake refused over HTTP (ws in Node): the same close as the in-band refusal, 4000 + status.
    let refusedWith: number | undefined;
    ws.on?.('unexpected-response', (_req, res) => {
      let text = '';
      let done = false;
      const decoder = new TextDecoder();
      const finish = () => {
        if (done) return;
        done = true;
        const status = res.statusCode ?? 0;
        refusedWith = status >= 400 && status < 600 ? 4000 + status : undefined;
        errorCode = refusalCode(text);
        const header = res.headers['retry-after'];
        retryAfterSeconds = parseRetryAfter(Array.isArray(header) ? header[0] : header);
        // `ws` then reports an error and the close (1006), read below as the refusal.
        if (ws.terminate) ws.terminate();
        else ws.close();
      };
      res.on('data', (chunk) => {
        if (text.length < 8192) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      });
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
    });
    ws.addEventListener('open', () => {
      ws.send(JSON.stringify({ type: 'heartbeat' } satisfies ClientFrame));
      this.startHeartbeat(ws);
    });
    ws.addEventListener('message', (ev: { data: unknown }) => {
      const frame = parseFrame(ev.data);
      if (!frame || this.ws !== ws) return;
      if (typeof frame.id === 'string' && (this.lastId === undefined || laterId(frame.id, this.lastId))) this.lastId = frame.id;
      // The error frame that preceded a close explains it (e.g. rate_limited before 1008); acks say nothing.
      if (frame.type === 'error') [errorCode, retryAfterSeconds] = [frame.data.code, frame.data.retryAfterSeconds];
      else if (frame.type !== 'heartbeatAck') [errorCode, retryAfterSeconds] = [undefined, undefined];
      if (frame.type === 'heartbeatAck' && !this.ready) this.markOpen();
      else if (frame.type === 'heartbeatAck' && frame.data.presence === 'lapsed' && this.ready) this.revivePresence();
      for (const fn of this.frameHandlers) fn(frame.type, frame.data, frame.id);
      this.emit(frame.type, frame.data as never);
    });
    ws.addEventListener('error', () => {
      // A close event follows; it carries what there is to know.
    });
    ws.addEventListener('close', (closeEvent: { code: number }) => {
      if (this.ws !== ws) return;
      const ev = { code: refusedWith ?? closeEvent.code };
      const refusedForNow = ev.code === 4429 || ev.code === 4503;
      this.retryAfterMs = refusedForNow && typeof retryAfterSeconds === 'number' && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0;
      this.ws = undefined;
      this.stopHeartbeat();
      const wasReady = this.ready;
      this.ready = false;
      if (!wasReady) this.failuresBeforeOpen++;
      const reason = closeReason(ev.code);
      if (reason === 'unauthorized') this.tokenRefused = errorCode === undefined || errorCode === 'unauthorized';
      if (reason === 'token_expired') this.tokenRefused = true;
      const ended = sessionEnd(reason, errorCode);
      if (ended) this.o.onSessionEnded?.(ended);
      const forGood = reason === 'account_deleted' ? 'account_deleted' : ended;
      const willReconnect = this.wanted && !endsForGood(reason, errorCode) && this.o.reconnect !== false;
      this.emit('close', { code: ev.code, reason, ...(errorCode ? { errorCode } : {}), willReconnect });
      if (willReconnect) return this.scheduleReconnect();
      if (this.wanted) {
        const message = (forGood ? SESSION_END_MESSAGES[forGood] : FOR_GOOD_MESSAGES[reason]) ?? `The socket closed (${ev.code})`;
        this.endForGood(reason, new PlatformError({ status: 0, code: errorCode ?? reason, message, source: 'realtime' }));
      }
    });
  }

  private markOpen(): void {
    this.ready = true;
    this.attempt = 0;
    this.failuresBeforeOpen = 0;
    const reconnected = this.everOpened;
    this.everOpened = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
    this.emit('open', { reconnected });
  }

  private revivePresence(): void {
    this.send({ type: 'presenceUpdate', ...(this.lastPresence ?? { state: 'online' }) });
  }

  private startHeartbeat(ws: WebSocketLike): void {
    this.stopHeartbeat();
    const every = (this.o.heartbeatSeconds ?? 20) * 1000;
    this.heartbeatTimer = setInterval(() => {
      if (ws.readyState !== OPEN) return;
      ws.send(JSON.stringify({ type: 'heartbeat' } satisfies ClientFrame));
      void this.renewToken(ws);
    }, every);
  }

  /**
   * Keeps the open socket's credential ahead of its expiry: a token valid at least `tokenMinValiditySeconds`
   * (refreshed by the session when needed) that is not the socket's goes out in an `authenticate` frame,
   * answered by `authenticated`. Failures are left to the server: the socket closes with 4004 at its token's
   * expiry, and the reconnect asks for a new token (or reports `signed_out`).
   */
  private async renewToken(ws: WebSocketLike): Promise<void> {
    if (this.renewing || !this.ready || this.ws !== ws) return;
    this.renewing = true;
    try {
      const token = await this.o.token({ minValiditySeconds: this.o.tokenMinValiditySeconds ?? 60, forceRefresh: false });
      if (this.ws !== ws || ws.readyState !== OPEN || token === this.socketToken) return;
      this.socketToken = token;
      ws.send(JSON.stringify({ type: 'authenticate', token } satisfies ClientFrame));
    } catch {
      // No token now (the session ended, auth unreachable): the socket lives until its token's expiry.
    } finally {
      this.renewing = false;
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  /** The delay before reconnect attempt n: min(max, initial · 2^n), jittered into its upper half. */
  backoffDelay(attempt: number): number {
    const r = this.o.reconnect || {};
    const base = Math.min(r.maxDelayMs ?? 30_000, (r.initialDelayMs ?? 500) * 2 ** attempt);
    return Math.round(base / 2 + ((r.random ?? Math.random)() * base) / 2);
  }

  private scheduleReconnect(): void {
    if (!this.wanted || this.reconnectTimer) return;
    // Never sooner than the server asked (Retry-After of a 429 / 4429, a draining or busy node's 503 / 4503), and
    // spread over half as long again: thousands of clients refused together must not all come back together.
    const retryAfterMs = this.retryAfterMs > 0 ? Math.round(this.retryAfterMs * (1 + ((this.o.reconnect || {}).random ?? Math.random)() / 2)) : 0;
    const delayMs = Math.max(this.backoffDelay(this.attempt), retryAfterMs);
    this.retryAfterMs = 0;
    this.attempt++;
    this.emit('reconnecting', { attempt: this.attempt, delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.wanted) void this.open();
    }, delayMs);
  }

  private endForGood(reason: CloseReason, error: PlatformError): void {
    if (reason === 'signed_out') this.emit('close', { code: 0, reason, willReconnect: false });
    this.stop(error);
  }

  private stop(error: PlatformError): void {
    this.wanted = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.stopHeartbeat();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(error);
  }
}

/**
 * Closes a reconnect cannot mend: the account was erased, the game's credentials the socket opened with were
 * revoked (4005: the same client key would be refused), or the connection was refused for the client's own
 * request (bad or conflicting game credentials, an unknown client key, forbidden). A refused token is retried
 * with a new one; too many sockets, an unavailable service and server errors are retried with backoff.
 */
function endsForGood(reason: CloseReason, errorCode: string | undefined): boolean {
  if (reason === 'account_deleted' || reason === 'game_credentials_revoked' || sessionEnd(reason, errorCode) || reason === 'bad_request' || reason === 'forbidden') return true;
  return reason === 'unauthorized' && errorCode !== undefined && errorCode !== 'unauthorized';
}

/** A close that ends the session itself: no reconnect, and the session is signed out locally. */
function sessionEnd(reason: CloseReason, errorCode: string | undefined): SessionEndReason | undefined {
  if (reason === 'session_revoked' || reason === 'account_disabled') return reason;
  // A connection refused because the token's session had ended already (4401 token_revoked).
  return reason === 'unauthorized' && errorCode === 'token_revoked' ? 'session_revoked' : undefined;
}

const SESSION_END_MESSAGES: Record<SessionEndReason | 'account_deleted', string> = {
  account_deleted: 'The account was erased',
  session_revoked: 'The session was ended (signed out elsewhere, or its refresh token was reused)',
  account_disabled: 'The account was locked or banned',
};

const FOR_GOOD_MESSAGES: Partial<Record<CloseReason, string>> = {
  account_deleted: 'The account was erased',
  game_credentials_revoked: "The game's client key was replaced (or the game deleted): a new build or configuration is needed",
};
