// `npm start`: the whole platform (registry, auth, social) in one process on embedded defaults, from the
// sources (tsx, `--conditions=development`): packages/host/src/main.ts. After `npm run build` the same runs as
// `node packages/host/dist/main.js`. Production runs one process per service: `node packages/<service>/dist/main.js`.
// The registry serves the console's static files from packages/console/dist/public: made now if missing or stale.
import { ensureConsoleBuilt } from './console-build.mjs';

ensureConsoleBuilt();
await import('../packages/host/src/main.js');
