import { Type } from 'typebox';
import { createRateLimiter, type App } from '@platform/kit';
import type { Context } from '../context.js';
import { loginDeveloper, registerDeveloper } from '../services/developers.js';
import { AuthResponse, ErrorBody } from './schemas.js';

const Email = Type.String({ format: 'email', maxLength: 254 });

export function developerRoutes(app: App, ctx: Context): void {
  // The sign-in limits of the auth service, through the same kit limiter and the shared state store (every
  // node counts together): per address, and per address and email against password guessing. The owner,
  // from another address, is not refused because of someone else's guesses.
  const limiter = createRateLimiter(ctx.state, ctx.config.rateWindowSeconds, { onLimited: ctx.metrics.rateLimited });
  app.post(
    '/developers/register',
    {
      schema: {
        tags: ['developers'],
        summary: 'Create a developer account',
        body: Type.Object(
          { Email, Password: Type.String({ description: '10 to 256 characters' }), DisplayName: Type.String({ minLength: 1, maxLength: 100 }) },
          { additionalProperties: false },
        ),
        response: { 201: AuthResponse, 400: ErrorBody, 409: ErrorBody, 429: ErrorBody },
      },
      config: { caller: 'none' },
      // Before validation: a flood of malformed sign-ups counts too.
      onRequest: async (req) => limiter.check({ name: 'register:ip', key: req.ip, limit: ctx.config.rateRegisterPerIp }),
    },
    async (req, reply) => {
      const r = await registerDeveloper(ctx, { email: req.body.Email, password: req.body.Password, displayName: req.body.DisplayName });
      reply.status(201);
      return r;
    },
  );

  app.post(
    '/developers/login',
    {
      schema: {
        tags: ['developers'],
        summary: 'Sign in and receive a developer token (401 mfa_required with MfaToken when the developer has a second factor)',
        body: Type.Object({ Email: Type.String({ maxLength: 254 }), Password: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }),
        response: { 200: AuthResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      },
      config: { caller: 'none' },
      onRequest: async (req) => limiter.check({ name: 'login:ip', key: req.ip, limit: ctx.config.rateLoginPerIp }),
      preHandler: async (req) =>
        limiter.check({ name: 'login:ip-email', key: `${req.ip}\u0000${req.body.Email.trim().toLowerCase()}`, limit: ctx.config.rateLoginPerIpEmail }),
    },
    async (req) => loginDeveloper(ctx, { email: req.body.Email, password: req.body.Password }),
  );
}
