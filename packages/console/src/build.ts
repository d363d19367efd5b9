// `npm run build -w @platform/console` (run by the repository's `npm run build`, hence `prepare`): writes the
// console's static files (index.html, style.css, console.js) to dist/public/, the directory the registry serves
// at /console (REGISTRY_CONSOLE_DIR), or to the directory given as the first argument.
import path from 'node:path';
import { PUBLIC_DIR, writeConsole } from './index.js';

const dir = process.argv[2] ? path.resolve(process.argv[2]) : PUBLIC_DIR;
await writeConsole(dir);
console.log(`wrote the console to ${dir}`);
