/** Sign-in endpoints: /guest, /guest/restore, /register, /login, /platform. */
import { Type } from 'typebox';
import { badRequest, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { Device, DevicePlatformSchema, Email, Fingerprint, Nonce, Password, Provider, Ticket, TokenResponse } from './schemas.js';

const IdempotencyKey = /^[A-Za-z0-9_\-:.]{8,128}$/;

export async function signInRoutes(app: App, c: AuthContext) {
  const { config, limiter, accounts } = c;
  const guestLimits = (ip: string, fingerprint: string) =>
    limiter.check({ name: 'guest:ip', key: ip, limit: config.rateGuestPerIp }, { name: 'guest:device', key: fingerprint, limit: config.rateGuestPerDevice });
  const loginLimits = (ip: string, email: string) =>
    limiter.check(
      { name: 'login:ip', key: ip, limit: config.rateLoginPerIp },
      { name: 'login:ip_email', key: `${ip}|${email.trim().toLowerCase()}`, limit: config.rateLoginPerIpEmail },
    );

  app.post(
    '/guest',
    {
      schema: {
        tags: ['sign-in'],
        summary: 'Create a guest account bound to a device; the guest secret is returned once',
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: Type.Object({ device_fingerprint: Fingerprint, platform: Type.Optional(DevicePlatformSchema) }, { additionalProperties: false }),
        response: { 200: Type.Object({ ...TokenResponse.properties, guest_secret: Type.String() }) },
      },
    },
    async (req) => {
      const key = req.headers['idempotency-key'];
      if (key !== undefined && !IdempotencyKey.test(key)) {
        throw badRequest('validation_failed', 'Idempotency-Key must be 8–128 characters of [A-Za-z0-9_-:.]', { field: 'Idempotency-Key' });
      }
      await guestLimits(req.ip, req.body.device_fingerprint);
      return accounts.createGuest(
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
        response: { 200: TokenResponse },
      },
    },
    async (req) => {
      await guestLimits(req.ip, req.body.device_fingerprint);
      return accounts.restoreGuest(
        { accountId: req.body.account_id, guestSecret: req.body.guest_secret, device: { fingerprint: req.body.device_fingerprint, platform: req.body.platform } },
        c.auditCtx(req),
      );
    },
  );

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
        response: { 201: TokenResponse },
      },
    },
    async (req, reply) => {
      await loginLimits(req.ip, req.body.email);
      const r = await accounts.register(
        { email: req.body.email, password: req.body.password, displayName: req.body.display_name, device: req.body.device },
        c.auditCtx(req),
      );
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
        response: { 200: TokenResponse },
      },
    },
    async (req) => {
      await loginLimits(req.ip, req.body.email);
      return accounts.login({ email: req.body.email, password: req.body.password, device: req.body.device }, c.auditCtx(req));
    },
  );

  app.post(
    '/platform',
    {
      schema: {
        tags: ['sign-in'],
        summary: 'Exchange an external platform ticket; with a Bearer token the identity is linked to the current account',
        body: Type.Object(
          { provider: Provider, ticket: Ticket, nonce: Type.Optional(Nonce), device: Type.Optional(Device) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            ...TokenResponse.properties,
            account_created: Type.Boolean({ description: 'true when this exchange created the account' }),
          }),
        },
      },
    },
    async (req) => {
      await limiter.check({ name: 'platform:ip_provider', key: `${req.ip}|${req.body.provider}`, limit: config.ratePlatformPerIpProvider });
      const bearer = await c.optionalAuth(req);
      return accounts.platformSignIn(
        { provider: req.body.provider, ticket: req.body.ticket, nonce: req.body.nonce, device: req.body.device, linkTo: bearer?.sub },
        c.auditCtx(req),
      );
    },
  );
}
