// Process entry: `node packages/social/dist/main.js` (or src/main.ts through tsx).
import { runMain } from '@platform/kit';
import { socialService } from './service.js';

await runMain(socialService);
