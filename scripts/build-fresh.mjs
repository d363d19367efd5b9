// Whether the compiled build (packages/*/dist) is current: `npm start` runs it then (scripts/start.mjs), and the
// test run starts its service processes from it (scripts/test.mjs: PLATFORM_NODES_FROM_BUILD).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

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
export function buildIsFresh() {
  return BUILT.every((name) => {
    const pkg = path.join(root, 'packages', name);
    const info = path.join(pkg, 'dist', '.tsbuildinfo');
    if (!existsSync(info)) return false;
    const built = statSync(info).mtimeMs;
    return newestSource(path.join(pkg, 'src')) <= built && statSync(path.join(pkg, 'package.json')).mtimeMs <= built;
  });
}

