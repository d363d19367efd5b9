/**
 * Email flows (docs/auth.md, "Email flows"): /password/reset-request, /password/reset, /email/verify,
 * /email/verify/resend, /account/email; and the small page the mailed links open (/email-link/…).
 */
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { requestEmailChange, requestPasswordReset, resendVerification, resetPassword, verifyEmail } from '../services/email.js';
import { normaliseEmail } from '../services/sign-in-common.js';
import { afterResponse, afterResponseHook } from './after-response.js';
import { EMAIL_LINK_PAGES, EMAIL_LINK_SCRIPT } from './email-link-page.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, Email, errorResponses, Password } from './schemas.js';
import { claimsOf } from '../services/callers.js';

/** A mailed token: any string up to 256 characters is accepted and looked up (not one of ours: 400 invalid_email_token). */
const EmailToken = Type.String({ minLength: 1, maxLength: 256, description: 'The token (or code) from the mail' });
const TOKEN_ERRORS = ['invalid_email_token', 'email_token_used', 'email_token_expired'] as const;
const Accepted = Type.Object({ status: Type.Literal('accepted') }, { description: 'Always, whether or not the address has an account' });

/** Per IP, before the body is read (every email-flow endpoint); per address, in the handler (a longer window). */
function limits(c: AuthContext) {
  return {
    ipLimit: { requestLimits: (req: FastifyRequest) => [{ name: 'email:ip', key: req.ip, limit: c.config.rateEmailPerIp }] },
    perAddress: (email: string) => c.emailLimiter.check({ name: 'email:address', key: normaliseEmail(email), limit: c.config.rateEmailPerAddress }),
  };
}

/**
 * A route that asks for a mail to an address and answers 202 whatever the address: validation and both rate
 * limits before the answer, `job` (the lookup, the token, the mail) after it.
 */
function mailRequestRoute(app: App, c: AuthContext, url: string, summary: string, job: (email: string) => unknown) {
  const { ipLimit, perAddress } = limits(c);
  app.post(
    url,
    {
      schema: {
        tags: ['email'],
        summary,
        security: [],
        body: Type.Object({ email: Email }, { additionalProperties: false }),
        response: { 202: Accepted, ...errorResponses(BODY_ERRORS, COMMON_ERRORS) },
      },
      config: { caller: 'none', ...ipLimit },
      ...afterResponseHook,
    },
    async (req, reply) => {
      await perAddress(req.body.email);
      afterResponse(req, () => job(req.body.email));
      reply.status(202);
      return { status: 'accepted' as const };
    },
  );
}

export async function emailRoutes(app: App, c: AuthContext) {
  passwordRoutes(app, c);
  verificationRoutes(app, c);
  emailChangeRoute(app, c);
  linkPages(app);
}

/** /password/reset-request and /password/reset. */
function passwordRoutes(app: App, c: AuthContext) {
  const { ipLimit } = limits(c);
  mailRequestRoute(app, c, '/password/reset-request', 'Mail a password-reset link and code to the address, if it has an account (202 either way)', (email) =>
    requestPasswordReset(c, email),
  );

  app.post(
    '/password/reset',
    {
      schema: {
        tags: ['email'],
        summary: 'Set a new password with a mailed reset token; every session of the account ends',
        security: [],
        body: Type.Object({ token: EmailToken, password: Password }, { additionalProperties: false }),
        response: {
          200: Type.Object({ sessions_revoked: Type.Integer({ minimum: 0 }) }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, TOKEN_ERRORS, 'weak_password'),
        },
      },
      config: { caller: 'none', ...ipLimit },
    },
    async (req) => resetPassword(c, { token: req.body.token, password: req.body.password }, c.auditCtx(req)),
  );
}

/** /email/verify and /email/verify/resend. */
function verificationRoutes(app: App, c: AuthContext) {
  const { ipLimit } = limits(c);

  app.post(
    '/email/verify',
    {
      schema: {
        tags: ['email'],
        summary: 'Confirm an email address (after sign-up, link or an email change) with the mailed token',
        description:
          'No credential needed. Sent with the account’s own access token (a game’s code-entry screen), a first proof keeps the account’s other identities and sessions; ' +
          'without it (the mailed link’s page) a first proof claims the account for the mailbox owner (docs/auth.md, "Account claim").',
        security: [{}, { bearer: [] }],
        body: Type.Object({ token: EmailToken }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            email: Type.String(),
            verified: Type.Literal(true),
            changed: Type.Boolean({ description: 'true when this confirmed an email change (the account now signs in with this address)' }),
          }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, TOKEN_ERRORS, 'email_taken'),
        },
      },
      config: { caller: 'none', ...ipLimit },
    },
    async (req) => {
      // Optional: the account's own session proving its address keeps what it holds (docs/auth.md, "Account claim").
      // A missing, bad or revoked token is no holder: the proof then claims the account as from the mail link.
      const holder = req.headers.authorization === undefined ? undefined : await c.authenticate(req).then((x) => x.sub, () => undefined);
      return verifyEmail(c, req.body.token, c.auditCtx(req), holder);
    },
  );

  mailRequestRoute(
    app,
    c,
    '/email/verify/resend',
    'Mail a new verification link and code to the address, if it is an unverified account address (202 either way)',
    (email) => resendVerification(c, email),
  );
}

/** /account/email: the signed-in player asks to change the address. */
function emailChangeRoute(app: App, c: AuthContext) {
  const { ipLimit, perAddress } = limits(c);

  app.post(
    '/account/email',
    {
      schema: {
        tags: ['account'],
        summary: 'Change the account’s email address: the new address is confirmed by mail before it takes effect (202 alike whether or not the address has an account)',
        security: [{ bearer: [] }],
        body: Type.Object({ email: Email, password: Password }, { additionalProperties: false }),
        response: {
          202: Type.Object({
            pending_email: Type.String({ description: 'Mailed a token (POST /email/verify with it switches the address); an address with an account is told instead' }),
          }),
          ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'invalid_credentials', 'account_locked', 'identity_not_found', 'email_unchanged', 'guest_restricted'),
        },
      },
      config: { caller: 'player', ...ipLimit },
      ...afterResponseHook,
    },
    async (req, reply) => {
      const claims = claimsOf(req);
      await perAddress(req.body.email);
      const r = await requestEmailChange(c, claims.sub, { email: req.body.email, password: req.body.password }, c.auditCtx(req));
      // Whether the new address has an account decides only what is mailed, after the answer.
      afterResponse(req, r.mailAfterAnswer);
      reply.status(202);
      return { pending_email: r.pending_email };
    },
  );
}

/** The pages the mailed links open. */
function linkPages(app: App) {
  // The pages the mailed links open: static HTML and one script (the token stays in the fragment, read by the script).
  for (const [name, html] of Object.entries(EMAIL_LINK_PAGES)) {
    app.get(`/email-link/${name}`, { schema: { hide: true }, config: { caller: 'none' } }, async (_req, reply) => {
      reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      reply.header('content-security-policy', "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'");
      return html;
    });
  }
  app.get('/email-link/page.js', { schema: { hide: true }, config: { caller: 'none' } }, async (_req, reply) => {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'no-cache');
    return EMAIL_LINK_SCRIPT;
  });
}
