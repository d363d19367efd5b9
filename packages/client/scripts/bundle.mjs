// The single-file build for `<script type="module">` users: the whole SDK as one minified ES module with its source
// map (dist/platform-client.min.js), made by esbuild from the sources. `npm run build` runs it after tsc; the size
// bound is in test/package.test.ts (and the figure in CHANGELOG.md).
import { build } from 'esbuild';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Builds the single-file module into `outfile` (default dist/platform-client.min.js); answers esbuild's result. */
export function bundleBrowserModule(outfile = path.join(root, 'dist', 'platform-client.min.js'), write = true) {
  return build({
    entryPoints: [path.join(root, 'src', 'index.ts')],
    outfile,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    legalComments: 'none',
    write,
    metafile: true,
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await bundleBrowserModule();
