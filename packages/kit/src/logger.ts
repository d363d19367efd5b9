/**
 * pino options shared by every service: JSON lines, a request id on every
 * request line, and secrets redacted wherever they could appear.
 */
import type { LoggerOptions } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-api-secret"]',
  'req.headers["x-platform-api-secret"]',
  'req.headers["x-platform-game-secret"]',
  'req.headers["x-internal-key"]',
  'req.headers["sec-websocket-protocol"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.Password',
  '*.secret',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.ApiSecret',
];

/** Query parameters that may carry a credential (WebSocket token, for instance). */
const SECRET_QUERY = /([?&](?:token|access_token|refresh_token|secret|api_key|apiKey)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[REDACTED]');
}

export function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    serializers: {
      req(req: { method: string; url: string; id?: string; ip?: string; socket?: { remoteAddress?: string } }) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip ?? req.socket?.remoteAddress };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
    },
  };
}
