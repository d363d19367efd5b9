// Runs every test file of every workspace package (packages/*, examples/*) with node's test runner (through tsx).
// The sources run directly: the `development` export condition resolves @platform/* to src/*.ts (no build
// needed); NODE_OPTIONS carries it to the processes the tests start (npm start, cluster nodes).
// Files run in parallel (each has its own schema and key prefix); pass file
// paths or a package name to narrow the run: `npm test -- registry`.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { buildIsFresh } from './build-fresh.mjs';
import { ensureConsoleBuilt } from './console-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const files = [];
// The workspaces: the services and libraries (packages/*) and the examples built on them (examples/*).
for (const group of ['packages', 'examples']) {
  if (!existsSync(path.join(root, group))) continue;
  for (const pkg of readdirSync(path.join(root, group))) {
    const dir = path.join(root, group, pkg, 'test');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir, { recursive: true })) {
      if (String(f).endsWith('.test.ts')) files.push(path.join(group, pkg, 'test', String(f)));
    }
  }
}
const chosen = args.length ? files.filter((f) => args.some((a) => f.includes(a))) : files;
if (!chosen.length) {
  console.error('no test files match', args);
  process.exit(1);
}
// Files named *.serial.test.ts bind the services' fixed ports (3004, 8443,
// 9443): they run after the others, one at a time, so they never race.
const parallel = chosen.filter((f) => !f.endsWith('.serial.test.ts')).sort();
const serial = chosen.filter((f) => f.endsWith('.serial.test.ts')).sort();
// TEST_TIMINGS=file: also write each file's test time there, slowest first (scripts/timing-reporter.mjs).
let timingRuns = 0;
const timings = () =>
  process.env.TEST_TIMINGS
    ? ['--test-reporter-destination=stdout', `--test-reporter=${path.join(root, 'scripts/timing-reporter.mjs')}`, `--test-reporter-destination=${process.env.TEST_TIMINGS}.${++timingRuns}`]
    : [];
const run = (list, concurrency) =>
  spawnSync(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', '--test-reporter=spec', ...timings(), ...list],
    // Every response of a route is checked against its documented status and schema (kit response-contract.ts).
    {
      stdio: 'inherit',
      cwd: root,
      env: { PLATFORM_CHECK_RESPONSES: '1', ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=development`.trim() },
    },
  ).status ?? 1;
// The registry serves the console from its built files (packages/console/dist/public): made once here when
// missing or older than the sources, before any test file starts a registry.
ensureConsoleBuilt();
// The service processes the tests start (cluster nodes, `npm start`, CLIs) run from the compiled build when it is
// current (CI builds first): a node from the build starts in about half the CPU of one compiling its sources through
// tsx. The test files themselves still run on the sources.
const fromBuild = process.env.PLATFORM_NODES_FROM_BUILD ?? (buildIsFresh() ? '1' : '0');
console.log(fromBuild === '1' ? '[test] service processes run from packages/*/dist (current)' : '[test] service processes run from the sources through tsx (packages/*/dist is missing or older)');
process.env.PLATFORM_NODES_FROM_BUILD = fromBuild;
let status = 0;
if (parallel.length) status = run(parallel, process.env.TEST_CONCURRENCY ?? '3') || status;
if (serial.length) status = run(serial, '1') || status;
process.exit(status);
