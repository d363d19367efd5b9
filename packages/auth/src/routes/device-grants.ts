/**
 * The device approval page (GET /device, its script and style) and the two calls it makes with the player's
 * access token: look a user code up, decide. The page keeps the token in memory only and sends it as a Bearer
 * header: no cookie, so no cross-site request can carry it (CSRF); the page may not be framed (clickjacking).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { decideDeviceRequest, lookupDeviceRequest } from '../services/device-grants.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, errorResponses } from './schemas.js';
import { claimsOf } from '../services/callers.js';

export const DEVICE_PAGE_DIR = path.resolve(import.meta.dirname, '../../public/device');

/** Only this page's own script, style and same-origin calls; no framing, no form posts, no base rewriting. */
export const DEVICE_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

const UserCode = Type.String({ minLength: 1, maxLength: 32, description: 'As shown on the device (XXXX-XXXX; case, dashes and spaces do not matter)' });
const security = [{ bearer: [] }];
const CODE_ERRORS = ['user_code_not_found'] as const;

export const PendingDeviceRequest = Type.Object({
  user_code: Type.String(),
  client_id: Type.String(),
  client_verified: Type.Boolean({ description: 'false when any client id is accepted (AUTH_DEVICE_CLIENT_IDS empty): the name proves nothing' }),
  device_name: Type.Union([Type.String(), Type.Null()]),
  platform: Type.Union([Type.String(), Type.Null()]),
  ip_prefix: Type.Union([Type.String(), Type.Null()], { description: 'The network the device asked from' }),
  requested_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export async function deviceRoutes(app: App, c: AuthContext) {
  const assets = {
    '/device': { file: 'index.html', type: 'text/html; charset=utf-8' },
    '/device/device.js': { file: 'device.js', type: 'text/javascript; charset=utf-8' },
    '/device/device.css': { file: 'device.css', type: 'text/css; charset=utf-8' },
  };
  for (const [url, a] of Object.entries(assets)) {
    const content = readFileSync(path.join(DEVICE_PAGE_DIR, a.file), 'utf8');
    app.get(
      url,
      {
        schema: {
          tags: ['oauth'],
          summary: url === '/device' ? 'The device approval page (HTML): sign in, enter the user code, approve or deny' : `The approval page's ${a.file}`,
          response: { 200: { description: a.file, content: { [a.type.split(';')[0]]: { schema: Type.String() } } } },
        },
        config: { caller: 'none' },
      },
      async (_req, reply) => {
        reply
          .header('content-type', a.type)
          .header('content-security-policy', DEVICE_PAGE_CSP)
          .header('x-frame-options', 'DENY')
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer');
        return content;
      },
    );
  }

  /** Every submission of a user code counts, per address and per account, before anything is looked up. */
  const countSubmission = (ip: string, accountId: string) =>
    c.limiter.check(
      { name: 'device:verify_ip', key: ip, limit: c.config.rateDeviceVerifyPerIp },
      { name: 'device:verify_account', key: accountId, limit: c.config.rateDeviceVerifyPerAccount },
    );

  app.post(
    '/device/lookup',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['oauth'],
        summary: 'Which device asks with this user code (the approval page, signed in)',
        description: 'Counts as a submission of the code (AUTH_RATE_DEVICE_VERIFY_PER_IP / _PER_ACCOUNT, AUTH_DEVICE_USER_CODE_MAX_ENTRIES).',
        security,
        body: Type.Object({ user_code: UserCode }, { additionalProperties: false }),
        response: { 200: PendingDeviceRequest, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, CODE_ERRORS) },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      await countSubmission(req.ip, claims.sub);
      return lookupDeviceRequest(c, req.body.user_code);
    },
  );

  app.post(
    '/device/decision',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['oauth'],
        summary: 'Approve or deny the device request of a user code (the approval page, signed in)',
        description: 'Approved: the device’s next poll of /oauth/token receives a new session of this account. The code is spent either way.',
        security,
        body: Type.Object({ user_code: UserCode, approve: Type.Boolean() }, { additionalProperties: false }),
        response: {
          200: Type.Object({ status: Type.Union([Type.Literal('approved'), Type.Literal('denied')]) }),
          ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, CODE_ERRORS),
        },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      await countSubmission(req.ip, claims.sub);
      return decideDeviceRequest(c, claims.sub, req.body.user_code, req.body.approve, c.auditCtx(req));
    },
  );
}
