/**
 * The web console (docs/console.md): its static files, read from the directory REGISTRY_CONSOLE_DIR (the console
 * package's build output by default: this service never imports the console's code), and config.json, at
 * /console/. The directory's files are read once; a path is looked up by name among them, never joined to the
 * directory, so nothing else can be read; anything else under /console is 404 `route_not_found`, as for any
 * unknown route. While the directory holds no console (not built), the registry says so once in its log and
 * every /console answer is 503 `console_unavailable`; the files are looked for again at each request, so a build
 * made meanwhile is served without a restart. Every answer carries the console's Content-Security-Policy:
 * scripts and styles from this origin only, fetches to this origin and the auth and social services, no frames,
 * no inline code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { App } from '@platform/kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import { fail } from '../errors.js';

const origin = (url: string) => new URL(url).origin;

interface ConsoleAsset {
  type: string;
  body: Buffer;
}

/** The types of the files served from the directory; a file of another kind is not served. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

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

/**
 * The console's files in `dir` by name (its regular files of a known type, not its subdirectories), or the
 * reason there is no console there: no directory, or no index.html in it.
 */
export function readConsoleDir(dir: string): Map<string, ConsoleAsset> | { problem: string } {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    return { problem: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message };
  }
  const assets = new Map<string, ConsoleAsset>();
  for (const e of entries) {
    const type = TYPES[path.extname(e.name)];
    if (e.isFile() && type && !e.name.startsWith('.')) assets.set(e.name, { type, body: readFileSync(path.join(dir, e.name)) });
  }
  return assets.has('index.html') ? assets : { problem: 'no index.html in it' };
}

export function consoleRoutes(app: App, ctx: Context): void {
  if (!ctx.config.consoleEnabled) return;
  const csp = consoleCsp(ctx.config);
  const dir = path.resolve(ctx.config.consoleDir);
  const config: ConsoleAsset = {
    type: 'application/json; charset=utf-8',
    body: Buffer.from(
      JSON.stringify({ authUrl: ctx.config.consoleAuthUrl, socialUrl: ctx.config.consoleSocialUrl, idleMinutes: ctx.config.consoleIdleMinutes }),
    ),
  };
  let assets: Map<string, ConsoleAsset> | undefined;
  let told = false;
  /** The files, read at the first call that finds them; undefined (said once in the log) while there are none. */
  const load = () => {
    if (assets) return assets;
    const found = readConsoleDir(dir);
    if (found instanceof Map) return (assets = found);
    if (!told) {
      told = true;
      app.log.warn(
        { consoleDir: dir, problem: found.problem },
        'the web console is not built: /console answers 503 console_unavailable until its files are in REGISTRY_CONSOLE_DIR (npm run build), or set REGISTRY_CONSOLE=off',
      );
    }
    return undefined;
  };
  load();

  const send = async (name: string, req: FastifyRequest, reply: FastifyReply) => {
    const files = load();
    if (!files) throw fail('console_unavailable', 'The web console is not built on this server');
    const asset = name === 'config.json' ? config : files.get(name);
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
