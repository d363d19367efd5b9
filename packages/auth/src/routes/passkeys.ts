/**
 * Passkeys (docs/auth.md, "Passkeys"): the account's passkeys (options, register, list, remove) and the passkey
 * sign-in (`POST /login/passkey/options`, `POST /login/passkey`). The credential objects are WebAuthn's own JSON
 * (what `PublicKeyCredential.toJSON()` gives), passed as they are: their field names are the standard's.
 */
import { Type, type Static } from 'typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { claimsOf } from '../services/callers.js';
import { listPasskeys, loginOptions, loginWithPasskey, registerPasskey, registrationOptions, removePasskey } from '../services/passkeys.js';
import { fail } from '../errors.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, Device, errorResponses, Timestamp, TokenResponse } from './schemas.js';

const security = [{ bearer: [] }];
const ACCOUNT = [BEARER_ERRORS, COMMON_ERRORS] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** base64url of an authenticator's bytes (bounded: a credential id is at most 1,023 bytes; CBOR blobs a few KiB). */
const B64 = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$' });
const Transport = Type.String({ maxLength: 32, pattern: '^[a-z-]+$' });
const ExtensionResults = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16, description: 'clientExtensionResults, as the browser gives them' });
const Common = {
  id: B64(1400),
  rawId: B64(1400),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  clientExtensionResults: ExtensionResults,
};

export const RegistrationCredential = Type.Object(
  {
    ...Common,
    response: Type.Object(
      {
        clientDataJSON: B64(4096),
        attestationObject: B64(16384),
        authenticatorData: Type.Optional(B64(8192)),
        transports: Type.Optional(Type.Array(Transport, { maxItems: 8 })),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(B64(4096)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The new credential: `PublicKeyCredential.toJSON()` of `navigator.credentials.create()` (WebAuthn field names)' },
);

export const AssertionCredential = Type.Object(
  {
    ...Common,
    response: Type.Object(
      {
        clientDataJSON: B64(4096),
        authenticatorData: B64(8192),
        signature: B64(2048),
        userHandle: Type.Optional(B64(128)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The assertion: `PublicKeyCredential.toJSON()` of `navigator.credentials.get()` (WebAuthn field names)' },
);

/** The options for the browser (WebAuthn's JSON form: `PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON`). */
export const PublicKeyOptions = Type.Object(
  { public_key: Type.Record(Type.String(), Type.Unknown(), { description: 'WebAuthn options JSON (field names are the standard’s); the challenge is good for one answer within five minutes' }) },
  { additionalProperties: false },
);

const PasskeyView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  transports: Type.Array(Type.String()),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});

// The library's types are wider (optional fields typed by WebAuthn); the schemas above are what is accepted.
export const asAssertion = (c: Static<typeof AssertionCredential>) => c as unknown as AuthenticationResponseJSON;
const asRegistration = (c: Static<typeof RegistrationCredential>) => c as unknown as RegistrationResponseJSON;

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
        summary: 'Start adding a passkey: the options for navigator.credentials.create() (not for guests)',
        security,
        response: { 200: PublicKeyOptions, ...errorResponses(...ACCOUNT, 'guest_restricted', 'passkey_limit', 'passkeys_unavailable') },
      },
    },
    async (req) => registrationOptions(c, claimsOf(req).sub),
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
        summary: 'Remove one of the account’s passkeys; ends the other sessions',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: { 204: Type.Null(), ...errorResponses(...ACCOUNT, 'passkey_not_found') },
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
