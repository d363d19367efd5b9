/**
 * Work that must not delay the answer, because its cost depends on the address asked about (the lookups of the
 * reset request, the resend, an email change and a sign-up that must answer alike for every address): started once
 * the response is sent (the route's onResponse hook), so even an in-process database (PGlite) cannot hold the
 * answer. Routes spread `afterResponseHook` into their options and call `afterResponse(req, job)`.
 */
import type { FastifyRequest } from 'fastify';

const jobs = new WeakMap<FastifyRequest, () => void>();

export const afterResponseHook = {
  onResponse: async (req: FastifyRequest) => {
    jobs.get(req)?.();
  },
};

/** Runs `job` once the answer to `req` is sent (never when the request failed before reaching it). */
export function afterResponse(req: FastifyRequest, job: () => void): void {
  jobs.set(req, job);
}
