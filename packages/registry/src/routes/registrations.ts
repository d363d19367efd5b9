import { isIP } from 'node:net';
import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../context.js';
import { ErrorBody, UserRegistrationView } from './schemas.js';
import { fail } from '../errors.js';
import { gameOf } from '../services/auth.js';
import { registerPlayer } from '../services/registrations.js';

const Str = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, description });

export function registerUserRoutes(app: App, ctx: Context): void {
  app.post(
    '/games/register-user',
    {
      config: { caller: 'game' },
      schema: {
        tags: ['games'],
        summary: 'Register a player with the calling game, resolving the player through the auth service',
        description:
          'Game credentials in X-Platform-Api-Key / X-Platform-Api-Secret. Field combinations: Provider + Ticket (+ Nonce); ' +
          'Email + Password (the account is created when the email is unknown); UserId (an existing account). DisplayName is optional. ' +
          'Idempotent: the same player registered twice answers 200 with the same registration and AccountCreated false. ' +
          'X-Platform-Player-Ip: the player’s own address (IPv4 or IPv6), as the game server saw it: auth counts sign-in limits and lockout per player address ' +
          '(and separately per game), so one player’s failures never refuse the game’s other players. Without it every player of the call shares the game server’s address.',
        security: [{ gameKey: [], gameSecret: [] }],
        headers: Type.Object({
          'x-platform-api-key': Type.Optional(Type.String()),
          'x-platform-api-secret': Type.Optional(Type.String()),
          'x-platform-player-ip': Type.Optional(Type.String({ maxLength: 64, description: 'The player’s address (IPv4 or IPv6); trusted only with valid game credentials' })),
        }),
        body: Type.Object(
          {
            UserId: Type.Optional(Str(200, 'Account id (the sub of the player tokens)')),
            DisplayName: Type.Optional(Str(64, 'Name shown for this player in this game')),
            Provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_]+$' })),
            ExternalId: Type.Optional(Str(256, 'Not accepted in this version: an external id is not proof of identity without a ticket')),
            Ticket: Type.Optional(Str(16384)),
            Nonce: Type.Optional(Str(512)),
            Email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
            Password: Type.Optional(Str(1024)),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ Registration: UserRegistrationView, Sub: Type.String(), AccountCreated: Type.Boolean() }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          423: ErrorBody,
          429: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (req) => {
      const game = gameOf(req);
      // Read only once the game's credentials are valid: an address named by an unauthenticated caller is never used.
      const playerIp = req.headers['x-platform-player-ip']?.trim();
      if (playerIp !== undefined && !isIP(playerIp)) {
        throw fail('validation_failed', 'X-Platform-Player-Ip must be an IPv4 or IPv6 address', { Field: 'X-Platform-Player-Ip' });
      }
      return registerPlayer(ctx, game.gameId, req.body, playerIp || req.ip);
    },
  );
}
