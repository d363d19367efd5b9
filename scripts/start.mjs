// `npm start`: the whole platform (registry, auth, social) in one process on embedded defaults: packages/host.
// It runs the compiled build (packages/*/dist: `npm run build`, which `npm ci` runs as `prepare`) when that is at
// least as new as every source; otherwise the sources through tsx, as scripts/start.ts does (about a second
// slower to start, and ~80 MB more: docs/benchmarks.md, "Starting light").
import { register } from 'node:module';
import { buildIsFresh } from './build-fresh.mjs';
import { ensureConsoleBuilt } from './console-build.mjs';

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
