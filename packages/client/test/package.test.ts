/**
 * The SDK as a studio gets it: `npm pack` (its prepack builds dist/), the tarball installed into a new project in
 * the system's temp directory (outside this workspace, so nothing resolves to the monorepo's sources), and there:
 *
 * - plain Node.js imports it and talks to a running platform (two guests; B hears A's friend request on its socket);
 * - a small TypeScript consumer type-checks with `strict` against the shipped declarations (this repo's tsc);
 * - esbuild bundles that project's browser script from the installed package, and Chromium runs it against the
 *   platform; a second page loads the package's single-file build (`@platform/client/browser`) with a bare
 *   `<script type="module">`, no bundler.
 *
 * One platform serves all three; it starts while the package is packed and installed. The consumer's transport
 * packages (ws and undici: Node 20 has no global WebSocket, and the test certificates are self-signed) are the
 * versions this workspace has, so npm finds them in its cache (`--prefer-offline`); the SDK itself has no
 * runtime dependency.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { chromiumLaunchOptions, chromiumSkip } from '@platform/kit/testing';
import { startTestPlatform, type TestPlatform } from './support.js';

const run = promisify(execFile);
const pkgDir = path.resolve(import.meta.dirname, '..');
const root = path.resolve(pkgDir, '../..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
const version = (name: string) => (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** The Node consumer: plain JavaScript, the SDK from node_modules; prints one JSON line of what happened. */
const NODE_APP = `
import { readFileSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import { createClient, memoryStorage, PlatformError } from '@platform/client';

const { AUTH_URL, SOCIAL_URL, AUTH_CA, SOCIAL_CA } = process.env;
const authAgent = new Agent({ connect: { ca: readFileSync(AUTH_CA, 'utf8') } });
const socialAgent = new Agent({ connect: { ca: readFileSync(SOCIAL_CA, 'utf8') } });
const ca = readFileSync(SOCIAL_CA, 'utf8');
class TrustingWebSocket extends WebSocket {
  constructor(url, protocols) { super(url, protocols, { ca }); }
}
const fetch = (url, init) => undiciFetch(url, { ...init, dispatcher: url.startsWith(SOCIAL_URL) ? socialAgent : authAgent });
const client = () => createClient({ authUrl: AUTH_URL, socialUrl: SOCIAL_URL, storage: memoryStorage(), fetch, WebSocket: TrustingWebSocket });

const a = client();
const b = client();
await a.auth.signInAsGuest();
await b.auth.signInAsGuest();
await a.social.changeName('NodeAda');
const bob = await b.social.changeName('NodeBob');
const rt = b.realtime();
const received = new Promise((resolve) => rt.on('friendRequestReceived', resolve));
await rt.connect();
await a.social.sendFriendRequest({ toHandle: bob.fullHandle });
const request = await received;
let refused;
try { await a.social.sendFriendRequest({ toHandle: 'Nobody#0000' }); } catch (e) { refused = e instanceof PlatformError ? e.code : String(e); }
rt.close();
await authAgent.close();
await socialAgent.close();
console.log(JSON.stringify({ from: request.fullHandle, refused }));
`;

/** The TypeScript consumer: only type-checked (strict); the @ts-expect-error lines fail if the types were `any`. */
const TS_APP = `
import { createClient, memoryStorage, PlatformError, type PlatformClient, type RealtimeEvents } from '@platform/client';

const client: PlatformClient = createClient({ authUrl: 'https://auth.example', socialUrl: 'https://social.example', storage: memoryStorage() });

export async function befriend(handle: string): Promise<string> {
  const me = await client.social.me();
  const rt = client.realtime();
  rt.on('friendRequestReceived', (r) => console.log(r.fullHandle.toUpperCase()));
  const onChat: (m: RealtimeEvents['chatMessage']) => void = (m) => console.log(m.body);
  rt.on('chatMessage', onChat);
  // @ts-expect-error: no such event
  rt.on('friendRequestRecieved', () => {});
  try {
    await client.social.sendFriendRequest({ toHandle: handle });
  } catch (e) {
    if (e instanceof PlatformError) return \`\${e.status} \${e.code} \${e.retryAfter ?? ''}\`;
    throw e;
  }
  // @ts-expect-error: createClient needs socialUrl
  createClient({ authUrl: 'https://auth.example' });
  return me.fullHandle;
}
`;

/** The browser consumer (bundled by esbuild from the installed package): sets window.result. */
const BROWSER_APP = (entry: string) => `
import { createClient, PlatformError } from '${entry}';
const { authUrl, socialUrl } = window.config;
async function main() {
  const a = createClient({ authUrl, socialUrl });
  const b = createClient({ authUrl, socialUrl });
  await a.auth.signInAsGuest();
  await b.auth.signInAsGuest();
  const bob = await b.social.changeName('WebBob');
  const rt = b.realtime();
  const received = new Promise((resolve) => rt.on('friendRequestReceived', resolve));
  await rt.connect();
  await a.social.sendFriendRequest({ toHandle: bob.fullHandle });
  const request = await received;
  rt.close();
  return { fromPublicId: request.publicId, isPlatformError: typeof PlatformError === 'function' };
}
main().then((r) => { window.result = r; }, (e) => { window.result = { error: String(e) }; });
`;

const page = (config: object, script: string) =>
  `<!doctype html><meta charset="utf-8"><script>window.config = ${JSON.stringify(config)};</script><script type="module" src="${script}"></script>`;

