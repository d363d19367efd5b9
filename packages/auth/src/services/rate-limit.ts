/** Auth's route conventions for the kit's sliding-window limits (kit rate-limit.ts, shared with the registry). */
import type { Limit } from '@platform/kit';

export { createRateLimiter, type Limit, type RateLimiter } from '@platform/kit';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Limits of a route that depend only on the request line and headers (the caller's address):
     * the onRequest hook checks them together with the general per-IP limit, in one round trip.
     */
    requestLimits?: (req: import('fastify').FastifyRequest) => Limit[];
    /**
     * Limits keyed by the (validated) body, e.g. per IP + email: on such a route the general limit waits for
     * them and all are checked together before the handler (one round trip), after body validation.
     */
    bodyLimits?: (req: import('fastify').FastifyRequest) => Limit[];
  }
}
