import { Type } from 'typebox';
import { authErrors, fail, type AuthErrorCode } from '../errors.js';
import { DEVICE_PLATFORMS } from '../services/sign-in.js';

/**
 * A route's OpenAPI error responses: the listed codes it may answer with, one schema per status
 * (the error body with `code` as an enum of that status' codes).
 */
export const errorResponses = (...codes: (AuthErrorCode | readonly AuthErrorCode[])[]) => authErrors.responses('snake', codes.flat());
/** What any route with a JSON body may answer before its handler runs. */
export const BODY_ERRORS = ['validation_failed', 'malformed_json', 'invalid_character', 'payload_too_large', 'unsupported_media_type'] as const;
/** What any rate-limited route may answer: the limit, and the stores down. */
export const COMMON_ERRORS = ['rate_limited', 'database_unavailable', 'state_unavailable'] as const;
/** A Bearer route without a usable access token. */
export const BEARER_ERRORS = ['unauthenticated', 'invalid_token'] as const;
/** Verifying a platform ticket. */
export const TICKET_ERRORS = ['unknown_provider', 'provider_not_configured', 'invalid_ticket', 'provider_unavailable'] as const;

export const Email = Type.String({ format: 'email', maxLength: 254 });
/** The policy (10–256) is checked by the service so it can answer weak_password; this only bounds the body. */
export const Password = Type.String({ minLength: 1, maxLength: 1024 });
export const Fingerprint = Type.String({ minLength: 8, maxLength: 512 });
export const DevicePlatformSchema = Type.Union(DEVICE_PLATFORMS.map((p) => Type.Literal(p)));
export const Device = Type.Object({ fingerprint: Fingerprint, platform: Type.Optional(DevicePlatformSchema) }, { additionalProperties: false });
export const Provider = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_]+$' });
export const Ticket = Type.String({ minLength: 1, maxLength: 16384 });
export const Nonce = Type.String({ minLength: 1, maxLength: 512 });

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer(),
  token_type: Type.Literal('Bearer'),
  account_id: Type.String({ format: 'uuid' }),
});

/**
 * For endpoints whose body is optional (POST without a body has none, which a
 * body schema would refuse): an absent body is `{}`, otherwise an object with
 * only the given fields of the given types.
 */
export function optionalBody<T extends Record<string, unknown>>(body: unknown, fields: Record<string, 'string' | 'boolean'>): Partial<T> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw fail('validation_failed', 'body must be an object');
  for (const [k, v] of Object.entries(body)) {
    if (!(k in fields)) throw fail('validation_failed', `body has an unknown field ${k}`, { field: k });
    if (typeof v !== fields[k] || (typeof v === 'string' && (!v || v.length > 512))) {
      throw fail('validation_failed', `body field ${k} must be a ${fields[k] === 'string' ? 'non-empty string' : 'boolean'}`, { field: k });
    }
  }
  return body as Partial<T>;
}
