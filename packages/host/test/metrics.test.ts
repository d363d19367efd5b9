// The three services in one process keep three metrics registries on three listeners (loopback), each with its
// own metrics only; two services asked for the same metrics port are refused before anything starts. Embedded
// storage and free ports throughout: the services' fixed ones may be held by other tests.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@platform/kit';
import { scrapeMetrics } from '@platform/kit/testing';
import { metricsPortClashes, startHost } from '../src/index.js';
import { embeddedHostEnv } from './support.js';

describe('host metrics', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-metrics-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses two services on one metrics port', async () => {
    assert.deepEqual(metricsPortClashes({ AUTH_METRICS_PORT: '9464', REGISTRY_METRICS_PORT: '9465', SOCIAL_METRICS_PORT: '0' }), []);
    assert.deepEqual(metricsPortClashes({ AUTH_METRICS_PORT: '0', SOCIAL_METRICS_PORT: '0' }), []);
    const clash = { AUTH_METRICS_PORT: '9464', SOCIAL_METRICS_PORT: '9464', DATA_DIR: dir };
    assert.match(metricsPortClashes(clash).join(), /AUTH_METRICS_PORT and SOCIAL_METRICS_PORT are both 9464/);
    await assert.rejects(startHost(clash, { log: () => {} }), (err: Error) => err instanceof ConfigError);
  });

  it('serves each service its own registry on its own loopback listener', async () => {
    const { env, registryPort } = await embeddedHostEnv(dir, 'host-metrics-admin-password', {
      AUTH_METRICS_PORT: '0',
      REGISTRY_METRICS_PORT: '0',
      SOCIAL_METRICS_PORT: '0',
    });
    const host = await startHost(env, { registryPort, log: () => {} });
    const declared = new Set<string>();
    try {
      const urls = [host.metrics.auth, host.metrics.registry, host.metrics.social];
      for (const url of urls) assert.match(url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      assert.equal(new Set(urls).size, 3);
      for (const [service, url] of Object.entries(host.metrics)) {
        const m = await scrapeMetrics(url!);
        assert.equal(m.status, 200);
        // Only its own metrics, the process defaults included (prefixed with the service).
        assert.deepEqual([...new Set(m.families.map((f) => f.name.split('_')[0]))], [service]);
        assert.ok(m.value(`${service}_process_cpu_user_seconds_total`)! > 0);
        assert.equal(m.value(`${service}_db_pool_max_connections`, { backend: 'pglite' }), 1);
        for (const [, name] of m.text.matchAll(/^# TYPE (\S+) /gm)) declared.add(name);
      }
    } finally {
      await host.close();
    }
    for (const url of Object.values(host.metrics)) await assert.rejects(fetch(url!));

    // Every metric the sample Grafana dashboard queries is one the services declare.
    const dashboard = readFileSync(new URL('../../../deploy/grafana/platform-dashboard.json', import.meta.url), 'utf8');
    const queried = new Set([...dashboard.matchAll(/\b((?:auth|registry|social)_[a-z0-9_]+)/g)].map(([, n]) => n.replace(/_bucket$/, '')));
    assert.ok(queried.size > 30, `${queried.size} metric names in the dashboard`);
    assert.deepEqual([...queried].filter((n) => !declared.has(n)), []);
  });
});
