/**
 * The lobby's own web server: index.html, style.css, main.js (src/main.ts bundled for browsers by esbuild,
 * in memory, at start) and config.json (where auth and social are). The page is served from this origin
 * only; the services must allow it in CORS_ALLOWED_ORIGINS.
 *
 *   AUTH_URL=https://localhost:8443 SOCIAL_URL=https://localhost:9443 [CLIENT_KEY=ck_…] [PORT=8080] npm start -w @platform/web-lobby
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

export interface LobbyConfig {
  authUrl: string;
  socialUrl: string;
  clientKey?: string;
}

export interface LobbyServer {
  /** The page's origin, e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

/** src/main.ts and the SDK as one ES module for browsers. */
export async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(root, 'src/main.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    // The SDK from its sources (its `development` export), as in the tests: no build of it needed first.
    conditions: ['development'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

export async function startLobbyServer(opts: { config: LobbyConfig; port?: number; host?: string }): Promise<LobbyServer> {
  const files: Record<string, { type: string; body: string }> = {
    '/': { type: 'text/html', body: readFileSync(path.join(root, 'index.html'), 'utf8') },
    '/style.css': { type: 'text/css', body: readFileSync(path.join(root, 'style.css'), 'utf8') },
    '/main.js': { type: 'text/javascript', body: await bundle() },
    '/config.json': { type: 'application/json', body: JSON.stringify(opts.config) },
  };
  files['/index.html'] = files['/'];
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': `${file.type}; charset=utf-8`, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  const lobby = await startLobbyServer({
    config: {
      authUrl: env.AUTH_URL ?? 'https://localhost:8443',
      socialUrl: env.SOCIAL_URL ?? 'https://localhost:9443',
      ...(env.CLIENT_KEY ? { clientKey: env.CLIENT_KEY } : {}),
    },
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? 'localhost',
  });
  console.log(`lobby on ${lobby.url} (allow this origin in the services' CORS_ALLOWED_ORIGINS)`);
}
