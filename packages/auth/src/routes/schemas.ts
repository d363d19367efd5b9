import { Type } from 'typebox';
import { authErrors, fail, type AuthErrorCode } from '../errors.js';
import { DEVICE_PLATFORMS } from '../services/sign-in.js';

/**
 * A route's OpenAPI error responses: the listed codes it may answer with, one schema per status
 * (the error body with `code` as an enum of that status' codes).
 */
export const errorResponses = (...codes: (AuthErrorCode | readonly AuthErrorCode[])[]) => authErrors.responses('snake', codes.flat());
/** What any route with a JSON body may answer before its handler runs. */
export const BODY_ERRORS = ['validation_failed', 'malformed_json', 'bad_request', 'invalid_character', 'too_deep', 'payload_too_large', 'unsupported_media_type'] as const;
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

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const AccountStatus = Type.Union([Type.Literal('active'), Type.Literal('locked'), Type.Literal('banned'), Type.Literal('deleted')]);

export const IdentityView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  provider: Type.String(),
  provider_user_id: Type.String(),
  verified: Type.Boolean(),
  linked_at: Timestamp,
  last_login_at: NullableTimestamp,
});

export const IdentitiesView = Type.Object({ identities: Type.Array(IdentityView) });

export const DeviceView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  platform: Type.Union([Type.String(), Type.Null()]),
  push_handle: Type.Union([Type.String(), Type.Null()]),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
});

const AccountFields = {
  id: Type.String({ format: 'uuid' }),
  display_name: Type.Union([Type.String(), Type.Null()]),
  status: AccountStatus,
  roles: Type.Array(Type.String()),
  home_region: Type.Union([Type.String(), Type.Null()]),
  is_guest: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: NullableTimestamp,
};

export const AccountView = Type.Object({ ...AccountFields, identities: Type.Array(IdentityView), devices: Type.Array(DeviceView) });

/** Rows as stored, minus every secret hash (docs/auth.md, "Export"). */
const ExportRows = Type.Array(Type.Object({}, { additionalProperties: true }));
export const AccountExport = Type.Object({
  exported_at: Timestamp,
  account: Type.Object(AccountFields),
  identities: Type.Array(IdentityView),
  credentials: ExportRows,
  devices: Type.Array(DeviceView),
  sessions: ExportRows,
  audit_log: ExportRows,
  /** Password-reset, verification and email-change tokens mailed (no hashes): docs/auth.md, "Email flows". */
  email_tokens: ExportRows,
  /** The account's sanctions, ended ones too, without who set or lifted them: docs/auth.md, "Sanctions". */
  sanctions: ExportRows,
  /** The account's appeals with their answers, without who decided: docs/auth.md, "Appeals". */
  appeals: ExportRows,
});

export const AccountDeleted = Type.Object({ status: Type.Literal('deleted'), deleted_at: Timestamp, purge_after: Timestamp });

export const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object({ kty: Type.Literal('OKP'), crv: Type.Literal('Ed25519'), x: Type.String(), kid: Type.String(), alg: Type.Literal('EdDSA'), use: Type.Literal('sig') }),
  ),
});

export const KeyRotation = Type.Object({ kid: Type.String(), state: Type.String(), activate_at: Timestamp });
export const AccountStatusChange = Type.Object({ id: Type.String({ format: 'uuid' }), status: AccountStatus, sessions_revoked: Type.Integer({ minimum: 0 }) });

/** docs/auth.md, "Sanctions". */
export const SanctionSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  account_id: Type.String({ format: 'uuid' }),
  type: Type.String({ description: 'ban, chat, or a feature named in AUTH_SANCTION_FEATURES' }),
  reason: Type.String(),
  created_at: Timestamp,
  created_by: Type.String({ description: 'The moderator’s account id, or service:<name> for a server-role token' }),
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'null: permanent' }),
  lifted_at: NullableTimestamp,
  lifted_by: Type.Union([Type.String(), Type.Null()]),
  lift_reason: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
});
export const SanctionList = Type.Object({ sanctions: Type.Array(SanctionSchema) });
export const OwnSanctions = Type.Object({
  sanctions: Type.Array(
    Type.Object({ id: Type.String({ format: 'uuid' }), type: Type.String(), reason: Type.String(), created_at: Timestamp, expires_at: Type.Union([Timestamp, Type.Null()]) }),
  ),
});

/** Reasons are shown to the player: plain text, bounded. */
export const SanctionReason = Type.String({ minLength: 1, maxLength: 1000 });
export const NewSanctionBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 32, description: 'ban, chat, or a feature named in AUTH_SANCTION_FEATURES' }),
    reason: SanctionReason,
    expires_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'RFC 3339, in the future; not with duration_seconds' })),
    duration_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 315_360_000, description: 'Seconds from now (at most 10 years); not with expires_at' })),
  },
  { additionalProperties: false, description: 'Neither expires_at nor duration_seconds: permanent' },
);

export const AccountSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  display_name: Type.String(),
  status: AccountStatus,
  roles: Type.Array(Type.String()),
  is_guest: Type.Boolean(),
  created_at: Timestamp,
  email: Type.Union([Type.String(), Type.Null()]),
});
export const AccountSearch = Type.Object({ accounts: Type.Array(AccountSummary) });
export const AccountLookup = Type.Object({
  account: Type.Object({ ...AccountSummary.properties, updated_at: Timestamp, deleted_at: NullableTimestamp }),
  identities: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      provider: Type.String(),
      provider_user_id: Type.String(),
      email: Type.Union([Type.String(), Type.Null()]),
      verified: Type.Boolean(),
      linked_at: Timestamp,
      last_login_at: NullableTimestamp,
    }),
  ),
  sessions: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      auth_method: Type.String(),
      device_platform: Type.Union([Type.String(), Type.Null()]),
      ip_cidr: Type.Union([Type.String(), Type.Null()]),
      created_at: Timestamp,
      expires_at: Timestamp,
      revoked_at: NullableTimestamp,
    }),
    { description: 'The latest 50' },
  ),
  audit: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      event: Type.String(),
      ip: Type.Union([Type.String(), Type.Null()]),
      node_id: Type.String(),
      actor: Type.Union([Type.String(), Type.Null()], { description: 'Who acted: an account id, service:<name>, cli; null: no signed-in caller' }),
      detail: Type.Object({}, { additionalProperties: true }),
      at: Timestamp,
    }),
    { description: 'The latest 50, newest first' },
  ),
  sanctions: Type.Array(SanctionSchema, { description: 'All, newest first' }),
  guest_score: Type.Object(
    {
      score: Type.Number({ description: 'The account\'s signals and its devices\', decayed to now (2 decimals)' }),
      level: Type.Union([Type.Literal('normal'), Type.Literal('slow'), Type.Literal('refuse')], {
        description: 'slow: from AUTH_GUEST_SCORE_SLOW; refuse: from AUTH_GUEST_SCORE_REFUSE',
      }),
      reasons: Type.Array(
        Type.Object({
          subject: Type.Union([Type.Literal('account'), Type.Literal('device'), Type.Literal('network')]),
          signal: Type.String({ description: 'guest_created, restore_failed or sanctioned' }),
          value: Type.Number({ description: 'Decayed to now' }),
          events: Type.Integer({ description: 'Events ever counted in this signal' }),
          last_at: Timestamp,
        }),
      ),
    },
    { description: 'The guest abuse score (staff only; never shown to the player; docs/auth.md, "Guest abuse score")' },
  ),
});
