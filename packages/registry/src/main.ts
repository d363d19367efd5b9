// Process entry: `node packages/registry/dist/main.js` (or src/main.ts through tsx).
import { runMain } from '@platform/kit';
import { registryService } from './service.js';

await runMain(registryService);
