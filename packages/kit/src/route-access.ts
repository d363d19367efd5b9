/**
 * Who may call a route is decided by the route that runs, never by a string test on the request URL: the
 * router matches the decoded path (`/v1/%69nternal/x` runs `/v1/internal/x`), so a guard comparing `req.url`
 * and the route that runs can disagree. Each route names its access in its config; a service's guard reads
 * `routeAccess(req)` in its onRequest hook, after routing.
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import type { App } from './app-type.js';

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
     * Who may call the route (installCallers below): `none`, one of the service's caller kinds, or
     * `service:<name>`, the one server identity an internal route accepts (every other is refused, 403).
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
  const config = req.routeOptions.config;
  return config?.access ?? (config?.caller ? accessOfCaller(config.caller) : 'authenticated');
}

/** Marks routes the kit's plugins register under a prefix (the docs UI) as public and not rate-limited. */
export function publicPrefixRoute(route: RouteOptions, prefixes: readonly string[]): void {
  if (!prefixes.some((p) => route.url === p || route.url.startsWith(p + '/'))) return;
  route.config = { ...(route.config ?? {}), access: 'public', rateLimited: false } as never;
}

/**
 * Who may call a route, declared once where the route is: `config: { caller }`, one of the service's caller kinds
 * (`installCallers`), e.g. `none` (public), `player`, `developer`, `superadmin`, or `service:<name>` (one server
 * identity; `service:*` any the service knows). The kit resolves it once per request, before the handler runs, with
 * the service's resolver for that kind; the handler reads the principal with `callerOf(req)`. A route that declares
 * no caller (and is not public) stops the service at start: nothing is open by accident.
 */
export type CallerResolver = (req: FastifyRequest, name: string | undefined) => Promise<unknown> | unknown;

const principals = new WeakMap<object, unknown>();

/** The principal the route's declared caller resolved to (set before the handler runs). */
export function callerOf<P>(req: FastifyRequest): P {
  if (!principals.has(req)) throw new Error(`${req.routeOptions.url}: no caller resolved (the route declares none)`);
  return principals.get(req) as P;
}

/** The declared caller's kind and name: `service:auth` → [`service`, `auth`], `player` → [`player`, undefined]. */
function splitCaller(caller: string): [string, string | undefined] {
  const i = caller.indexOf(':');
  return i < 0 ? [caller, undefined] : [caller.slice(0, i), caller.slice(i + 1)];
}

export function accessOfCaller(caller: string): RouteAccess {
  if (caller === 'none') return 'public';
  return splitCaller(caller)[0] === 'service' ? 'internal' : 'authenticated';
}

/**
 * Installs the service's caller resolvers (call before its routes are registered). `phase`: `onRequest` (before
 * the body is read: social, whose callers are checked before anything else) or `preHandler` (after the body is
 * validated: auth and the registry answer a bad body before the credentials).
 */
export function installCallers(app: App, resolvers: Record<string, CallerResolver>, phase: 'onRequest' | 'preHandler' = 'preHandler'): void {
  const known = new Set(Object.keys(resolvers));
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { access?: RouteAccess; caller?: string };
    if (config.caller === undefined) {
      // The kit's own public routes (probes, docs, the CORS preflight) are public by their registration.
      if (config.access === 'public') return;
      throw new Error(`${[route.method].flat().join(',')} ${route.url}: the route must declare its caller (config.caller)`);
    }
    if (config.caller !== 'none' && !known.has(splitCaller(config.caller)[0])) {
      throw new Error(`${route.url}: unknown caller kind '${config.caller}' (known: none, ${[...known].join(', ')})`);
    }
  });
  const resolve = async (req: FastifyRequest) => {
    const caller = req.routeOptions.config?.caller;
    if (caller === undefined || caller === 'none' || req.routeOptions.url === undefined) return;
    const [kind, name] = splitCaller(caller);
    principals.set(req, await resolvers[kind](req, name));
  };
  if (phase === 'onRequest') app.addHook('onRequest', resolve);
  else app.addHook('preHandler', resolve);
}
