// Process entry: `node packages/social/dist/main.js` (or src/main.ts through tsx).
import { ConfigError } from '@platform/kit';
import { startSocial } from './start.js';

try {
  await startSocial(process.env);
} catch (err) {
  process.stderr.write(`social: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
