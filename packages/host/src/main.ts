// Entry point of the whole platform in one process: `npm start` (sources, through tsx) or, after `npm run build`,
// `node packages/host/dist/main.js`. Ctrl-C or SIGTERM stops every service gracefully, then the database.
import path from 'node:path';
import { openEmbeddedPostgres } from '@platform/kit/pglite';
import type { RunningHost } from './host.js';

// The embedded database is opened first, on its own light import: its wasm compiles on background threads while
// the services' modules load. DATA_DIR/pg, as host.ts would open it.
const opening = process.env.DATABASE_URL ? undefined : openEmbeddedPostgres(path.join(path.resolve(process.env.DATA_DIR ?? 'data'), 'pg'));
opening?.catch(() => {}); // awaited by startHost
const { startHost } = await import('./host.js');
const { ConfigError } = await import('@platform/kit');

const say = (line: string) => console.log(`[platform] ${line}`);

let host: RunningHost;
try {
  host = await startHost(process.env, { opening });
} catch (err) {
  console.error(`[platform] failed to start: ${(err as Error).message}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // Bounded like each service's own SIGTERM drain.
  setTimeout(() => process.exit(1), 12_000).unref();
  host.close().then(
    () => process.exit(0),
    (err) => {
      console.error(`[platform] shutdown failed: ${(err as Error).message}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

console.log('');
say(`running in one process on ${host.pgDir ? `embedded storage under ${host.dataDir} (PGlite: ${host.pgDir})` : 'DATABASE_URL'}`);
for (const [name, base] of Object.entries(host.urls)) {
  say(`  ${name.padEnd(8)} ${base}   docs: ${base}/docs   OpenAPI: ${base}/openapi.json`);
}
if (host.consoleUrl) {
  say(`  console  ${host.consoleUrl}   (developers, super-admin, moderators: docs/console.md; the browser must trust ${host.caFile})`);
}
const metrics = Object.entries(host.metrics).filter(([, url]) => url);
if (metrics.length) {
  say('metrics (Prometheus, not public: docs/deployment.md "Metrics"):');
  for (const [name, url] of metrics) say(`  ${name.padEnd(8)} ${url}`);
} else say('metrics: off (AUTH_METRICS_PORT, REGISTRY_METRICS_PORT, SOCIAL_METRICS_PORT open them on 127.0.0.1; docs/deployment.md "Metrics")');
say(
  host.mailbox
    ? `mail (password reset, email verification) is not sent: each message is written to ${host.mailbox} (AUTH_SMTP_URL sends it)`
    : 'mail is sent through AUTH_SMTP_URL',
);
say(`trust this one CA file for auth and social: ${host.caFile} (curl --cacert …, NODE_EXTRA_CA_CERTS=…)`);
say(
  `registry super-admin: ${process.env.REGISTRY_ADMIN_EMAIL ?? 'admin@localhost'} (a generated password is printed above on the first start only; REGISTRY_ADMIN_PASSWORD sets it)`,
);
say('walkthrough: docs/walkthrough.md   architecture: docs/architecture.md');
say('Ctrl-C stops everything.\n');
