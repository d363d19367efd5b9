/**
 * The single-file build for `<script type="module">` (scripts/bundle.mjs, dist/platform-client.min.js) stays small:
 * the SDK alone (no dependency pulled in), within the bound CHANGELOG.md states.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleBrowserModule } from '../scripts/bundle.mjs';

/** The bounds (bytes), as stated in CHANGELOG.md; raise them there and here together, with a reason. */
const MAX_MINIFIED = 32 * 1024;
const MAX_GZIP = 10 * 1024;

describe('client: the single-file ES module', () => {
  it(`is at most ${MAX_MINIFIED / 1024} KiB minified and ${MAX_GZIP / 1024} KiB gzip, and holds only the SDK`, async () => {
    const result = await bundleBrowserModule(path.join(tmpdir(), 'platform-client.min.js'), false);
    const js = (result.outputFiles ?? []).find((f) => f.path.endsWith('.js'));
    assert.ok(js);
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(inputs.every((i) => i.includes('packages/client/src/')), `only the SDK's own files: ${inputs.join(', ')}`);
    const size = js.contents.byteLength;
    const gzip = gzipSync(js.contents, { level: 9 }).byteLength;
    assert.ok(size <= MAX_MINIFIED, `${size} bytes minified > ${MAX_MINIFIED}`);
    assert.ok(gzip <= MAX_GZIP, `${gzip} bytes gzip > ${MAX_GZIP}`);
    assert.match(js.text, /export\s*\{[^}]*createClient/);
    assert.doesNotMatch(js.text, /\brequire\(|from ["']node:/);
  });
});
