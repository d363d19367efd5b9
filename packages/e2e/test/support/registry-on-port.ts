// The registry's process entry (packages/registry/src/main.ts) on the port named by E2E_REGISTRY_PORT: a registry
// started alone always listens on 3004 (its spec fixes the port), which a test running beside others cannot
// take. Everything else is the registry's own start (the kit's runMain), from the environment it is given.
import { runMain } from '@platform/kit';
import { registryService } from '@platform/registry';

await runMain({ definition: registryService.definition, start: (env) => registryService.start(env, { port: Number(process.env.E2E_REGISTRY_PORT) }) });
