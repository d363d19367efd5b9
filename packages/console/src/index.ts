/**
 * @platform/console, Node side: the console's files as the registry serves them at /console (docs/console.md).
 * The page is web/index.html and web/style.css, and console.js: src/app/main.ts with the SDK, bundled for
 * browsers by esbuild. `npm run build` (the repository's `prepare`) writes that bundle to dist/web/console.js;
 * when it is missing or older than a source (running from sources, tests), it is bundled in memory instead.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
/** The browser sources, and the SDK's (bundled in). */
const SOURCES = [path.join(root, 'src', 'app'), path.join(root, '..', 'client', 'src')];
export const BUNDLE_FILE = path.join(root, 'dist', 'web', 'console.js');

export interface ConsoleAsset {
  type: string;
  body: Buffer;
}

/** Newest modification time of the files under dir (0 when absent). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const f of readdirSync(dir, { recursive: true })) t = Math.max(t, statSync(path.join(dir, String(f))).mtimeMs);
  return t;
}

/** src/app/main.ts and the SDK as one ES module for browsers (minified; no source map: nothing to hide, less to serve). */
export async function bundleConsole(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(root, 'src', 'app', 'main.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** The bundle: dist/web/console.js when it is at least as new as every source, else bundled now. */
async function consoleScript(): Promise<string> {
  if (existsSync(BUNDLE_FILE)) {
    const built = statSync(BUNDLE_FILE).mtimeMs;
    if (SOURCES.every((dir) => newest(dir) <= built)) return readFileSync(BUNDLE_FILE, 'utf8');
  }
  return bundleConsole();
}

/**
 * Every file of the console by its path under /console (`index.html`, `style.css`, `console.js`). The registry
 * serves exactly these names: a path is looked up in this map, never joined to a directory.
 */
export async function loadConsoleAssets(): Promise<Map<string, ConsoleAsset>> {
  const web = (name: string) => readFileSync(path.join(root, 'web', name));
  return new Map<string, ConsoleAsset>([
    ['index.html', { type: 'text/html; charset=utf-8', body: web('index.html') }],
    ['style.css', { type: 'text/css; charset=utf-8', body: web('style.css') }],
    ['console.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(await consoleScript()) }],
  ]);
}
