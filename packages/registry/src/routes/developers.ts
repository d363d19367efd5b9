import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../app.js';
import { AuthResponse, ErrorBody } from './schemas.js';

const Email = Type.String({ format: 'email', maxLength: 254 });

export function developerRoutes(app: App, ctx: Context): void {
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
        response: { 201: AuthResponse, 400: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const r = await ctx.developers.register({ email: req.body.Email, password: req.body.Password, displayName: req.body.DisplayName });
      reply.status(201);
      return r;
    },
  );

  app.post(
    '/developers/login',
    {
      schema: {
        tags: ['developers'],
        summary: 'Sign in and receive a developer token',
        body: Type.Object({ Email: Type.String({ maxLength: 254 }), Password: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }),
        response: { 200: AuthResponse, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (req) => ctx.developers.login({ email: req.body.Email, password: req.body.Password }),
  );
}
