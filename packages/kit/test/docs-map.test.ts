// The map and the decision records stay what they promise (docs/architecture.md, docs/decisions/README.md):
// the map reads in ten minutes (at most 150 lines), every decision record is listed in the index, and every
// relative link to the map or to a record, from any doc, names a file that exists and a heading it has.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const docs = path.join(root, 'docs');
const decisions = path.join(docs, 'decisions');
const MAP_MAX_LINES = 150;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchors = (file: string) =>
  new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^#{1,6}\s/.test(l))
      .map((l) => slug(l.replace(/^#+\s*/, ''))),
  );

function markdownFiles(): string[] {
  const top = readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => path.join(docs, f));
  const records = readdirSync(decisions).filter((f) => f.endsWith('.md')).map((f) => path.join(decisions, f));
  return [path.join(root, 'README.md'), ...top, ...records];
}

describe('docs map and decision records', () => {
  it(`docs/architecture.md is at most ${MAP_MAX_LINES} lines`, () => {
    const lines = readFileSync(path.join(docs, 'architecture.md'), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= MAP_MAX_LINES, `docs/architecture.md has ${lines} lines; the map keeps to ${MAP_MAX_LINES} (move detail to a decision record)`);
  });

  it('every decision record is linked from docs/decisions/README.md', () => {
    const index = readFileSync(path.join(decisions, 'README.md'), 'utf8');
    const records = readdirSync(decisions).filter((f) => f.endsWith('.md') && f !== 'README.md');
    assert.ok(records.length > 0);
    for (const f of records) assert.match(f, /^\d{4}-[a-z0-9-]+\.md$/, `${f}: records are named NNNN-short-name.md`);
    const missing = records.filter((f) => !index.includes(`](${f})`) && !index.includes(`](./${f})`));
    assert.deepEqual(missing, [], 'records not listed in docs/decisions/README.md');
  });

  it('links to the map and to decision records resolve, anchors included', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue;
        const [rel, anchor] = target.split('#');
        const abs = path.resolve(path.dirname(file), rel);
        if (!abs.startsWith(decisions) && abs !== path.join(docs, 'architecture.md')) continue;
        if (!existsSync(abs)) broken.push(`${path.relative(root, file)} → ${target} (no such file)`);
        else if (anchor && abs.endsWith('.md') && !anchors(abs).has(anchor)) broken.push(`${path.relative(root, file)} → ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
