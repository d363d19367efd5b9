/**
 * The compatibility rule's check (docs/sdk-compatibility.md): the newest CHANGELOG.md entry names the SHA-256 of
 * the generated service types (src/generated/*.ts). When `npm run openapi` changes them, this fails until an entry
 * says what changed for SDK users (and records the new hash).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const pkg = path.resolve(import.meta.dirname, '..');

/** sha256 over each generated file's name and content, in name order. */
export function generatedTypesHash(): string {
  const dir = path.join(pkg, 'src', 'generated');
  const h = createHash('sha256');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) {
    h.update(`${f}\n`);
    h.update(readFileSync(path.join(dir, f)));
  }
  return h.digest('hex');
}

describe('client: generated types and the CHANGELOG', () => {
  it('the newest CHANGELOG entry records the hash of the generated types', () => {
    const changelog = readFileSync(path.join(pkg, 'CHANGELOG.md'), 'utf8');
    const entries = changelog.split(/^## /m).slice(1);
    assert.ok(entries.length > 0, 'CHANGELOG.md has entries (## <version>)');
    const newest = entries[0];
    const recorded = /^Generated types: `sha256:([0-9a-f]{64})`$/m.exec(newest)?.[1];
    const now = generatedTypesHash();
    assert.equal(
      recorded,
      now,
      `the generated types changed since the newest CHANGELOG entry (## ${newest.split('\n')[0]}): describe the API change there ` +
        `(a renamed or removed field is deprecated first: docs/sdk-compatibility.md) and record the line: Generated types: \`sha256:${now}\``,
    );
    const version = (JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
    assert.match(newest, new RegExp(`^${version.replaceAll('.', '\\.')}\\b`), `the newest entry is package.json's version (${version})`);
  });
});
