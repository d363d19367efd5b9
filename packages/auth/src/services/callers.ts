/**
 * Who may call each auth route, declared on the route (`config.caller`) and resolved once by the kit
 * (installCallers, after the body is validated and the rate limits are counted):
 *   - `none`: no credentials (sign-in, refresh, the key set, the email flows, the device code);
 *   - `player`: a valid access token, not revoked; `session`: the same, revoked allowed (a retried deletion);
 *   - `logout`: a `session` token when an Authorization header is sent, else none (the refresh token in the body
 *     names the session; the handler checks it);
 *   - `staff`: a player token with a staff role (moderator or admin); `admin`: with the admin role;
 *   - `service:<name>`: an internal caller of exactly that name (X-Internal-Key or a client certificate);
 *     `service:*`: any internal caller auth knows.
 * Handlers read the principal with claimsOf, actorOf or serviceOf.
 */
import { callerOf, type AccessClaims, type CallerResolver } from '@platform/kit';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import { adminRequired, fail } from '../errors.js';
import { assertStaff, type Actor } from './sanctions.js';

export type VerifiedClaims = AccessClaims & { revoked: boolean };

/** The verified access token of a `player`, `session`, `staff` or `admin` route. */
export const claimsOf = (req: FastifyRequest): VerifiedClaims => callerOf<VerifiedClaims>(req);

/** A `logout` route's token, when one was sent. */
export const sessionOf = (req: FastifyRequest): VerifiedClaims | undefined => callerOf<VerifiedClaims | undefined>(req);

/** The same as an actor (its subject and roles), for the staff actions. */
export function actorOf(req: FastifyRequest): Actor {
  const claims = claimsOf(req);
  return { id: claims.sub, roles: claims.roles };
}

/** The internal caller's name on a `service:…` route. */
export const serviceOf = (req: FastifyRequest): string => callerOf<string>(req);

export function authCallers(ctx: Pick<AuthContext, 'authenticate' | 'requireInternalCaller'>): Record<string, CallerResolver> {
  return {
    player: (req) => ctx.authenticate(req),
    session: (req) => ctx.authenticate(req, { allowRevoked: true }),
    logout: (req) => (req.headers.authorization === undefined ? undefined : ctx.authenticate(req, { allowRevoked: true })),
    async staff(req) {
      const claims = await ctx.authenticate(req);
      assertStaff({ id: claims.sub, roles: claims.roles });
      return claims;
    },
    async admin(req) {
      const claims = await ctx.authenticate(req);
      if (!claims.roles.includes('admin')) throw adminRequired();
      return claims;
    },
    service(req, name) {
      const caller = ctx.requireInternalCaller(req);
      // One caller identity where the route names one: another service's or a game server's key is refused.
      if (name !== '*' && caller !== name) throw fail('forbidden', `This endpoint accepts the ${name} service only`);
      return caller;
    },
  };
}
