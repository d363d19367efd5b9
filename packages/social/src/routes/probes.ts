/** /health and /ready: aliases beside the kit's /healthz and /readyz. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import { ANY_ROUTE, errorResponses } from './responses.js';

/** The kit's probe body (its /healthz and /readyz answer the same). */
const Probe = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) }, { additionalProperties: false });

export function probeRoutes(app: App): void {
  const probe = { caller: 'none', rateLimited: false } as const;
  app.get(
    '/health',
    { schema: { tags: ['health'], summary: 'Liveness (alias of /healthz)', response: { 200: Probe, ...errorResponses(ANY_ROUTE) } }, config: probe },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/ready',
    { schema: { tags: ['health'], summary: 'Readiness (alias of /readyz)', response: { 200: Probe, 503: Probe, ...errorResponses(ANY_ROUTE) } }, config: probe },
    async (_req, reply) => {
      const r = await app.inject({ method: 'GET', url: '/readyz' });
      reply.status(r.statusCode as 200 | 503);
      return r.json();
    },
  );
}
