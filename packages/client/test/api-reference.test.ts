/**
 * The API reference in docs/sdk is what TypeDoc makes of the sources now (`npm run docs -w @platform/client`), and
 * TypeDoc's validation passes: every class, function and method has a description (typedoc.json
 * requiredToBeDocumented, warnings as errors), and so does every realtime event (scripts/typedoc-plugin.mjs).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const pkg = path.resolve(import.meta.dirname, '..');
const committed = path.resolve(pkg, '../../docs/sdk');
const typedoc = path.resolve(pkg, '../../node_modules/.bin/typedoc');

const files = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

describe('client: the API reference (docs/sdk)', () => {
  it('is generated from the sources as they are now, with every method and event described', { timeout: 120_000 }, async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'sdk-reference-'));
    try {
      await promisify(execFile)(typedoc, ['--out', out], { cwd: pkg, env: { ...process.env, NODE_OPTIONS: '' } }).catch((e: { stdout: string; stderr: string }) =>
        assert.fail(`typedoc failed (a public method or event without a description?):\n${e.stdout}${e.stderr}`),
      );
      const fresh = files(out);
      assert.deepEqual(files(committed), fresh, 'the same pages (run `npm run docs -w @platform/client` and commit docs/sdk)');
      const stale = fresh.filter((f) => readFileSync(path.join(out, f), 'utf8') !== readFileSync(path.join(committed, f), 'utf8'));
      assert.deepEqual(stale, [], 'stale pages: run `npm run docs -w @platform/client` and commit docs/sdk');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
