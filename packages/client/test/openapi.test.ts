/** The committed OpenAPI documents and generated types match what the services describe now (`npm run openapi`). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENT_DIR, generate } from '../../../scripts/openapi.js';

describe('client: generated OpenAPI types', () => {
  it('are up to date with the services (else run `npm run openapi` and commit)', { timeout: 600_000 }, async () => {
    const files = await generate();
    assert.deepEqual([...files.keys()].sort(), [
      'openapi/auth.json',
      'openapi/registry.json',
      'openapi/social.json',
      'src/generated/auth.ts',
      'src/generated/registry.ts',
      'src/generated/social.ts',
    ]);
    const stale: string[] = [];
    for (const [rel, content] of files) {
      let committed = '';
      try {
        committed = readFileSync(path.join(CLIENT_DIR, rel), 'utf8');
      } catch {
        committed = '(missing)';
      }
      if (committed !== content) stale.push(rel);
    }
    assert.deepEqual(stale, [], `stale generated files — run \`npm run openapi\`: ${stale.join(', ')}`);
  });
});
