/** Sign-in endpoints: /guest, /guest/restore, /register, /login, /platform. */
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { createGuest, loginWithEmail, platformSignIn, registerWithEmail, restoreGuest } from '../services/sign-in.js';
import { afterSignUp, sendVerification } from '../services/email.js';
import { afterResponse, afterResponseHook } from './after-response.js';
import {
  BEARER_ERRORS,
  BODY_ERRORS,
  COMMON_ERRORS,
  Device,
  DevicePlatformSchema,
  Email,
  errorResponses,
  Fingerprint,
  Nonce,
  Password,
  Provider,
  Ticket,
  TICKET_ERRORS,
  TokenResponse,
} from './schemas.js';

const IdempotencyKey = /^[A-Za-z0-9_\-:.]{8,128}$/;

export async function signInRoutes(app: App, c: AuthContext) {
  guestRoutes(app, c);
  emailRoutes(app, c);
  platformRoute(app, c);
}

/** /guest and /guest/restore. */
function guestRoutes(app: App, c: AuthContext) {
  const { config } = c;
  // Checked with the general per-IP limit in the preHandler hook (app.ts), one round trip, before the handler.
  const guestLimits = {
    bodyLimits: (req: FastifyRequest) => [
      { name: 'guest:ip', key: req.ip, limit: config.rateGuestPerIp },
      { name: 'guest:device', key: (req.body as { device_fingerprint: string }).device_fingerprint, limit: config.rateGuestPerDevice },
    ],
  };

  app.post(
    '/guest',
    {
      schema: {
        tags: ['sign-in'],
        summary: 'Create a guest account bound to a device; the guest secret is returned once',
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: Type.Object({ device_fingerprint: Fingerprint, platform: Type.Optional(DevicePlatformSchema) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ ...TokenResponse.properties, guest_secret: Type.String() }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'idempotency_key_reused', 'guest_creation_refused'),
        },
      },
      config: { caller: 'none', ...guestLimits },
    },
    async (req) => {
      const key = req.headers['idempotency-key'];
      if (key !== undefined && !IdempotencyKey.test(key)) {
        throw fail('validation_failed', 'Idempotency-Key must be 8–128 characters of [A-Za-z0-9_-:.]', { field: 'Idempotency-Key' });
      }
      return createGuest(
        c,
        { device: { fingerprint: req.body.device_fingerprint, platform: req.body.platform }, idempotencyKey: key },
        c.auditCtx(req),
      );
    },
  );

  app.post(
    '/guest/restore',
    {
      schema: {
        tags: ['sign-in'],
        summary: 'Sign a returning guest in with its account id and guest secret',
        body: Type.Object(
          {
            account_id: Type.String({ format: 'uuid' }),
            guest_secret: Type.String({ minLength: 1, maxLength: 256 }),
            device_fingerprint: Fingerprint,
            platform: Type.Optional(DevicePlatformSchema),
          },
          { additionalProperties: false },
        ),
        response: { 200: TokenResponse, ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'invalid_credentials', 'account_disabled', 'account_banned') },
      },
      config: { caller: 'none', ...guestLimits },
    },
    async (req) => {
      return restoreGuest(
        c,
        { accountId: req.body.account_id, guestSecret: req.body.guest_secret, device: { fingerprint: req.body.device_fingerprint, platform: req.body.platform } },
        c.auditCtx(req),
      );
    },
  );
}

/** /register and /login. */
function emailRoutes(app: App, c: AuthContext) {
  const { config } = c;
  const loginLimits = {
    bodyLimits: (req: FastifyRequest) => [
      { name: 'login:ip', key: req.ip, limit: config.rateLoginPerIp },
      { name: 'login:ip_email', key: `${req.ip}|${(req.body as { email: string }).email.trim().toLowerCase()}`, limit: config.rateLoginPerIpEmail },
    ],
  };

  app.post(
    '/register',
    {
      schema: {
        tags: ['sign-in'],
        summary: 'Sign up with email and password',
        body: Type.Object(
          { email: Email, password: Password, display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), device: Type.Optional(Device) },
          { additionalProperties: false },
        ),
        response: {
          201: TokenResponse,
          202: Type.Object(
            { account_id: Type.String({ format: 'uuid' }), email_verification_required: Type.Literal(true) },
            {
              description:
                'AUTH_EMAIL_VERIFICATION=required: the same answer for every address; no session until the mailed token confirms the address (an address with an account: its owner is mailed instead)',
            },
          ),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'weak_password', 'email_taken'),
        },
      },
      config: { caller: 'none', ...loginLimits },
      ...afterResponseHook,
    },
    async (req, reply) => {
      const r = await registerWithEmail(
        c,
        { email: req.body.email, password: req.body.password, displayName: req.body.display_name, device: req.body.device },
        c.auditCtx(req),
      );
      if ('create' in r) {
        // AUTH_EMAIL_VERIFICATION=required: the same answer for every address; the account (or a mail to the owner
        // of a taken address) after it.
        afterResponse(req, () => afterSignUp(c, req.body.email, r.account_id, r.create));
        reply.status(202);
        return { account_id: r.account_id, email_verification_required: true as const };
      }
      // The verification mail (queued; a failure here does not undo the sign-up: the player asks for another).
      await sendVerification(c, r.account_id).catch((err: unknown) => req.log.warn({ err: (err as Error).message }, 'verification mail not queued'));
      reply.status(201);
      return r;
    },
  );

  app.post(
    '/login',
    {
      schema: {
        tags: ['sign-in'],
        summary: 'Sign in with email and password',
        body: Type.Object({ email: Email, password: Password, device: Type.Optional(Device) }, { additionalProperties: false }),
        response: {
          200: TokenResponse,
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'invalid_credentials', 'account_disabled', 'account_banned', 'account_locked', 'email_not_verified', 'mfa_required'),
        },
      },
      config: { caller: 'none', ...loginLimits },
    },
    async (req) => {
      return loginWithEmail(c, { email: req.body.email, password: req.body.password, device: req.body.device }, c.auditCtx(req));
    },
  );
}

/** /platform: a ticket exchange, or with a Bearer token a link to the current account. */
function platformRoute(app: App, c: AuthContext) {
  const { config, limiter } = c;
  app.post(
    '/platform',
    {
      config: { caller: 'none' },
      schema: {
        tags: ['sign-in'],
        summary: 'Exchange an external platform ticket; with a Bearer token the identity is linked to the current account',
        // No credential, or optionally the account's access token (linking): declared public, the token read by the handler.
        security: [{}, { bearer: [] }],
        body: Type.Object(
          { provider: Provider, ticket: Ticket, nonce: Type.Optional(Nonce), device: Type.Optional(Device) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            ...TokenResponse.properties,
            account_created: Type.Boolean({ description: 'true when this exchange created the account' }),
          }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, TICKET_ERRORS, BEARER_ERRORS, 'account_disabled', 'account_banned', 'identity_linked_elsewhere', 'conflict_retry'),
        },
      },
    },
    async (req) => {
      await limiter.check({ name: 'platform:ip_provider', key: `${req.ip}|${req.body.provider}`, limit: config.ratePlatformPerIpProvider });
      const bearer = await c.optionalAuth(req);
      return platformSignIn(
        c,
        { provider: req.body.provider, ticket: req.body.ticket, nonce: req.body.nonce, device: req.body.device, linkTo: bearer?.sub },
        c.auditCtx(req),
      );
    },
  );
}
