/**
 * Endpoints for other platform services (X-Internal-Key, see
 * services/internal.ts). Not for players or game clients.
 */
import { Type } from 'typebox';
import { serviceSubject, UUID_PATTERN, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { accountNotFound, fail } from '../errors.js';
import { accountSummaryFor } from '../services/accounts.js';
import { grantRoles } from '../services/admin.js';
import { audit } from '../services/audit.js';
import { serviceToken } from '../services/outbox.js';
import { BODY_ERRORS, COMMON_ERRORS, errorResponses, optionalBody } from './schemas.js';
import { serviceOf } from '../services/callers.js';
import { lookupPlatformAccounts, platformIdentities } from '../services/platform.js';
import { PLATFORM_PROVIDERS } from '../providers/types.js';

export async function internalRoutes(app: App, c: AuthContext) {
  const security = [{ internalKey: [] }];

  app.post(
    '/internal/server-token',
    {
      config: { caller: 'service:*' },
      schema: {
        tags: ['internal'],
        summary: 'A server-role access token for the calling service (client credentials)',
        description:
          'Requires X-Internal-Key (or an accepted client certificate on the mutual-TLS listener). The token is an ordinary access token (same format, key set, issuer and audience) with ' +
          'sub `service:<caller name>`, roles ["server"] and a random sid, valid for the access-token lifetime; verifiers ' +
          'check it offline and require the role. No body (or an empty object), or `{"game_id": "<uuid>"}`: the token then carries the claim `game`, ' +
          'and social takes it as that game\'s server credential for match rosters (POST /v1/matches; docs/social.md, "Recent players"). ' +
          'Audited as `login` with method `internal_key` (and the game).',
        security,
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer(),
            sub: Type.String(),
            roles: Type.Array(Type.String()),
            game: Type.Optional(Type.String({ format: 'uuid', description: 'The game the token was issued for (its `game` claim), when asked' })),
          }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'internal_key_required', 'invalid_internal_key'),
        },
      },
    },
    async (req) => {
      const name = serviceOf(req);
      const game = optionalBody<{ game_id: string }>(req.body, { game_id: 'string' }).game_id?.toLowerCase();
      if (game !== undefined && !UUID_PATTERN.test(game)) throw fail('validation_failed', 'game_id must be a game id (a uuid)', { field: 'game_id' });
      const token = await serviceToken(c.config, c.keys, name, c.config.accessTtlSeconds, game);
      await audit(c.db, c.auditCtx(req), 'login', null, { method: 'internal_key', service: name, outcome: 'success', ...(game ? { game } : {}) });
      const out = { access_token: token, token_type: 'Bearer' as const, expires_in: c.config.accessTtlSeconds, sub: serviceSubject(name), roles: ['server'] };
      return game ? { ...out, game } : out;
    },
  );

  app.get(
    '/internal/accounts/:id',
    {
      config: { caller: 'service:*' },
      schema: {
        tags: ['internal'],
        summary: 'Whether an account exists, and a guest’s standing (service callers only)',
        description: 'Requires X-Internal-Key. Deleted (and purged) accounts and unknown ids answer 404 account_not_found.',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: {
          200: Type.Object({
            id: Type.String({ format: 'uuid' }),
            status: Type.Union([Type.Literal('active'), Type.Literal('locked'), Type.Literal('banned')]),
            is_guest: Type.Boolean(),
            display_name: Type.Union([Type.String(), Type.Null()]),
            created_at: Type.String({ format: 'date-time' }),
            guest_standing: Type.Optional(
              Type.Union([Type.Literal('normal'), Type.Literal('slow'), Type.Literal('refuse')], {
                description: 'Guests only: the level of the guest abuse score (never the number or its reasons); social slows or refuses a guest’s sensitive actions by it',
              }),
            ),
          }),
          ...errorResponses(COMMON_ERRORS, 'validation_failed', 'invalid_character', 'internal_key_required', 'invalid_internal_key', 'account_not_found'),
        },
      },
    },
    async (req) => {
      return accountSummaryFor(c, req.params.id);
    },
  );

  await platformAccountRoutes(app, c, security);
  await staffRoleRoutes(app, c, security);
}

