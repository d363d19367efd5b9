/**
 * The web console (docs/console.md): its page, stylesheet and script (@platform/console) and config.json, at
 * /console/. The files are loaded once, at the first request (bundled then when no build is there). A path is
 * looked up by name in that fixed set, never joined to a directory, so nothing else can be read; anything else
 * under /console is 404 `route_not_found`, as for any unknown route. Every answer carries the console's
 * Content-Security-Policy: scripts and styles from this origin only, fetches to this origin and the auth and
 * social services, no frames, no inline code.
 */
import { loadConsoleAssets, type ConsoleAsset } from '@platform/console';
import type { App } from '@platform/kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';

const origin = (url: string) => new URL(url).origin;

/** The Content-Security-Policy of every /console answer. */
export function consoleCsp(config: Pick<Context['config'], 'consoleAuthUrl' | 'consoleSocialUrl'>): string {
  const connect = [...new Set([origin(config.consoleAuthUrl), origin(config.consoleSocialUrl)])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function consoleRoutes(app: App, ctx: Context): void {
  if (!ctx.config.consoleEnabled) return;
  const csp = consoleCsp(ctx.config);
  const config: ConsoleAsset = {
    type: 'application/json; charset=utf-8',
    body: Buffer.from(
      JSON.stringify({ authUrl: ctx.config.consoleAuthUrl, socialUrl: ctx.config.consoleSocialUrl, idleMinutes: ctx.config.consoleIdleMinutes }),
    ),
  };
  let loading: Promise<Map<string, ConsoleAsset>> | undefined;
  const assets = () => {
    loading ??= loadConsoleAssets().catch((err: unknown) => {
      loading = undefined; // the next request tries again
      throw err;
    });
    return loading;
  };

  const send = async (name: string, req: FastifyRequest, reply: FastifyReply) => {
    const asset = name === 'config.json' ? config : (await assets()).get(name);
    if (!asset) return reply.callNotFound();
    return reply
      .header('content-type', asset.type)
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .send(req.method === 'HEAD' ? undefined : asset.body);
  };
  const route = { schema: { hide: true }, config: { caller: 'none', rateLimited: false } };

  app.get('/console', route, (req, reply) => send('index.html', req, reply));
  app.get<{ Params: { '*': string } }>('/console/*', route, (req, reply) => send(req.params['*'] || 'index.html', req, reply));
}
