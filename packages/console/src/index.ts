/**
 * @platform/console, Node side: how the console's static files are made (docs/console.md). The page is
 * web/index.html and web/style.css, and console.js: src/app/main.ts with the SDK, bundled for browsers by
 * esbuild. `npm run build` (the repository's `prepare`) writes the three to dist/public/, the directory the
 * registry serves at /console (its REGISTRY_CONSOLE_DIR, by default this one found on disk). No service imports
 * this package: the registry only reads the directory.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
/** Where `npm run build` writes the console's files: the registry's default REGISTRY_CONSOLE_DIR. */
export const PUBLIC_DIR = path.join(root, 'dist', 'public');
/** The files of a build, by the name they are served under at /console/. */
export const CONSOLE_FILES = ['index.html', 'style.css', 'console.js'] as const;

/** src/app/main.ts and the SDK as one ES module for browsers (minified; no source map: nothing to hide, less to serve). */
export async function bundleConsole(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(root, 'src', 'app', 'main.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    // The SDK from its sources (its `development` export), as in the tests: no build of it needed first.
    conditions: ['development'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/**
 * Writes the console's files into `dir` (made if missing). Each file is written under a temporary name and
 * renamed into place, so a registry reading the directory meanwhile sees the old file or the new one, never half.
 */
export async function writeConsole(dir: string = PUBLIC_DIR): Promise<void> {
  const files: Record<(typeof CONSOLE_FILES)[number], string | Buffer> = {
    'index.html': readFileSync(path.join(root, 'web', 'index.html')),
    'style.css': readFileSync(path.join(root, 'web', 'style.css')),
    'console.js': await bundleConsole(),
  };
  mkdirSync(dir, { recursive: true });
  for (const name of CONSOLE_FILES) {
    const temporary = path.join(dir, `.${name}.${process.pid}.tmp`);
    writeFileSync(temporary, files[name]);
    renameSync(temporary, path.join(dir, name));
  }
}
