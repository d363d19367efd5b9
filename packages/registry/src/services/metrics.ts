/**
 * The registry's metrics (docs/registry.md, "Metrics"), on top of the kit's HTTP, process and database pool
 * metrics: what a studio operator watches. Counted by wrapping the services (no change to their code): key
 * validations by kind and result, module uploads by packaging and outcome (the refusal's error code), sign-in
 * limits that refused; read at each scrape: developers, games and module builds.
 */
import { AppError, createMetrics, databaseMetrics, perScrape, setOrAbsent, type Database, type ServiceMetrics } from '@platform/kit';
import { registryCounts } from '../queries/stats.js';
import type { GameKeyService } from './game-keys.js';
import type { moduleService } from './modules.js';

type ModuleService = ReturnType<typeof moduleService>;

export interface RegistryMetrics {
  readonly metrics: ServiceMetrics;
  /** The kit rate limiter's `onLimited`. */
  rateLimited(limit: string): void;
  /** The game-key service, its validations counted. */
  countKeyValidations(keys: GameKeyService): GameKeyService;
  /** The module service, its uploads counted. */
  countModuleUploads(modules: ModuleService): ModuleService;
}

export function createRegistryMetrics(db: Database): RegistryMetrics {
  const metrics = createMetrics('registry');
  databaseMetrics(metrics, db);
  const validations = metrics.counter('key_validations_total', 'Game credential checks by kind (api_key, client_key) and result (valid, invalid)', ['kind', 'result']);
  const uploads = metrics.counter(
    'module_uploads_total',
    'Server-module uploads by packaging, result (admitted, rejected, failed) and reason (the refusal code; none when admitted, error when failed)',
    ['packaging', 'result', 'reason'],
  );
  const limited = metrics.counter('rate_limited_total', 'Requests refused by a rate limit, by limit', ['limit']);
  const counts = { developers: 'Developer accounts', games: 'Games', module_builds: 'Module builds stored (admitted wasm and native)' } as const;
  // One query per scrape for the three gauges.
  const read = perScrape(() => registryCounts(db));
  for (const [key, help] of Object.entries(counts) as [keyof typeof counts, string][]) {
    metrics.gauge(key, `${help} (absent when the database did not answer within a second)`, [], async (g) => {
      setOrAbsent(g, (await read())?.[key]);
    });
  }
  return {
    metrics,
    rateLimited: (limit) => limited.inc({ limit }),
    countKeyValidations: (keys) => ({
      ...keys,
      async validateKey(apiKey, apiSecret) {
        const found = await keys.validateKey(apiKey, apiSecret);
        validations.inc({ kind: 'api_key', result: found ? 'valid' : 'invalid' });
        return found;
      },
      async validateClientKey(clientKey) {
        const found = await keys.validateClientKey(clientKey);
        validations.inc({ kind: 'client_key', result: found ? 'valid' : 'invalid' });
        return found;
      },
    }),
    countModuleUploads: (modules) => ({
      ...modules,
      async upload(gameId, input) {
        try {
          const build = await modules.upload(gameId, input);
          uploads.inc({ packaging: input.packaging, result: 'admitted', reason: 'none' });
          return build;
        } catch (err) {
          // A refusal names its listed code (a bounded set); an outage or a bug is a failure, not a refusal.
          const refused = err instanceof AppError && err.status < 500;
          uploads.inc({ packaging: input.packaging, result: refused ? 'rejected' : 'failed', reason: refused ? err.code : 'error' });
          throw err;
        }
      },
    }),
  };
}
