// `npm run build -w @platform/console` (run by the repository's `npm run build`, hence `prepare`): writes the
// browser bundle to dist/web/console.js, which the registry then serves without bundling at start.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE_FILE, bundleConsole } from './index.js';

mkdirSync(path.dirname(BUNDLE_FILE), { recursive: true });
writeFileSync(BUNDLE_FILE, await bundleConsole());
console.log(`wrote ${BUNDLE_FILE}`);
