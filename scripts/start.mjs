// `npm start`: the whole platform (registry, auth, social) in one process on embedded defaults: packages/host.
// It runs the compiled build (packages/*/dist: `npm run build`, which `npm ci` runs as `prepare`) when that is at
// least as new as every source; otherwise the sources through tsx, as scripts/start.ts does (about a second
// slower to start, and ~80 MB more: docs/benchmarks.md, "Starting light").
import { existsSync, readdirSync, statSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { ensureConsoleBuilt } from './console-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const BUILT = ['kit', 'console', 'registry', 'auth', 'social', 'host'];

/**
 * The newest modification time of the .ts files under dir. The console's browser sources (src/app) are not
 * compiled by tsc: they are bundled into the console's static files (packages/console/dist/public), which
 * ensureConsoleBuilt remakes when older than a source.
 */
function newestSource(dir) {
  let newest = 0;
  for (const f of readdirSync(dir, { recursive: true })) {
    if (dir.endsWith(path.join('console', 'src')) && String(f).startsWith('app')) continue;
    if (String(f).endsWith('.ts')) newest = Math.max(newest, statSync(path.join(dir, String(f))).mtimeMs);
  }
  return newest;
}

/** Every package's dist was built (tsc -b writes dist/.tsbuildinfo last) after its sources and package.json last changed. */
function buildIsFresh() {
  return BUILT.every((name) => {
    const pkg = path.join(root, 'packages', name);
    const info = path.join(pkg, 'dist', '.tsbuildinfo');
    if (!existsSync(info)) return false;
    const built = statSync(info).mtimeMs;
    return newestSource(path.join(pkg, 'src')) <= built && statSync(path.join(pkg, 'package.json')).mtimeMs <= built;
  });
}

ensureConsoleBuilt();
if (buildIsFresh()) {
  await import('../packages/host/dist/main.js');
} else {
  console.log('[platform] packages/*/dist is missing or older than the sources: starting from the sources (`npm run build` makes starts faster)');
  // What `node --conditions=development --import tsx` does, from here: @platform/* resolve to their src/*.ts.
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  register(
    'data:text/javascript,export function resolve(s, c, next) { return next(s, { ...c, conditions: [...new Set([...c.conditions, "development"])] }); }',
  );
  await import('./start.ts');
}
