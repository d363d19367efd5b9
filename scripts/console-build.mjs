// The console's static files (packages/console/dist/public: index.html, style.css, console.js), built when
// missing or older than a source: the registry serves that directory at /console (REGISTRY_CONSOLE_DIR) and
// never bundles anything itself. `npm run build` writes them too; this keeps runs from the sources (the test
// runner, `npm start` and `npm run start:dev`) serving the console as the sources are now.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const pkg = path.join(root, 'packages', 'console');
export const CONSOLE_PUBLIC_DIR = path.join(pkg, 'dist', 'public');
const FILES = ['index.html', 'style.css', 'console.js'];
/** What the files are made of: the page, the console's sources and the SDK's (bundled in). */
const SOURCES = [path.join(pkg, 'web'), path.join(pkg, 'src'), path.join(root, 'packages', 'client', 'src')];

function newest(dir) {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const f of readdirSync(dir, { recursive: true })) t = Math.max(t, statSync(path.join(dir, String(f))).mtimeMs);
  return t;
}

/** True when every file is there and newer than every source. */
export function consoleBuildIsFresh() {
  const files = FILES.map((f) => path.join(CONSOLE_PUBLIC_DIR, f));
  if (!files.every((f) => existsSync(f))) return false;
  const built = Math.min(...files.map((f) => statSync(f).mtimeMs));
  return SOURCES.every((dir) => newest(dir) <= built);
}

/** Builds the console's files (from the sources, through tsx) unless they are fresh; throws if the build fails. */
export function ensureConsoleBuilt() {
  if (consoleBuildIsFresh()) return;
  const r = spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', path.join(pkg, 'src', 'build.ts')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`building the console failed (exit ${r.status}): node --import tsx packages/console/src/build.ts`);
}
