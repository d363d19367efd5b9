/**
 * Who is calling: a developer bearer token, checked against the current
 * account on every request so a demoted or removed account loses its rights
 * at once (the role claim in the token is informative only).
 */
import type { PlatformFriendsMode } from '@platform/kit';
import { callerOf, type CallerResolver } from '@platform/kit';
import type { FastifyRequest } from 'fastify';
import { developerQueries } from '../queries/developers.js';
import type { Role } from './tokens.js';
import type { Context } from '../context.js';
import { fail } from '../errors.js';
import type { CrossGameVisibility, GroupLimitsView } from '../queries/games.js';

export interface Caller {
  id: string;
  email: string;
  /** The role in effect: a super-admin without the second factor REGISTRY_SECOND_FACTOR_ROLES asks for acts as a developer. */
  role: Role;
  /** The stored role is held back until the developer enrols a second factor (docs/registry.md, "Second factor"). */
  secondFactorMissing: boolean;
  /** When the developer signed in (epoch seconds; the token's `auth_time`). */
  signedInAt: number;
}

const unauthorized = () =>
  fail('unauthorized', 'A valid developer bearer token is required', undefined, {
    headers: { 'www-authenticate': 'Bearer realm="platform-registry"' },
  });

const invalidApiKey = () => fail('invalid_api_key', 'Valid X-Platform-Api-Key and X-Platform-Api-Secret headers are required');

/** The developer a `developer` or `superadmin` route runs for (resolved by the kit before the handler). */
export const developerOf = (req: FastifyRequest): Caller => callerOf<Caller>(req);
/** The game a `game` route runs for: its API key and secret were valid. */
export const gameOf = (req: FastifyRequest): ValidatedGame => callerOf<ValidatedGame>(req);

/** A game whose API key and secret were valid. */
export interface ValidatedGame {
  gameId: string;
  visibility: CrossGameVisibility;
  /** The game's guest restrictions (null: the deployment's); carried to social by validate-key. */
  guestRestricted: string[] | null;
  /** The game's group limits (null: the deployment's); carried to social by validate-key. */
  groupLimits: GroupLimitsView | null;
  /** What social does with a player's platform friends in this game; carried to social by validate-key. */
  platformFriends: PlatformFriendsMode;
}

/**
 * The registry's caller kinds (kit installCallers; a route declares one in `config.caller`): `developer` (a
 * developer bearer token), `superadmin` (the same, role super-admin), `game` (X-Platform-Api-Key and Secret,
 * checked by `validateKey` of services/game-keys.ts, passed in: that module imports this one's Caller).
 */
export function registryCallers(
  ctx: Context,
  validateKey: (ctx: Context, apiKey: string, apiSecret: string) => Promise<ValidatedGame | undefined>,
): Record<string, CallerResolver> {
  return {
    developer: (req) => authenticateDeveloper(ctx, req),
    superadmin: (req) => authenticateSuperAdmin(ctx, req),
    async game(req) {
      const key = req.headers['x-platform-api-key'];
      const secret = req.headers['x-platform-api-secret'];
      if (typeof key !== 'string' || typeof secret !== 'string' || key.length > 256 || secret.length > 256) throw invalidApiKey();
      const game = await validateKey(ctx, key, secret);
      if (!game) throw invalidApiKey();
      return game;
    },
  };
}

/** The developer a bearer token names, as the account is now. */
export async function authenticateDeveloper(ctx: Context, req: FastifyRequest): Promise<Caller> {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_.~+/=-]+)$/i.exec(header.trim()) : null;
  if (!match) throw unauthorized();
  let claims;
  try {
    claims = await ctx.tokens.verify(match[1]);
  } catch {
    throw unauthorized();
  }
  const d = await developerQueries(ctx.db).byId(claims.developerId);
  // An older generation: the developer added or removed the second factor since this token was issued.
  if (!d || claims.generation !== d.token_generation) throw unauthorized();
  // A passkey counts: it is user-verified possession, a second factor in itself (decision 0028).
  const secondFactorMissing = !d.totp_on && !d.passkeys_on && ctx.config.secondFactorRoles.includes(d.role);
  return { id: d.id, email: d.email, role: secondFactorMissing ? 'developer' : d.role, secondFactorMissing, signedInAt: claims.authTime };
}

/**
 * Adding a factor or removing a passkey needs a recent sign-in (docs/registry.md, "Recent sign-in"; decision 0031):
 * a developer token lives REGISTRY_TOKEN_TTL_SECONDS (12 hours by default), and one taken from a browser must not
 * add the taker's passkey or authenticator, nor remove the owner's passkey.
 */
export function assertRecentSignIn(ctx: Context, caller: Pick<Caller, 'signedInAt'>): void {
  const seconds = ctx.config.recentSignInSeconds;
  if (ctx.tokens.now() - caller.signedInAt <= seconds) return;
  throw fail('recent_sign_in_required', `Sign in again first: changing your sign-in factors needs a sign-in within the last ${Math.round(seconds / 60)} minutes`, {
    MaxAgeSeconds: seconds,
  });
}

export async function authenticateSuperAdmin(ctx: Context, req: FastifyRequest): Promise<Caller> {
  const caller = await authenticateDeveloper(ctx, req);
  if (caller.secondFactorMissing) throw fail('second_factor_required', 'Add an authenticator app (POST /developers/me/mfa/totp) or a passkey (POST /developers/me/passkeys/registration/options) to use the super-admin rights');
  if (caller.role !== 'super-admin') throw fail('forbidden', 'Only the super-admin may do this');
  return caller;
}
