/** The SDK bundles for browsers: esbuild with platform 'browser' succeeds and pulls in nothing from Node. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { build } from 'esbuild';

const entry = path.resolve(import.meta.dirname, '../src/index.ts');

describe('client: browser bundle', () => {
  it('bundles src/index.ts for the browser without node: imports or Node built-ins', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.warnings, []);
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(inputs.every((i) => i.includes('packages/client/src/')), `only the SDK's own files: ${inputs.join(', ')}`);
    const imports = Object.values(result.metafile.inputs).flatMap((i) => i.imports.map((x) => x.path));
    assert.deepEqual(imports.filter((p) => p.startsWith('node:') || !p.includes('/')), [], 'no Node built-ins');
    const code = result.outputFiles[0].text;
    assert.doesNotMatch(code, /\brequire\(|from ["']node:/);
    assert.match(code, /export\s*\{[^}]*createClient/);
  });
});
