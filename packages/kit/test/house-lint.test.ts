// The root eslint.config.js checks the house rules: each rule fires on a breaking file and stays quiet on
// an allowed one (snippets linted as if at the given path; the files need not exist).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: root });

async function rulesHit(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const fn = (name: string, lines: number) => `export function ${name}() {\n${'  console.log(1);\n'.repeat(lines)}}\n`;

describe('house lint rules (eslint.config.js)', () => {
  it('refuses imports from a higher layer, and allows them downwards', async () => {
    assert.deepEqual(await rulesHit('packages/registry/src/queries/games.ts', "import { x } from '../services/tokens.js';\nexport { x };\n"), ['no-restricted-imports']);
    assert.deepEqual(await rulesHit('packages/social/src/queries/parties.ts', "import { x } from '../routes/schemas.js';\nexport { x };\n"), ['no-restricted-imports']);
    assert.deepEqual(await rulesHit('packages/auth/src/services/accounts.ts', "import { x } from '../routes/admin.js';\nexport { x };\n"), ['no-restricted-imports']);
    assert.deepEqual(await rulesHit('packages/social/src/services/chat.ts', "import { x } from '../realtime/gateway.js';\nexport { x };\n"), ['no-restricted-imports']);
    assert.deepEqual(await rulesHit('packages/social/src/realtime/frames.ts', "import { x } from '../routes/schemas.js';\nexport { x };\n"), ['no-restricted-imports']);
    assert.deepEqual(await rulesHit('packages/social/src/realtime/frames.ts', "import { x } from '../services/chat.js';\nexport { x };\n"), []);
    assert.deepEqual(await rulesHit('packages/registry/src/routes/games.ts', "import { x } from '../services/games.js';\nimport { y } from '../queries/games.js';\nexport { x, y };\n"), []);
    assert.deepEqual(await rulesHit('packages/registry/src/services/games.ts', "import { y } from '../queries/games.js';\nexport { y };\n"), []);
  });

  it('refuses a package not declared in the importing package.json (types included), allows declared ones', async () => {
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', "import { x } from 'oidc-provider';\nexport { x };\n"), ['house/declared-dependencies']);
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', "import type { x } from 'paseto';\nexport type { x };\n"), ['house/declared-dependencies']);
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', "import { Type } from 'typebox';\nimport { readFile } from 'node:fs/promises';\nexport { Type, readFile };\n"), []);
    // A development dependency serves tests only.
    assert.deepEqual(await rulesHit('packages/auth/src/example.ts', "import Provider from 'oidc-provider';\nexport { Provider };\n"), ['house/declared-dependencies']);
    assert.deepEqual(await rulesHit('packages/auth/test/example.test.ts', "import Provider from 'oidc-provider';\nexport { Provider };\n"), []);
  });

  it('limits functions to 80 lines (not in tests) and files to 400, blank lines and comments not counted', async () => {
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', fn('long', 80)), ['max-lines-per-function']);
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', fn('fits', 78)), []);
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', `export function spaced() {\n${'  console.log(1);\n\n  // why\n'.repeat(70)}}\n`), []);
    assert.deepEqual(await rulesHit('packages/kit/test/example.test.ts', fn('suite', 200)), []);
    const file = Array.from({ length: 6 }, (_, i) => fn(`f${i}`, 70)).join('');
    assert.deepEqual(await rulesHit('packages/kit/src/example.ts', file), ['max-lines']);
  });

  it('wants kebab-case file and folder names (dotted suffixes such as .test.ts allowed)', async () => {
    assert.deepEqual(await rulesHit('packages/registry/src/services/apiKeyCache.ts', 'export {};\n'), ['check-file/filename-naming-convention']);
    assert.deepEqual(await rulesHit('packages/social/src/realtimeLayer/gateway.ts', 'export {};\n'), ['check-file/folder-naming-convention']);
    assert.deepEqual(await rulesHit('packages/registry/src/services/key-cache.ts', 'export {};\n'), []);
    assert.deepEqual(await rulesHit('packages/kit/test/state.contract.test.ts', 'export {};\n'), []);
  });
});
