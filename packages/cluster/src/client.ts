/**
 * A small HTTPS/HTTP JSON client for clusters: trusts an extra CA (the
 * self-signed certificate of the nodes), keeps connections alive, and retries
 * on 502, 503, connection errors and timeouts as the auth spec tells clients to
 * ("Clients retry on 502, 503 and timeouts"). Retrying is safe only for
 * requests the service makes idempotent (see docs/deployment.md).
 */
import http from 'node:http';
import https from 'node:https';

export interface ClientOptions {
  /** Base URL, e.g. https://127.0.0.1:8443 */
  baseUrl: string;
  /** PEM trusted in addition to the system CAs. */
  ca?: string;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** Attempts per request on 502/503/timeout/connection error (1 = no retry). */
  attempts?: number;
  /** First backoff; doubles each retry, capped at 1 s. */
  backoffMs?: number;
}

export interface JsonResponse<T = any> {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: T;
  /** Attempts made (1 when the first answer was final). */
  attempts: number;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Overrides the client's attempts for this call. */
  attempts?: number;
  /** Bearer token. */
  token?: string;
  /**
   * The request is not idempotent (e.g. POST /refresh): retry only when it was
   * certainly not processed — a 503 (a draining node or a store outage before
   * the commit) or a refused connection — never after a timeout or a 502.
   */
  notIdempotent?: boolean;
}

export class RetryExhaustedError extends Error {
  constructor(
    message: string,
    readonly last: JsonResponse | undefined,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'RetryExhaustedError';
  }
}

const RETRY_STATUS = new Set([502, 503, 504]);

export class ClusterClient {
  readonly baseUrl: string;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  /** Counters for the caller's report (retries made, by reason). */
  readonly retries = { status: 0, network: 0, timeout: 0 };

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/$/, '');
    const isHttps = this.baseUrl.startsWith('https:');
    this.agent = isHttps ? new https.Agent({ keepAlive: true, ca: opts.ca, maxSockets: 16 }) : new http.Agent({ keepAlive: true, maxSockets: 16 });
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.attempts = opts.attempts ?? 5;
    this.backoffMs = opts.backoffMs ?? 100;
  }

  /** One attempt, no retry. Rejects on network errors and timeouts. */
  once<T = any>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<JsonResponse<T>> {
    const url = new URL(this.baseUrl + path);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, { method, headers, agent: this.agent, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          if (text && /json/.test(String(res.headers['content-type'] ?? ''))) {
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed as T, attempts: 1 });
        });
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error(`timeout after ${this.timeoutMs} ms`), { code: 'ETIMEOUT' })));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Retries on 502/503/504, connection errors and timeouts with exponential backoff. */
  async request<T = any>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<JsonResponse<T>> {
    const attempts = opts.attempts ?? this.attempts;
    let last: JsonResponse<T> | undefined;
    let lastErr: unknown;
    for (let i = 1; i <= attempts; i++) {
      try {
        const r = await this.once<T>(method, path, body, opts);
        const retryable = opts.notIdempotent ? r.status === 503 : RETRY_STATUS.has(r.status);
        if (!retryable) return { ...r, attempts: i };
        last = { ...r, attempts: i };
        lastErr = undefined;
        this.retries.status++;
      } catch (err) {
        lastErr = err;
        const code = (err as { code?: string }).code;
        if (opts.notIdempotent && code !== 'ECONNREFUSED') throw err;
        if (code === 'ETIMEOUT') this.retries.timeout++;
        else this.retries.network++;
      }
      if (i < attempts) await new Promise((r) => setTimeout(r, Math.min(1000, this.backoffMs * 2 ** (i - 1))));
    }
    if (last) return last;
    throw new RetryExhaustedError(`${method} ${path} failed after ${attempts} attempts: ${(lastErr as Error)?.message}`, last, attempts);
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, undefined, opts);
  }
  post<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('POST', path, body, opts);
  }
  delete<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('DELETE', path, undefined, opts);
  }

  close(): void {
    this.agent.destroy();
  }
}