/** Provider user ids a lookup takes at most (a Steam friend list is at most 2,000: four calls). */
export const LOOKUP_MAX_IDS = 500;
const PlatformProviderName = Type.Union([Type.Literal('store_a'), Type.Literal('store_b'), Type.Literal('idp_a'), Type.Literal('idp_b')], {
  description: `A platform provider (docs/auth-providers.md): ${PLATFORM_PROVIDERS.join(', ')}`,
});

/** Platform identities for service callers: social's platform friends (docs/social.md, "Platform friends"). */
async function platformAccountRoutes(app: App, c: AuthContext, security: { internalKey: never[] }[]) {
  app.get(
    '/internal/accounts/:id/identities',
    {
      config: { caller: 'service:*' },
      schema: {
        tags: ['internal'],
        summary: 'An account’s platform identities (service callers only)',
        description:
          'Requires X-Internal-Key. The platform providers’ user ids the account signed in or linked with (store_a: the steamid64 as a decimal string), oldest link first; ' +
          'never an email or a guest identity. Deleted (and purged) accounts and unknown ids answer 404 account_not_found.',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: {
          200: Type.Object({
            id: Type.String({ format: 'uuid' }),
            identities: Type.Array(Type.Object({ provider: Type.String(), provider_user_id: Type.String(), linked_at: Type.String({ format: 'date-time' }) })),
          }),
          ...errorResponses(COMMON_ERRORS, 'validation_failed', 'invalid_character', 'internal_key_required', 'invalid_internal_key', 'account_not_found'),
        },
      },
    },
    async (req) => platformIdentities(c.db, req.params.id),
  );

  app.post(
    '/internal/platform-accounts/lookup',
    {
      config: { caller: 'service:*' },
      schema: {
        tags: ['internal'],
        summary: 'Which of one provider’s user ids belong to active accounts (service callers only)',
        description:
          `Requires X-Internal-Key. At most ${LOOKUP_MAX_IDS} ids of one provider; the answer lists those owned by an active account with its id, ` +
          'in no promised order. Unknown ids and deleted, locked or banned accounts are left out (an empty list is an answer, not an error).',
        security,
        body: Type.Object(
          {
            provider: PlatformProviderName,
            provider_user_ids: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: LOOKUP_MAX_IDS }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ accounts: Type.Array(Type.Object({ provider_user_id: Type.String(), account_id: Type.String({ format: 'uuid' }) })) }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'internal_key_required', 'invalid_internal_key'),
        },
      },
    },
    async (req) => lookupPlatformAccounts(c.db, req.body.provider, req.body.provider_user_ids),
  );
}

/** The registry's super-admin making staff (docs/auth.md, "Internal endpoints and service callers"). */
async function staffRoleRoutes(app: App, c: AuthContext, security: { internalKey: never[] }[]) {
  app.post(
    '/internal/staff-roles',
    {
      config: { caller: 'service:registry' },
      schema: {
        tags: ['internal'],
        summary: 'Grant or take away a staff role: the registry’s super-admin making moderators and admins (the registry only)',
        description:
          'Requires the internal key named `registry` (any other internal caller: 403 forbidden). The account is named by its email (any case) or id. ' +
          'Audited as `role_change` with actor `service:registry` and `on_behalf_of` (the super-admin’s developer id). The account’s tokens carry the new roles from its next sign-in or refresh.',
        security,
        body: Type.Object(
          {
            account: Type.String({ minLength: 1, maxLength: 254, description: 'Email or account id' }),
            role: Type.Union([Type.Literal('moderator'), Type.Literal('admin')]),
            granted: Type.Boolean({ description: 'true: grant the role; false: take it away' }),
            on_behalf_of: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Who asked the registry (recorded in the audit entry)' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ id: Type.String({ format: 'uuid' }), roles: Type.Array(Type.String()) }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'internal_key_required', 'invalid_internal_key', 'forbidden', 'account_not_found'),
        },
      },
    },
    async (req) => {
      const b = req.body;
      const r = await grantRoles(c, b.account, [b.role], { remove: !b.granted, who: c.auditCtx(req), onBehalfOf: b.on_behalf_of });
      if (!r) throw accountNotFound();
      return r;
    },
  );
}
