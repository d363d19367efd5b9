/** JSON over fetch: one place that sends requests and turns error answers into PlatformError. */
import { errorFromBody, PlatformError, type ErrorSource } from './errors.js';

/** The part of a fetch Response the client reads (the global one, undici's, a polyfill's). */
export interface FetchResponse {
  status: number;
  /** The response headers (the client reads `retry-after` and `x-request-id`). */
  headers: {
    /** A header's value, or null when absent. */
    get(name: string): string | null;
  };
  /** The body as text (the client parses JSON itself). */
  text(): Promise<string>;
}
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}
/** The part of `fetch` the client uses; pass your own to add a CA, a proxy, logging … */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface RequestOptions {
  method: string;
  path: string;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  token?: string;
}

export interface HttpService {
  readonly baseUrl: string;
  request<T>(o: RequestOptions): Promise<T>;
}

export function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) if (v !== undefined) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A path segment from a value a caller gave (publicIds, party ids …). */
export const seg = (v: string) => encodeURIComponent(v);

export function httpService(source: ErrorSource, baseUrl: string, fetchImpl: FetchLike, extraHeaders: () => Record<string, string>): HttpService {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    baseUrl: base,
    async request<T>(o: RequestOptions): Promise<T> {
      const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders(), ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(o.body);
      }
      let res: FetchResponse;
      try {
        res = await fetchImpl(base + o.path + queryString(o.query), { method: o.method, headers, body });
      } catch (cause) {
        throw new PlatformError({ status: 0, code: 'network_error', message: `${o.method} ${o.path} failed: ${String((cause as Error)?.message ?? cause)}`, source, cause });
      }
      const text = await res.text();
      let parsed: unknown = undefined;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
      }
      if (res.status >= 400) throw errorFromBody(source, res.status, parsed, res.headers);
      return parsed as T;
    },
  };
}
