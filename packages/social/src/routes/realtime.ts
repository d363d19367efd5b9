/**
 * GET /v1/ws in the OpenAPI document. Upgrades never reach the router (the server's upgrade listener takes
 * them, realtime/upgrade.ts); this route answers only a plain GET, with 400 upgrade_required. It is documented
 * as what a client meets: 101 when the WebSocket opens, 400 for a GET that is no upgrade, and the statuses of a
 * refused handshake, which a client without `Origin` gets over HTTP; a browser's handshake is refused in band
 * (one error frame, close 4000 + the code's status: docs/social-realtime.md, "Refused connections"), listed in
 * the description from the same code list, so neither can drift. The frames are in docs/social-realtime.md.
 */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import { WS_PATH } from '../realtime/gateway.js';
import { ANY_ROUTE, CALLER, CallerHeaders, errorResponses } from './responses.js';
import { socialError, socialErrors, type SocialErrorCode } from '../services/errors.js';

const UpgradeHeaders = Type.Object({
  ...CallerHeaders.properties,
  'Sec-WebSocket-Protocol': Type.Optional(
    Type.String({ description: 'A browser’s way to send the access token: the subprotocols `bearer, <access token>` (the server selects `bearer`)' }),
  ),
});

/**
 * The refusals of a handshake (realtime/upgrade.ts): the HTTP status to a client without `Origin`, in band to a
 * browser (one error frame, then close 4000 + status). A caller's route's answers (the credentials, tenancy,
 * stores) less the HTTP-level ones a handshake never gets that way, plus the socket caps and the drain.
 */
const HTTP_LEVEL: readonly SocialErrorCode[] = ['bad_request', 'invalid_character', 'too_deep'];
export const HANDSHAKE_REFUSALS: readonly SocialErrorCode[] = [
  ...CALLER.filter((c) => !HTTP_LEVEL.includes(c)),
  'too_many_sockets',
  'shutting_down',
];

const refusalTable = () =>
  '| close | code |\n|---|---|\n' + HANDSHAKE_REFUSALS.map((c) => `| ${4000 + socialErrors.status(c)} | \`${c}\` |`).join('\n');

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
          'Without an upgrade the answer is 400 `upgrade_required`, whatever the credentials. ' +
          'A reconnecting client sends the last event id it saw in the `lastEventId` query parameter: what it missed is replayed ' +
          'before new events, or one `resync` frame tells it to reload (docs/social-realtime.md, "Resume and replay").\n\n' +
          'A refused handshake: a client that sends no `Origin` header (not a browser: game engines, servers, `ws` in ' +
          'Node) gets the HTTP status below with the error body `{code, message, requestId, retryAfterSeconds?}` ' +
          '(429 `too_many_sockets` and 503 `shutting_down` with `Retry-After`). A browser cannot read a refused ' +
          'handshake’s status, so its handshake (it always sends `Origin`) is refused in band: the socket opens, ' +
          'receives one frame `{type: "error", data: {code, message, retryAfterSeconds?}}` and is closed with 4000 + ' +
          'the code’s HTTP status, the code as the close reason:\n\n' +
          refusalTable(),
        headers: UpgradeHeaders,
        security: [{ bearer: [] }, { accessToken: [] }, { apiKey: [], userId: [] }],
        response: {
          101: Type.Null({ description: 'Switching Protocols: the WebSocket is open' }),
          // A plain GET (this handler, the kit's input checks), and a refused handshake of a client without Origin.
          ...errorResponses(ANY_ROUTE, 'upgrade_required', HANDSHAKE_REFUSALS),
        },
      },
      // Credentials are checked at the upgrade, not here: a plain GET is 400 whatever it carries.
      config: { caller: 'none' },
    },
    async () => {
      throw socialError('upgrade_required', 'GET /v1/ws must be a WebSocket upgrade');
    },
  );
}
