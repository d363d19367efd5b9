/**
 * Who may call a route is decided by the route that runs, never by a string test on the request URL: the
 * router matches the decoded path (`/v1/%69nternal/x` runs `/v1/internal/x`), so a guard comparing `req.url`
 * and the route that runs can disagree. Each route names its access in its config; a service's guard reads
 * `routeAccess(req)` in its onRequest hook, after routing.
 */
import type { FastifyRequest, RouteOptions } from 'fastify';

/**
 * - `public`: no credentials (probes, docs, key set, sign-in);
 * - `authenticated` (the default when a route names none): the service's caller credentials;
 * - `internal`: another service's credentials only (the handler checks its caller again).
 */
export type RouteAccess = 'public' | 'authenticated' | 'internal';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (route-access.ts); `authenticated` when absent. */
    access?: RouteAccess;
    /**
     * `internal` routes: the one server identity (the token's `sub`, `service:<name>`) the route accepts; every
     * other server identity is refused (403). Checked by the service's route-access hook.
     */
    caller?: string;
    /** False exempts the route from general rate limits (probes, the key set). */
    rateLimited?: boolean;
  }
}

/**
 * The subject of the auth service's own server tokens (its outbox notices). Auth never mints it for another
 * caller: `auth` is a reserved name in AUTH_INTERNAL_KEYS and AUTH_INTERNAL_MTLS_CALLERS.
 */
export const AUTH_SERVICE_NAME = 'auth';
export const serviceSubject = (name: string): string => `service:${name}`;

/** A route as registered, for tests that walk every route of a service. */
export interface RegisteredRoute {
  method: string;
  url: string;
  access: RouteAccess;
  /** The one server identity an `internal` route accepts. */
  caller?: string;
}

/**
 * The access of the route that runs for this request, or `unmatched` when no route matched (the not-found
 * handler answers; no credentials are needed to learn that a path does not exist).
 */
export function routeAccess(req: FastifyRequest): RouteAccess | 'unmatched' {
  if (req.routeOptions.url === undefined) return 'unmatched';
  return req.routeOptions.config?.access ?? 'authenticated';
}

/** Marks routes the kit's plugins register under a prefix (the docs UI) as public and not rate-limited. */
export function publicPrefixRoute(route: RouteOptions, prefixes: readonly string[]): void {
  if (!prefixes.some((p) => route.url === p || route.url.startsWith(p + '/'))) return;
  route.config = { ...(route.config ?? {}), access: 'public', rateLimited: false } as never;
}
