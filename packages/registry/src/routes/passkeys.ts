/**
 * A developer's passkeys (docs/registry.md, "Passkeys"; decision 0028): options, register, list, remove, the
 * passkey sign-in (`POST /developers/login/passkey/options`, `POST /developers/login/passkey`) and the options of a
 * second step (`POST /developers/login/mfa/passkey/options`). The credential objects are WebAuthn's own JSON (what
 * `PublicKeyCredential.toJSON()` gives; kit webauthn-schemas.ts), passed as they are: their field names are the
 * standard's, not PascalCase.
 */
import { Type } from 'typebox';
import { AssertionCredential, asAssertion, asRegistration, createRateLimiter, RegistrationCredential, UUID_PATTERN, WebauthnOptionsJSON, type App } from '@platform/kit';
import type { Context } from '../context.js';
import { fail } from '../errors.js';
import { developerOf } from '../services/auth.js';
import { loginDeveloperPasskey } from '../services/developers.js';
import { assertionOptions, listPasskeys, registerPasskey, registrationOptions, removePasskey } from '../services/passkeys.js';
import { mfaDeveloper } from '../services/second-factors.js';
import { AuthResponse, bearer, ErrorBody } from './schemas.js';

const Timestamp = Type.String({ format: 'date-time' });
const PublicKeyOptions = Type.Object({ PublicKey: WebauthnOptionsJSON }, { additionalProperties: false });
const PasskeyView = Type.Object({
  Id: Type.String({ format: 'uuid' }),
  Name: Type.String(),
  Transports: Type.Array(Type.String()),
  CreatedAt: Timestamp,
  LastUsedAt: Type.Union([Timestamp, Type.Null()]),
});
const FreshToken = Type.String({ description: 'A new developer token: every token issued before this change stops working' });
export const MfaToken = Type.String({ minLength: 16, maxLength: 1024 });

export function passkeyRoutes(app: App, ctx: Context): void {
  ownPasskeyRoutes(app, ctx);
  passkeySignInRoutes(app, ctx);
}

/** The developer's own passkeys. */
function ownPasskeyRoutes(app: App, ctx: Context): void {
  const tags = ['developers'];
  app.get(
    '/developers/me/passkeys',
    { config: { caller: 'developer' }, schema: { tags, security: bearer, summary: 'The developer’s passkeys', response: { 200: Type.Object({ Passkeys: Type.Array(PasskeyView) }), 401: ErrorBody } } },
    async (req) => listPasskeys(ctx, developerOf(req).id),
  );
  app.post(
    '/developers/me/passkeys/registration/options',
    {
      config: { caller: 'developer' },
      schema: {
        tags,
        security: bearer,
        summary: 'Start adding a passkey: the options for navigator.credentials.create() (the token signed in recently)',
        response: { 200: PublicKeyOptions, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 503: ErrorBody },
      },
    },
    async (req) => registrationOptions(ctx, developerOf(req)),
  );
  app.post(
    '/developers/me/passkeys/registration',
    {
      config: { caller: 'developer' },
      schema: {
        tags,
        security: bearer,
        summary: 'Add the passkey the browser made from the options; answers a new token (the others stop working)',
        body: Type.Object(
          { Credential: RegistrationCredential, Name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'What the developer calls it (default "Passkey")' })) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ Passkey: PasskeyView, Token: FreshToken }), 400: ErrorBody, 401: ErrorBody, 409: ErrorBody, 503: ErrorBody },
      },
    },
    async (req, reply) => {
      const r = await registerPasskey(ctx, developerOf(req), { credential: asRegistration(req.body.Credential), name: req.body.Name }, req.log);
      reply.status(201);
      return r;
    },
  );
  app.delete(
    '/developers/me/passkeys/:id',
    {
      config: { caller: 'developer' },
      schema: {
        tags,
        security: bearer,
        summary: 'Remove one of the developer’s passkeys (the token signed in recently); answers a new token (the others stop working)',
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: { 200: Type.Object({ Token: FreshToken }), 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      // Any id that is not one of this developer's passkeys (another's, unknown, not a uuid) is the same 404.
      if (!UUID_PATTERN.test(req.params.id)) throw fail('passkey_not_found', 'The developer has no passkey with this id');
      return removePasskey(ctx, developerOf(req), req.params.id.toLowerCase(), req.log);
    },
  );
}

/** The passkey sign-in (discoverable: no developer named) and a second step's options. */
function passkeySignInRoutes(app: App, ctx: Context): void {
  const limiter = createRateLimiter(ctx.state, ctx.config.rateWindowSeconds, { onLimited: ctx.metrics.rateLimited });
  // The sign-in's own per-address limit (before validation: a flood of malformed answers counts too).
  const perIp = { onRequest: async (req: { ip: string }) => limiter.check({ name: 'login:ip', key: req.ip, limit: ctx.config.rateLoginPerIp }) };
  const tags = ['developers'];
  app.post(
    '/developers/login/passkey/options',
    {
      config: { caller: 'none' },
      schema: { tags, summary: 'Start a passkey sign-in: options for navigator.credentials.get() naming no developer (discoverable passkeys)', response: { 200: PublicKeyOptions, 429: ErrorBody, 503: ErrorBody } },
      ...perIp,
    },
    async () => assertionOptions(ctx, 'login', null),
  );
  app.post(
    '/developers/login/passkey',
    {
      config: { caller: 'none' },
      schema: {
        tags,
        summary: 'Sign in with a passkey: the assertion of the options’ challenge → a developer token (no second step: the passkey verified its user)',
        body: Type.Object({ Credential: AssertionCredential }, { additionalProperties: false }),
        response: { 200: AuthResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
      ...perIp,
    },
    async (req) => loginDeveloperPasskey(ctx, asAssertion(req.body.Credential), req.log),
  );
  app.post(
    '/developers/login/mfa/passkey/options',
    {
      config: { caller: 'none' },
      schema: {
        tags,
        summary: 'A second step with a passkey: the options for navigator.credentials.get() naming the developer’s passkeys (the MfaToken of the 401 mfa_required)',
        body: Type.Object({ MfaToken }, { additionalProperties: false }),
        response: { 200: PublicKeyOptions, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
      onRequest: async (req) => limiter.check({ name: 'login-mfa:ip', key: req.ip, limit: ctx.config.rateLoginMfaPerIp }),
    },
    async (req) => assertionOptions(ctx, 'mfa', mfaDeveloper(ctx, req.body.MfaToken)),
  );
}
