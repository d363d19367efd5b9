/**
 * A small JSON client for service-to-service calls over http or https (an
 * extra CA can be trusted, e.g. a peer's self-signed certificate). Network
 * failures and timeouts reject; every HTTP status resolves, so callers map
 * the peer's answers to their own error codes.
 */
import http from 'node:http';
import https from 'node:https';

export interface JsonResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
}

export interface JsonRequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  ca?: string | Buffer;
  timeoutMs?: number;
}

export function requestJson(method: string, url: string, opts: JsonRequestOptions = {}): Promise<JsonResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const req = lib.request(u, { method, headers, ca: opts.ca, timeout: opts.timeoutMs ?? 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${u.origin}${u.pathname}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}
