/**
 * Passkeys (docs/auth.md, "Passkeys"): the account's passkeys (options, register, list, remove) and the passkey
 * sign-in (`POST /login/passkey/options`, `POST /login/passkey`). The credential objects are WebAuthn's own JSON
 * (what `PublicKeyCredential.toJSON()` gives), passed as they are: their field names are the standard's (schemas:
 * kit webauthn-schemas.ts, shared with the registry's developer passkeys).
 */
import { Type } from 'typebox';
import { AssertionCredential, asAssertion, asRegistration, RegistrationCredential, WebauthnOptionsJSON, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { claimsOf } from '../services/callers.js';
import { listPasskeys, loginOptions, loginWithPasskey, registerPasskey, registrationOptions, removePasskey } from '../services/passkeys.js';
import { fail } from '../errors.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, Device, errorResponses, Timestamp, TokenResponse } from './schemas.js';

const security = [{ bearer: [] }];
const ACCOUNT = [BEARER_ERRORS, COMMON_ERRORS] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The options for the browser (WebAuthn's JSON form: `PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON`). */
export const PublicKeyOptions = Type.Object({ public_key: WebauthnOptionsJSON }, { additionalProperties: false });

const PasskeyView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  transports: Type.Array(Type.String()),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});

export async function passkeyRoutes(app: App, c: AuthContext) {
  accountPasskeyRoutes(app, c);
  passkeySignInRoutes(app, c);
}

/** The account's own passkeys. */
function accountPasskeyRoutes(app: App, c: AuthContext) {
  app.get(
    '/account/passkeys',
    { config: { caller: 'player' }, schema: { tags: ['account'], summary: 'The account’s passkeys', security, response: { 200: Type.Object({ passkeys: Type.Array(PasskeyView) }), ...errorResponses(...ACCOUNT) } } },
    async (req) => listPasskeys(c, claimsOf(req).sub),
  );
  app.post(
    '/account/passkeys/registration/options',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Start adding a passkey: the options for navigator.credentials.create() (not for guests; the session signed in recently)',
        security,
        response: { 200: PublicKeyOptions, ...errorResponses(...ACCOUNT, 'guest_restricted', 'recent_sign_in_required', 'passkey_limit', 'passkeys_unavailable') },
      },
    },
    async (req) => registrationOptions(c, claimsOf(req).sub, claimsOf(req).sid),
  );
  app.post(
    '/account/passkeys/registration',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Add the passkey the browser made from the options; ends the other sessions',
        security,
        body: Type.Object({ credential: RegistrationCredential, name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'What the player calls it (default "Passkey")' })) }, { additionalProperties: false }),
        response: { 201: PasskeyView, ...errorResponses(...ACCOUNT, BODY_ERRORS, 'invalid_passkey', 'passkey_exists', 'passkey_limit', 'passkeys_unavailable') },
      },
    },
    async (req, reply) => {
      const claims = claimsOf(req);
      const view = await registerPasskey(c, claims.sub, claims.sid, { credential: asRegistration(req.body.credential), name: req.body.name }, c.auditCtx(req));
      reply.status(201);
      return view;
    },
  );
  app.delete(
    '/account/passkeys/:id',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Remove one of the account’s passkeys (the session signed in recently); ends the other sessions',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: { 204: Type.Null(), ...errorResponses(...ACCOUNT, 'recent_sign_in_required', 'passkey_not_found') },
      },
    },
    async (req, reply) => {
      const claims = claimsOf(req);
      // Any id that is not one of this account's passkeys (another's, unknown, not a uuid) is the same 404.
      if (!UUID.test(req.params.id)) throw fail('passkey_not_found', 'The account has no passkey with this id');
      await removePasskey(c, claims.sub, claims.sid, req.params.id.toLowerCase(), c.auditCtx(req));
      reply.status(204);
      return null;
    },
  );
}

/** The passkey sign-in (discoverable: no account named). */
function passkeySignInRoutes(app: App, c: AuthContext) {
  const loginLimits = { bodyLimits: (req: { ip: string }) => [{ name: 'login:ip', key: req.ip, limit: c.config.rateLoginPerIp }] };
  app.post(
    '/login/passkey/options',
    {
      config: { caller: 'none', ...loginLimits },
      schema: {
        tags: ['sign-in'],
        summary: 'Start a passkey sign-in: options for navigator.credentials.get() naming no account (discoverable passkeys)',
        response: { 200: PublicKeyOptions, ...errorResponses(COMMON_ERRORS, 'passkeys_unavailable') },
      },
    },
    async () => loginOptions(c),
  );
  app.post(
    '/login/passkey',
    {
      config: { caller: 'none', ...loginLimits },
      schema: {
        tags: ['sign-in'],
        summary: 'Sign in with a passkey: the assertion of the options’ challenge → the token pair (no second step: the passkey verified its user)',
        body: Type.Object({ credential: AssertionCredential, device: Type.Optional(Device) }, { additionalProperties: false }),
        response: { 200: TokenResponse, ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'invalid_passkey', 'account_disabled', 'account_banned', 'invalid_credentials', 'passkeys_unavailable') },
      },
    },
    async (req) => loginWithPasskey(c, { credential: asAssertion(req.body.credential), device: req.body.device }, c.auditCtx(req)),
  );
}