describe('client: the packed package, installed outside the workspace', () => {
  let dir: string;
  let tp: TestPlatform;
  let server: Server;
  let origin: string;
  const files = new Map<string, string>();

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'platform-client-consumer-'));
    // The page's origin must be in the services' CORS list before they start.
    server = createServer((req, res) => {
      const body = files.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': req.url?.endsWith('.html') ? 'text/html' : 'text/javascript' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const cors = { CORS_ALLOWED_ORIGINS: origin };
    const installed = (async () => {
      const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: pkgDir, maxBuffer: 16 << 20 });
      const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string }[];
      const app = path.join(dir, 'app');
      mkdirSync(app);
      writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'studio-game', private: true, type: 'module' }));
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, filename), `ws@${version('ws')}`, `undici@${version('undici')}`], {
        cwd: app,
      });
    })();
    [tp] = await Promise.all([startTestPlatform({ authEnv: cors, socialEnv: cors }), installed]);
  });

  after(async () => {
    await tp?.close();
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const app = () => path.join(dir, 'app');

  it('ships compiled JavaScript, declarations and source maps; no tests, no sources, no OpenAPI documents', () => {
    const installed = path.join(app(), 'node_modules', '@platform', 'client');
    const all = readdirSync(installed, { recursive: true }).map(String);
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/index.js.map', 'dist/platform-client.min.js', 'LICENSE', 'CHANGELOG.md', 'README.md']) {
      assert.ok(all.includes(f), `${f} is in the package`);
    }
    assert.deepEqual(all.filter((f) => /^(test|src|openapi|scripts)\b|\.ts$/.test(f) && !f.endsWith('.d.ts')), [], 'nothing but what a user needs');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
    assert.equal(manifest.sideEffects, false);
    // The monorepo's `development` condition (→ src/*.ts, not shipped) is stripped at pack time (clean-package):
    // Vite and webpack turn that condition on in development builds, and would look for the missing sources.
    assert.doesNotMatch(JSON.stringify(manifest.exports), /development|\.\/src\//);
    assert.equal(manifest.devDependencies, undefined);
  });

  it('plain Node.js imports it and B hears A’s friend request over the socket', async () => {
    writeFileSync(path.join(app(), 'app.mjs'), NODE_APP);
    const { stdout } = await run(process.execPath, ['app.mjs'], {
      cwd: app(),
      timeout: 30_000,
      // Not this test runner's NODE_OPTIONS (its development condition and tsx): a user's plain `node app.mjs`.
      env: { PATH: process.env.PATH, AUTH_URL: tp.platform.auth.url, SOCIAL_URL: tp.platform.socialUrl, AUTH_CA: tp.platform.authTls.certPath, SOCIAL_CA: tp.platform.socialTls.certPath },
    });
    const out = JSON.parse(stdout.trim()) as { from: string; refused: string };
    assert.match(out.from, /^NodeAda#\d{4}$/);
    assert.equal(out.refused, 'user_not_found'); // a PlatformError from the installed package
  });

  it('a strict TypeScript consumer type-checks against the shipped declarations', async () => {
    writeFileSync(path.join(app(), 'consumer.ts'), TS_APP);
    const tsconfig = { compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true }, files: ['consumer.ts'] };
    writeFileSync(path.join(app(), 'tsconfig.json'), JSON.stringify(tsconfig));
    const r = await run(tsc, ['-p', 'tsconfig.json'], { cwd: app() }).catch((e: { stdout: string }) => assert.fail(`tsc failed:\n${e.stdout}`));
    assert.equal(r.stdout, '');
  });

  it('esbuild bundles it for the browser, and the bundle and the single-file build run in Chromium', { skip: chromiumSkip() }, async () => {
    writeFileSync(path.join(app(), 'browser.js'), BROWSER_APP('@platform/client'));
    const bundled = await build({ entryPoints: [path.join(app(), 'browser.js')], absWorkingDir: app(), bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(bundled.metafile.inputs);
    assert.ok(inputs.every((i) => i === 'browser.js' || i.startsWith('node_modules/@platform/client/dist/')), inputs.join(', '));
    const config = { authUrl: tp.platform.auth.url, socialUrl: tp.platform.socialUrl };
    files.set('/bundled.html', page(config, '/bundled.js'));
    files.set('/bundled.js', bundled.outputFiles[0].text);
    // No bundler: the page imports the package's single-file build by URL.
    files.set('/module.html', page(config, '/module.js'));
    files.set('/module.js', BROWSER_APP('./platform-client.min.js'));
    files.set('/platform-client.min.js', readFileSync(path.join(app(), 'node_modules/@platform/client/dist/platform-client.min.js'), 'utf8'));

    let browser: Browser | undefined;
    try {
      browser = await chromium.launch(chromiumLaunchOptions([tp.platform.authTls.cert, tp.platform.socialTls.cert]));
      for (const html of ['/bundled.html', '/module.html']) {
        const p = await browser.newPage();
        await p.goto(origin + html);
        const handle = await p.waitForFunction(() => (window as { result?: unknown }).result, undefined, { timeout: 20_000 });
        const result = (await handle.jsonValue()) as { fromPublicId?: string; isPlatformError?: boolean; error?: string };
        assert.equal(result.error, undefined, `${html}: ${result.error}`);
        assert.match(result.fromPublicId ?? '', /\S/, html);
        assert.equal(result.isPlatformError, true);
        await p.close();
      }
    } finally {
      await browser?.close();
    }
  });
});
