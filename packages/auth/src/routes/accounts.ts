/** The signed-in account: view, profile, link, unlink, export, delete. */
import { Type } from 'typebox';
import { UUID_PATTERN, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { sendVerification } from '../services/email.js';
import { deleteAccount, exportAccount, isAccountDeleted, linkEmail, linkPlatform, unlinkIdentity, updateAccount, viewAccount } from '../services/accounts.js';
import { listSanctions, ownSanctionView } from '../services/sanctions.js';
import { AccountDeleted, AccountExport, AccountView, OwnSanctions, BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, Email, IdentitiesView, errorResponses, Nonce, Password, Provider, Ticket, TICKET_ERRORS } from './schemas.js';
import { claimsOf } from '../services/callers.js';

const security = [{ bearer: [] }];
/** What every /account route may answer: no usable token, the limit, the stores down. */
const accountErrors = errorResponses(BEARER_ERRORS, COMMON_ERRORS);

export async function accountRoutes(app: App, c: AuthContext) {
  profileRoutes(app, c);
  identityRoutes(app, c);
  dataRoutes(app, c);
}

/** GET and PATCH /account. */
function profileRoutes(app: App, c: AuthContext) {
  app.get('/account', { config: { caller: 'player' }, schema: { tags: ['account'], summary: 'The account with its identities and devices', security, response: { 200: AccountView, ...accountErrors } } }, async (req) => {
    const claims = claimsOf(req);
    return viewAccount(c, claims.sub);
  });

  app.get(
    '/account/sanctions',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'The account’s active sanctions with their reasons (game servers read it with the player’s token)',
        security,
        response: { 200: OwnSanctions, ...accountErrors },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      // A server-role token names a service, not an account: it has no sanctions.
      if (!UUID_PATTERN.test(claims.sub)) return { sanctions: [] };
      return { sanctions: (await listSanctions(c, claims.sub, { activeOnly: true })).map(ownSanctionView) };
    },
  );

  app.patch(
    '/account',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Update profile fields',
        security,
        body: Type.Object(
          {
            display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            home_region: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9-]+$' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: AccountView, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS) },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      return updateAccount(c, claims.sub, { displayName: req.body.display_name, homeRegion: req.body.home_region });
    },
  );
}

/** /account/link and /account/unlink. */
function identityRoutes(app: App, c: AuthContext) {
  app.post(
    '/account/link',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Link an email and password, or a platform ticket, to the account (upgrades a guest)',
        security,
        body: Type.Union([
          Type.Object({ email: Email, password: Password }, { additionalProperties: false }),
          Type.Object({ provider: Provider, ticket: Ticket, nonce: Type.Optional(Nonce) }, { additionalProperties: false }),
        ]),
        response: { 200: IdentitiesView, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, TICKET_ERRORS, 'weak_password', 'email_taken', 'identity_linked_elsewhere') },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      const body = req.body as { email?: string; password?: string; provider?: string; ticket?: string; nonce?: string };
      if (body.email !== undefined) {
        const linked = await linkEmail(c, claims.sub, { email: body.email, password: body.password! }, c.auditCtx(req));
        // The new address is mailed a verification token (queued; a failure does not undo the link).
        await sendVerification(c, claims.sub).catch((err: unknown) => req.log.warn({ err: (err as Error).message }, 'verification mail not queued'));
        return linked;
      }
      await c.limiter.check({ name: 'platform:ip_provider', key: `${req.ip}|${body.provider}`, limit: c.config.ratePlatformPerIpProvider });
      return linkPlatform(c, claims.sub, { provider: body.provider!, ticket: body.ticket!, nonce: body.nonce }, c.auditCtx(req));
    },
  );

  app.post(
    '/account/unlink',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Remove an identity (never the last one)',
        security,
        body: Type.Union([
          Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
          Type.Object({ identity_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        ]),
        response: { 200: IdentitiesView, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'identity_not_found', 'last_credential') },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      const body = req.body as { provider?: string; identity_id?: string };
      return unlinkIdentity(c, claims.sub, { provider: body.provider, identityId: body.identity_id }, c.auditCtx(req));
    },
  );
}

/** Export and deletion. */
function dataRoutes(app: App, c: AuthContext) {
  app.post('/account/export', { config: { caller: 'player' }, schema: { tags: ['account'], summary: 'Everything held about the account', security, response: { 200: AccountExport, ...accountErrors } } }, async (req) => {
    const claims = claimsOf(req);
    return exportAccount(c, claims.sub);
  });

  app.delete('/account', { config: { caller: 'session' }, schema: { tags: ['account'], summary: 'Delete the account (soft, purged after the grace window)', security, response: { 202: AccountDeleted, ...accountErrors } } }, async (req, reply) => {
    // A retry after a lost 202 carries a token whose session the first call revoked: it may
    // only confirm the deletion again, never act on an account that is still active.
    const claims = claimsOf(req);
    if (claims.revoked && !(await isAccountDeleted(c, claims.sub))) {
      throw fail('invalid_token', 'Access token rejected');
    }
    // Sessions end and are announced through the revoker (deny set, bus, outbox: delivered before this answers).
    const r = await deleteAccount(c, claims.sub, claims.sid, c.auditCtx(req));
    c.outbox.kick(); // the account.deleted notice (erasure) goes out now rather than at the next poll
    reply.status(202);
    return { status: r.status, deleted_at: r.deleted_at, purge_after: r.purge_after };
  });
}
