/**
 * The registry's metrics (docs/registry.md, "Metrics"), on top of the kit's HTTP, process and database pool
 * metrics: what a studio operator watches. Counted by the services through these calls: key
 * validations by kind and result, module uploads by packaging and outcome (the refusal's error code), sign-in
 * limits that refused; read at each scrape: developers, games and module builds.
 */
import { AppError, createMetrics, databaseMetrics, perScrape, setOrAbsent, type Database, type ServiceMetrics } from '@platform/kit';
import { registryCounts } from '../queries/stats.js';

export interface RegistryMetrics {
  readonly metrics: ServiceMetrics;
  /** The kit rate limiter's `onLimited`. */
  rateLimited(limit: string): void;
  /** A game credential check (services/game-keys.ts) by kind and result. */
  keyValidated(kind: 'api_key' | 'client_key', valid: boolean): void;
  /** A module upload (services/modules.ts): admitted when `err` is absent, else refused or failed. */
  moduleUploaded(packaging: 'wasm' | 'native', err?: unknown): void;
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
    keyValidated: (kind, valid) => validations.inc({ kind, result: valid ? 'valid' : 'invalid' }),
    moduleUploaded(packaging, err) {
      if (err === undefined) {
        uploads.inc({ packaging, result: 'admitted', reason: 'none' });
        return;
      }
      // A refusal names its listed code (a bounded set); an outage or a bug is a failure, not a refusal.
      const refused = err instanceof AppError && err.status < 500;
      uploads.inc({ packaging, result: refused ? 'rejected' : 'failed', reason: refused ? err.code : 'error' });
    },
  };
}
