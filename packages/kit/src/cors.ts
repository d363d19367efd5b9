/**
 * CORS for browser clients (HTML5/WebGL games served from their own origin), through @fastify/cors.
 * Allowed origins come from CORS_ALLOWED_ORIGINS: a comma-separated list of exact origins, or `*` (any
 * origin, only when set explicitly). Unset, the embedded platform (no DATABASE_URL) allows localhost origins
 * for development and a production deployment allows none. Preflights are answered before any service hook
 * runs, so they never need credentials. Tokens travel in headers, never cookies: no credentialed CORS.
 */
import cors from '@fastify/cors';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError } from './config.js';
import type { App } from './app-type.js';

/** What a service's config carries for CORS (its config object passes as is). */
export interface CorsSettings {
  corsAllowedOrigins?: string;
  databaseUrl?: string;
}

export type CorsPolicy = { kind: 'any' } | { kind: 'localhost' } | { kind: 'list'; origins: Set<string> };

const LOCALHOST = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/**
 * The headers a client sends beyond the CORS-safelisted ones: the game's public client key (docs/client-key.md)
 * and the SDK's Idempotency-Key among them (a preflight refusing one header refuses the whole request).
 */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-request-id',
  'x-platform-game-key',
  'x-platform-game-secret',
  'x-platform-client-key',
  'idempotency-key',
];
/** The headers a client may read beyond the safelisted ones: the request id and when to retry. */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after'];

export function corsPolicy(settings: CorsSettings = {}): CorsPolicy {
  const raw = settings.corsAllowedOrigins?.trim();
  if (!raw) return settings.databaseUrl ? { kind: 'list', origins: new Set() } : { kind: 'localhost' };
  if (raw === '*') return { kind: 'any' };
  const origins = new Set<string>();
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = 'null';
    }
    if (origin === 'null' || origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError([`CORS_ALLOWED_ORIGINS: ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`]);
    }
    origins.add(origin);
  }
  return { kind: 'list', origins };
}

export function originAllowed(policy: CorsPolicy, origin: string): boolean {
  if (policy.kind === 'any') return true;
  if (policy.kind === 'localhost') return LOCALHOST.test(origin);
  return policy.origins.has(origin);
}

/** Registers CORS on the app; a refused origin is logged once per origin (per process, at most 1,000 kept). */
export async function installCors(app: App, settings: CorsSettings | undefined, log: FastifyBaseLogger): Promise<void> {
  const policy = corsPolicy(settings);
  const logged = new Set<string>();
  await app.register(cors, {
    origin(origin, cb) {
      if (!origin) return cb(null, false);
      if (originAllowed(policy, origin)) return cb(null, true);
      if (!logged.has(origin) && logged.size < 1000) {
        logged.add(origin);
        log.warn({ origin: origin.slice(0, 200) }, 'CORS: origin not allowed (CORS_ALLOWED_ORIGINS); logged once per origin');
      }
      cb(null, false);
    },
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  });
}
