/**
 * The standard OAuth 2.0 surface: the device authorization endpoint (RFC 8628 §3.1), the token endpoint (RFC 6749
 * §3.2, grants `urn:ietf:params:oauth:grant-type:device_code` and `refresh_token`) and the metadata documents
 * (RFC 8414, and the same at the OpenID discovery path). Standard clients send
 * `application/x-www-form-urlencoded` (JSON is accepted too) and read RFC 6749 §5.2 error bodies: every error
 * of these two endpoints carries `error` and `error_description` beside the service's `code` and `message`.
 * The JSON routes (/refresh …) are unchanged.
 */
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail, type AuthErrorCode } from '../errors.js';
import { AppError } from '@platform/kit';
import { authorizeDevice, checkClient, DEVICE_CODE_GRANT, exchangeDeviceCode } from '../services/device-grants.js';
import { refreshTokens } from '../services/tokens.js';
import { BODY_ERRORS, COMMON_ERRORS, DevicePlatformSchema, errorResponses, Fingerprint, TokenResponse } from './schemas.js';

/** The kit's codes for a request that could not be read as asked: RFC 6749's `invalid_request`. */
const INVALID_REQUEST = new Set<string>(['validation_failed', 'malformed_json', 'bad_request', 'invalid_character', 'too_deep', 'payload_too_large', 'unsupported_media_type']);
const SERVER_TROUBLE = new Set<string>(['database_unavailable', 'state_unavailable', 'internal_error']);
const REFRESH_FAILURES = new Set<string>(['invalid_refresh_token', 'token_reused']);

/** The RFC 6749 `error` of one of the service's codes (the OAuth codes are their own). */
export function oauthError(code: string): string {
  if (INVALID_REQUEST.has(code)) return 'invalid_request';
  if (SERVER_TROUBLE.has(code)) return 'temporarily_unavailable';
  return code;
}

/** RFC 6749 §3.2: form-encoded; a parameter sent twice is an error. NUL and the like are refused later, as in JSON. */
function parseForm(_req: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void): void {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(body)) {
    if (k in out) return done(fail('invalid_request', `The parameter ${k} is repeated`, { field: k }));
    out[k] = v;
  }
  done(null, { ...out });
}

/** Adds `error` and `error_description` (RFC 6749 §5.2) to every error body of the scope. */
function addOAuthErrorFields(_req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  if (reply.statusCode < 400 || typeof payload !== 'string') return done(null, payload);
  try {
    const body = JSON.parse(payload) as { code?: string; message?: string };
    if (typeof body.code !== 'string') return done(null, payload);
    done(null, JSON.stringify({ error: oauthError(body.code), error_description: body.message, ...body }));
  } catch {
    done(null, payload);
  }
}

const ClientId = Type.String({ maxLength: 256, description: 'The public client\'s id (AUTH_DEVICE_CLIENT_IDS)' });
const OAUTH_ERRORS = [...BODY_ERRORS, ...COMMON_ERRORS, 'invalid_request', 'invalid_client'] as const;
const OAUTH_DESCRIPTION =
  ' Errors carry RFC 6749 `error` and `error_description` beside `code` and `message`; input errors are `invalid_request`. Unknown parameters are ignored (RFC 6749 §3.2).';

export const DeviceAuthorizationResponse = Type.Object({
  device_code: Type.String(),
  user_code: Type.String({ description: 'XXXX-XXXX from BCDFGHJKLMNPQRSTVWXZ' }),
  verification_uri: Type.String(),
  verification_uri_complete: Type.String(),
  expires_in: Type.Integer(),
  interval: Type.Integer(),
});

export const AuthorizationServerMetadata = Type.Object({
  issuer: Type.String(),
  jwks_uri: Type.String(),
  token_endpoint: Type.String(),
  device_authorization_endpoint: Type.String(),
  grant_types_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  subject_types_supported: Type.Array(Type.String()),
  id_token_signing_alg_values_supported: Type.Array(Type.String()),
  token_endpoint_auth_signing_alg_values_supported: Type.Optional(Type.Array(Type.String())),
  access_token_signing_alg_values_supported: Type.Array(Type.String()),
  service_documentation: Type.String(),
});

/** The metadata (RFC 8414 §2); every URL under the configured issuer, so a client's issuer check passes. */
export function authorizationServerMetadata(c: AuthContext) {
  const issuer = c.config.issuer.replace(/\/+$/, '');
  return {
    issuer: c.config.issuer,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    token_endpoint: `${issuer}/oauth/token`,
    device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
    grant_types_supported: [DEVICE_CODE_GRANT, 'refresh_token'],
    // No authorization endpoint (no browser redirect flows): no response types.
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['none'],
    subject_types_supported: ['public'],
    // No ID tokens are issued; access tokens and the key set are EdDSA (Ed25519), the one signing algorithm.
    id_token_signing_alg_values_supported: ['EdDSA'],
    access_token_signing_alg_values_supported: ['EdDSA'],
    service_documentation: `${issuer}/docs`,
  };
}

/** Seconds verifiers and clients may cache the metadata (as the key set). */
export const METADATA_MAX_AGE_SECONDS = 300;

