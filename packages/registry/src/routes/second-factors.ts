/**
 * A developer's second factor (docs/registry.md, "Second factor (TOTP)"): status, enrol, confirm, remove, and the
 * second step of a sign-in (`POST /developers/login/mfa`).
 */
import { Type } from 'typebox';
import { AssertionCredential, asAssertion, createRateLimiter, type App } from '@platform/kit';
import type { Context } from '../context.js';
import { developerOf } from '../services/auth.js';
import { loginDeveloperMfa } from '../services/developers.js';
import { confirmTotp, mfaStatus, removeTotp, startTotp } from '../services/second-factors.js';
import { MfaToken } from './passkeys.js';
import { AuthResponse, bearer, ErrorBody } from './schemas.js';

const Code = Type.String({ minLength: 6, maxLength: 6, pattern: '^[0-9]{6}$', description: 'The authenticator app’s current 6-digit code' });
const RecoveryCode = Type.String({ minLength: 8, maxLength: 64, description: 'One of the recovery codes (each works once)' });
const Proof = { Code: Type.Optional(Code), RecoveryCode: Type.Optional(RecoveryCode) };
const FreshToken = Type.String({ description: 'A new developer token: every token issued before this change stops working' });

export function secondFactorRoutes(app: App, ctx: Context): void {
  mfaLoginRoute(app, ctx);
  app.get(
    '/developers/me/mfa',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['developers'],
        security: bearer,
        summary: 'The developer’s second factor',
        response: { 200: Type.Object({ Totp: Type.Boolean(), Pending: Type.Boolean(), RecoveryCodesLeft: Type.Integer() }), 401: ErrorBody },
      },
    },
    async (req) => mfaStatus(ctx, developerOf(req).id),
  );
  app.post(
    '/developers/me/mfa/totp',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['developers'],
        security: bearer,
        summary: 'Start adding an authenticator app: a pending secret and its otpauth:// URI (confirm with a code; the token signed in recently)',
        response: { 201: Type.Object({ Secret: Type.String({ description: 'Base32, for typing into the app' }), OtpauthUri: Type.String() }), 401: ErrorBody, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const started = await startTotp(ctx, developerOf(req));
      reply.status(201);
      return started;
    },
  );
  app.post(
    '/developers/me/mfa/totp/confirm',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['developers'],
        security: bearer,
        summary: 'Turn the pending authenticator on with its current code; answers the recovery codes once and a new token (the others stop working)',
        body: Type.Object({ Code }, { additionalProperties: false }),
        response: { 200: Type.Object({ RecoveryCodes: Type.Array(Type.String()), Token: FreshToken }), 400: ErrorBody, 401: ErrorBody, 409: ErrorBody },
      },
    },
    async (req) => {
      const developer = developerOf(req);
      const id = developer.id;
      const r = await confirmTotp(ctx, developer, req.body.Code);
      // The registry has no audit table: a factor change is a log line (the developer's id only, never a code).
      req.log.info({ developerId: id, event: 'factor_added', factor: 'totp' }, 'developer second factor added');
      return r;
    },
  );
  app.post(
    '/developers/me/mfa/totp/remove',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['developers'],
        security: bearer,
        summary: 'Remove the authenticator (with a current code or a recovery code); answers a new token (the others stop working)',
        body: Type.Object(Proof, { additionalProperties: false }),
        response: { 200: Type.Object({ Token: FreshToken }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 423: ErrorBody },
      },
    },
    async (req) => {
      const developer = developerOf(req);
      const id = developer.id;
      const r = await removeTotp(ctx, developer, { code: req.body.Code, recoveryCode: req.body.RecoveryCode });
      req.log.info({ developerId: id, event: 'factor_removed', factor: 'totp' }, 'developer second factor removed');
      return r;
    },
  );
}

/** The second step of a sign-in: the MfaToken of the 401 mfa_required and a code, a recovery code or a passkey assertion. */
function mfaLoginRoute(app: App, ctx: Context): void {
  const limiter = createRateLimiter(ctx.state, ctx.config.rateWindowSeconds, { onLimited: ctx.metrics.rateLimited });
  app.post(
    '/developers/login/mfa',
    {
      config: { caller: 'none' },
      schema: {
        tags: ['developers'],
        summary: 'The second step of a sign-in: the MfaToken of the 401 mfa_required and one of a code, a recovery code or a passkey assertion',
        body: Type.Object(
          {
            MfaToken,
            ...Proof,
            Passkey: Type.Optional({ ...AssertionCredential, description: 'A passkey’s assertion of the challenge of POST /developers/login/mfa/passkey/options' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: AuthResponse, 400: ErrorBody, 401: ErrorBody, 423: ErrorBody, 429: ErrorBody },
      },
      // Like the first step: per address, counted before validation (the factor's own lockout stops guessing a code).
      onRequest: async (req) => limiter.check({ name: 'login-mfa:ip', key: req.ip, limit: ctx.config.rateLoginMfaPerIp }),
    },
    async (req) =>
      loginDeveloperMfa(
        ctx,
        { mfaToken: req.body.MfaToken, code: req.body.Code, recoveryCode: req.body.RecoveryCode, passkey: req.body.Passkey && asAssertion(req.body.Passkey) },
        req.log,
      ),
  );
}
