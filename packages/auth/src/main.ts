import { ConfigError } from '@platform/kit';
import { startAuth } from './start.js';

try {
  await startAuth(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