export async function oauthRoutes(app: App, c: AuthContext) {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => parseForm(req, body as string, done));
  app.addHook('onSend', addOAuthErrorFields);
  deviceAuthorizationRoute(app, c);
  tokenRoute(app, c);
  metadataRoutes(app, c);
}

/** POST /oauth/device_authorization (RFC 8628 §3.1). */
function deviceAuthorizationRoute(app: App, c: AuthContext) {
  app.post(
    '/oauth/device_authorization',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Device authorization request (RFC 8628 §3.1): a device code for the device, a user code for the player',
        description:
          'For TVs and consoles. The device shows `user_code` and `verification_uri` (the approval page) and polls /oauth/token with `device_code` every `interval` seconds. ' +
          'Extensions: `device_name` and `platform` are shown to the player and in the session list; `device_fingerprint` records the device as sign-ins do.' +
          OAUTH_DESCRIPTION,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object(
          {
            client_id: Type.Optional(ClientId),
            scope: Type.Optional(Type.String({ maxLength: 1024, description: 'Ignored: the platform has no scopes' })),
            device_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            platform: Type.Optional(DevicePlatformSchema),
            device_fingerprint: Type.Optional(Fingerprint),
          },
          { additionalProperties: true },
        ),
        response: { 200: DeviceAuthorizationResponse, ...errorResponses(OAUTH_ERRORS) },
      },
      config: {
        caller: 'none',
        requestLimits: (req) => [{ name: 'device:authorize_ip', key: req.ip, limit: c.config.rateDeviceAuthorizePerIp }],
      },
    },
    async (req) => {
      const b = req.body;
      return authorizeDevice(
        c,
        { clientId: b.client_id, deviceName: b.device_name, platform: b.platform, deviceFingerprint: b.device_fingerprint },
        c.auditCtx(req),
      );
    },
  );
}

/** POST /oauth/token (RFC 6749 §3.2): device_code and refresh_token. */
function tokenRoute(app: App, c: AuthContext) {
  app.post(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token endpoint (RFC 6749 §3.2): the device_code grant (RFC 8628 §3.4) and refresh_token (same rotation and reuse detection as /refresh)',
        description:
          'Device code: `authorization_pending` until the player decides, `slow_down` when polled before the interval (which grows by 5 s), `access_denied`, `expired_token`; ' +
          'an unknown, spent or foreign device code is `invalid_grant`. Refresh token: an unknown, expired or revoked token is `invalid_grant` (`reason` invalid_refresh_token); ' +
          'a spent one ends the session (`invalid_grant`, `reason` token_reused).' +
          OAUTH_DESCRIPTION,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object(
          {
            grant_type: Type.String({ minLength: 1, maxLength: 256 }),
            device_code: Type.Optional(Type.String({ maxLength: 512 })),
            refresh_token: Type.Optional(Type.String({ maxLength: 512 })),
            client_id: Type.Optional(ClientId),
            scope: Type.Optional(Type.String({ maxLength: 1024 })),
          },
          { additionalProperties: true },
        ),
        response: {
          200: TokenResponse,
          ...errorResponses(OAUTH_ERRORS, 'unsupported_grant_type', 'invalid_grant', 'authorization_pending', 'slow_down', 'access_denied', 'expired_token'),
        },
      },
      // The refresh limit (per IP) covers both grants: polling and refreshing are the same kind of call.
      config: { caller: 'none', requestLimits: (req) => [{ name: 'refresh:ip', key: req.ip, limit: c.config.rateRefreshPerIp }] },
    },
    async (req) => {
      const b = req.body;
      if (b.grant_type === DEVICE_CODE_GRANT) {
        if (!b.device_code) throw fail('invalid_request', 'device_code is required', { field: 'device_code' });
        return exchangeDeviceCode(c, b.device_code, b.client_id, c.auditCtx(req));
      }
      if (b.grant_type === 'refresh_token') {
        if (!b.refresh_token) throw fail('invalid_request', 'refresh_token is required', { field: 'refresh_token' });
        if (b.client_id !== undefined) checkClient(c, b.client_id);
        try {
          return await refreshTokens(c, b.refresh_token, c.auditCtx(req));
        } catch (err) {
          // RFC 6749 §5.2: a bad refresh token is invalid_grant (400); why, in `reason`.
          if (err instanceof AppError && REFRESH_FAILURES.has(err.code)) throw fail('invalid_grant', err.message, { reason: err.code as AuthErrorCode });
          throw err;
        }
      }
      throw fail('unsupported_grant_type', `grant_type must be ${DEVICE_CODE_GRANT} or refresh_token`);
    },
  );
}

/** The metadata (RFC 8414) at its own path and at the OpenID discovery path. */
function metadataRoutes(app: App, c: AuthContext) {
  for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    app.get(
      url,
      {
        schema: {
          tags: ['oauth'],
          summary: url.includes('openid') ? 'OpenID-style discovery document (the same metadata)' : 'Authorization server metadata (RFC 8414)',
          response: { 200: AuthorizationServerMetadata },
        },
        config: { caller: 'none', rateLimited: false },
      },
      async (_req, reply) => {
        reply.header('cache-control', `public, max-age=${METADATA_MAX_AGE_SECONDS}`);
        return authorizationServerMetadata(c);
      },
    );
  }
}
