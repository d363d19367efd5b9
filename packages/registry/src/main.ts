// Process entry: `node packages/registry/dist/main.js` (or src/main.ts through tsx).
import { ConfigError } from '@platform/kit';
import { startRegistry } from './start.js';

try {
  await startRegistry(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`registry: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`registry: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
}
