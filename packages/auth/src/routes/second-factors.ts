/**
 * The second factor (docs/auth.md, "Second factor (TOTP)"): the account's authenticator (status, enrol, confirm,
 * remove) and the second step of an email sign-in (`POST /login/mfa`).
 */
import { Type } from 'typebox';
import { AssertionCredential, asAssertion, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { claimsOf } from '../services/callers.js';
import { completeSignIn, confirmTotpFactor, mfaStatus, readMfaAccount, removeTotp, startTotp } from '../services/second-factors.js';
import { secondStepOptions } from '../services/passkeys.js';
import { PublicKeyOptions } from './passkeys.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, errorResponses, TokenResponse } from './schemas.js';

const security = [{ bearer: [] }];
const ACCOUNT = [BEARER_ERRORS, COMMON_ERRORS] as const;
const Code = Type.String({ minLength: 6, maxLength: 6, pattern: '^[0-9]{6}$', description: 'The authenticator app’s current 6-digit code' });
const RecoveryCode = Type.String({ minLength: 8, maxLength: 64, description: 'One of the recovery codes (each works once)' });
const Proof = Type.Object({ code: Type.Optional(Code), recovery_code: Type.Optional(RecoveryCode) }, { additionalProperties: false });

export async function secondFactorRoutes(app: App, c: AuthContext) {
  app.get(
    '/account/mfa',
    { config: { caller: 'player' }, schema: { tags: ['account'], summary: 'The account’s second factors', security, response: { 200: Type.Object({ totp: Type.Boolean(), pending: Type.Boolean(), recovery_codes_left: Type.Integer(), passkeys: Type.Integer({ description: 'How many passkeys the account has' }) }), ...errorResponses(...ACCOUNT) } } },
    async (req) => mfaStatus(c, claimsOf(req).sub),
  );
  app.post(
    '/account/mfa/totp',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Start adding an authenticator app: a pending secret and its otpauth:// URI (confirm with a code; the session signed in recently)',
        security,
        response: { 201: Type.Object({ secret: Type.String(), otpauth_uri: Type.String() }), ...errorResponses(...ACCOUNT, 'recent_sign_in_required', 'totp_enabled') },
      },
    },
    async (req, reply) => {
      const claims = claimsOf(req);
      const started = await startTotp(c, claims.sub, claims.sid);
      reply.status(201);
      return started;
    },
  );
  app.post(
    '/account/mfa/totp/confirm',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Turn the pending authenticator on with its current code; answers the recovery codes once and ends the other sessions',
        security,
        body: Type.Object({ code: Code }, { additionalProperties: false }),
        response: { 200: Type.Object({ recovery_codes: Type.Array(Type.String()) }), ...errorResponses(...ACCOUNT, BODY_ERRORS, 'totp_not_pending', 'invalid_mfa_code') },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      return confirmTotpFactor(c, claims.sub, claims.sid, req.body.code, c.auditCtx(req));
    },
  );
  app.post(
    '/account/mfa/totp/remove',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Remove the authenticator (with a current code or a recovery code); ends the other sessions',
        security,
        body: Proof,
        response: { 204: Type.Null(), ...errorResponses(...ACCOUNT, BODY_ERRORS, 'totp_not_enabled', 'invalid_mfa_code', 'account_locked') },
      },
    },
    async (req, reply) => {
      const claims = claimsOf(req);
      await removeTotp(c, claims.sub, claims.sid, req.body, c.auditCtx(req));
      reply.status(204);
      return null;
    },
  );
  secondStepRoutes(app, c);
}

/** The second step of an email sign-in: a code, a recovery code or a passkey. */
function secondStepRoutes(app: App, c: AuthContext) {
  const MfaToken = Type.String({ minLength: 16, maxLength: 1024 });
  app.post(
    '/login/mfa/passkey/options',
    {
      config: { caller: 'none', bodyLimits: (req) => [{ name: 'login:ip', key: req.ip, limit: c.config.rateLoginPerIp }] },
      schema: {
        tags: ['sign-in'],
        summary: 'The second step with a passkey: options for navigator.credentials.get() naming the account’s passkeys',
        body: Type.Object({ mfa_token: MfaToken }, { additionalProperties: false }),
        response: { 200: PublicKeyOptions, ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'invalid_mfa_code', 'passkeys_unavailable') },
      },
    },
    async (req) => secondStepOptions(c, readMfaAccount(c, req.body.mfa_token)),
  );
  app.post(
    '/login/mfa',
    {
      config: { caller: 'none', bodyLimits: (req) => [{ name: 'login:ip', key: req.ip, limit: c.config.rateLoginPerIp }] },
      schema: {
        tags: ['sign-in'],
        summary: 'The second step of an email sign-in: the mfa_token of the 401 mfa_required and one of a code, a recovery code or a passkey assertion',
        body: Type.Object(
          { mfa_token: MfaToken, code: Type.Optional(Code), recovery_code: Type.Optional(RecoveryCode), passkey: Type.Optional(AssertionCredential) },
          { additionalProperties: false },
        ),
        response: { 200: TokenResponse, ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'invalid_mfa_code', 'invalid_passkey', 'account_locked', 'account_disabled', 'account_banned', 'invalid_credentials', 'passkeys_unavailable') },
      },
    },
    async (req) => completeSignIn(c, { ...req.body, passkey: req.body.passkey && asAssertion(req.body.passkey) }, c.auditCtx(req)),
  );
}
