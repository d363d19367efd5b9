// The registry as main.ts starts it, on BENCH_REGISTRY_PORT instead of the fixed 3004 (which tests may hold).
import { startRegistry } from '../../packages/registry/src/index.js';

await startRegistry(process.env, { port: Number(process.env.BENCH_REGISTRY_PORT) });
