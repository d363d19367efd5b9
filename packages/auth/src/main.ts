// Process entry: `node packages/auth/dist/main.js` (or src/main.ts through tsx).
import { runMain } from '@platform/kit';
import { authService } from './service.js';

await runMain(authService);
