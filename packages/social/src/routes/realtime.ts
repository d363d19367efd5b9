/**
 * GET /v1/ws in the OpenAPI document. Upgrades never reach the router (the server's upgrade listener takes
 * them, realtime/upgrade.ts); this route answers only a plain GET, with 400 upgrade_required. It is documented
 * as what a client meets: 101 when the WebSocket opens, or the HTTP error the upgrade is refused with (the
 * same error body and codes as every route). The frames are in docs/social-realtime.md.
 */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import { socialError } from '../services/errors.js';
import { WS_PATH } from '../realtime/gateway.js';
import { CallerHeaders, errorResponses } from './responses.js';

const UpgradeHeaders = Type.Object({
  ...CallerHeaders.properties,
  'Sec-WebSocket-Protocol': Type.Optional(
    Type.String({ description: 'A browser’s way to send the access token: the subprotocols `bearer, <access token>` (the server selects `bearer`)' }),
  ),
});

export function realtimeRoutes(app: App): void {
  app.get(
    WS_PATH,
    {
      schema: {
        tags: ['realtime'],
        summary: 'Open the WebSocket channel',
        description:
          'A WebSocket upgrade (`Upgrade: websocket`), authenticated like any route, or with the access token in the ' +
          '`bearer` subprotocol or the `access_token` query parameter. Frames, close codes and limits: docs/social-realtime.md. ' +
          'Without an upgrade the answer is 400 `upgrade_required`, whatever the credentials.',
        headers: UpgradeHeaders,
        security: [{ bearer: [] }, { accessToken: [] }, { apiKey: [], userId: [] }],
        response: {
          101: Type.Null({ description: 'Switching Protocols: the WebSocket is open' }),
          // Refusals of the upgrade (realtime/upgrade.ts) and of a plain GET (this handler, the kit's input checks).
          ...errorResponses(
            'upgrade_required',
            'bad_request',
            'invalid_character',
            'too_deep',
            'incomplete_game_credentials',
            'ambiguous_game_credentials',
            'unauthorized',
            'token_revoked',
            'invalid_game_credentials',
            'invalid_client_key',
            'name_unavailable',
            'too_many_sockets',
            'internal_error',
            'shutting_down',
            'key_set_unavailable',
            'registry_unavailable',
            'database_unavailable',
          ),
        },
      },
      // Credentials are checked at the upgrade, not here: a plain GET is 400 whatever it carries.
      config: { access: 'public' },
    },
    async () => {
      throw socialError('upgrade_required', 'GET /v1/ws must be a WebSocket upgrade');
    },
  );
}
