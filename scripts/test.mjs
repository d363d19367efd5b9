// Runs every test file of every package with node's test runner (through tsx).
// Files run in parallel (each has its own schema and key prefix); pass file
// paths or a package name to narrow the run: `npm test -- registry`.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const files = [];
for (const pkg of readdirSync(path.join(root, 'packages'))) {
  const dir = path.join(root, 'packages', pkg, 'test');
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir, { recursive: true })) {
    if (String(f).endsWith('.test.ts')) files.push(path.join('packages', pkg, 'test', String(f)));
  }
}
const chosen = args.length ? files.filter((f) => args.some((a) => f.includes(a))) : files;
if (!chosen.length) {
  console.error('no test files match', args);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=120000', '--test-reporter=spec', ...chosen.sort()],
  { stdio: 'inherit', cwd: root, env: process.env },
);
process.exit(r.status ?? 1);
