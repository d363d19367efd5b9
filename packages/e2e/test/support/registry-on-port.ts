// The registry's process entry (packages/registry/src/main.ts) on the port named by E2E_REGISTRY_PORT: a registry
// started alone always listens on 3004 (its spec fixes the port), which a test running beside others cannot
// take. Everything else is the registry's own start, from the environment it is given.
import { ConfigError } from '@platform/kit';
import { startRegistry } from '@platform/registry';

try {
  await startRegistry(process.env, { port: Number(process.env.E2E_REGISTRY_PORT) });
} catch (err) {
  process.stderr.write(`registry: ${err instanceof ConfigError ? err.message : `failed to start: ${(err as Error).message}`}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
