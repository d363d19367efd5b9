/**
 * What social's routes answer, exactly: each route lists the error codes it may answer with (one schema per
 * status, from the code list in services/errors.ts) beside its success response, and the headers a caller
 * may send. The OpenAPI document is made from these, and in tests every response is checked against them
 * (the kit's response contract), so a code a route answers but does not list fails its test.
 */
import { Type } from 'typebox';
import { socialErrors, type SocialErrorCode } from '../services/errors.js';

type Codes = SocialErrorCode | readonly SocialErrorCode[];

/** The error responses of these codes, one per status (the error body with `code` an enum of that status). */
export const errorResponses = (...codes: Codes[]) => socialErrors.responses('camel', [...new Set(codes.flat())]);

/** Any route: a request malformed at the HTTP level, unstorable text or too deep JSON in any part, a bug. */
export const ANY_ROUTE = ['bad_request', 'invalid_character', 'too_deep', 'internal_error'] as const;

/**
 * A caller's route (bearer or API key, app.ts): the credentials, the optional tenancy headers (checked with
 * the registry), the stores, and the profile made on first use (name_unavailable when no discriminator is free).
 */
export const CALLER = [
  ...ANY_ROUTE,
  'incomplete_game_credentials',
  'ambiguous_game_credentials',
  'unauthorized',
  'token_revoked',
  'invalid_game_credentials',
  'invalid_client_key',
  'name_unavailable',
  'key_set_unavailable',
  'registry_unavailable',
  'database_unavailable',
  'state_unavailable',
] as const;

/** A route with a path or query schema. */
export const VALIDATED = ['validation_failed'] as const;

/**
 * A route whose method carries a body (POST, PUT, PATCH, DELETE): Fastify reads any body sent, so even a route
 * without a body schema refuses a malformed, oversized or non-JSON one.
 */
export const BODY = ['validation_failed', 'malformed_json', 'payload_too_large', 'unsupported_media_type'] as const;

/** Outreach (friend requests, invites, reports), chat and search are rate-limited per user (services/limits.ts). */
export const LIMITED = ['rate_limited'] as const;

/** Who may be invited (services/invites.ts, inviteTarget): a friend, named once, no block either way, not the caller. */
export const INVITE_TARGET = ['target_required', 'user_not_found', 'cannot_invite_self', 'you_blocked_user', 'not_friends'] as const;

/** Using an invite addressed to the caller (services/invites.ts, usableInvite). */
export const USABLE_INVITE = ['invite_not_found', 'invite_not_pending', 'invite_expired'] as const;

/** A bodiless success (Node sends no body with 204). */
export const NoContent = Type.Null({ description: 'No content' });

/**
 * The optional headers of a caller's route. Tenancy: both game headers or neither (docs/social.md, "Tenancy").
 * Header names match case-insensitively; documented in their usual spelling.
 */
export const CallerHeaders = Type.Object({
  'X-Platform-Game-Key': Type.Optional(Type.String({ description: 'The game’s API key (tenancy; with X-Platform-Game-Secret)' })),
  'X-Platform-Game-Secret': Type.Optional(Type.String({ description: 'The game’s API secret (tenancy; with X-Platform-Game-Key)' })),
  'X-Platform-Client-Key': Type.Optional(Type.String({ description: 'The game client’s key (docs/client-key.md)' })),
  'X-User-Handle': Type.Optional(Type.String({ description: 'API-key mode: the display name of a profile made on first use' })),
});
