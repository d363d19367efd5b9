// Auth's error-code list (src/errors.ts) and the table in docs/auth.md show the same codes at the same statuses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kitErrorCodes } from '@platform/kit';
import { authErrors } from '../src/errors.js';

/** [status, code] of every code in a `| 404 | \`code\` | … |` row (a row may name several codes). */
function docRows(doc: string): [number, string][] {
  const rows: [number, string][] = [];
  for (const line of doc.split('\n')) {
    const m = /^\|\s*(\d{3})\s*\|([^|]*)\|/.exec(line);
    if (m) for (const c of m[2].matchAll(/`([a-z0-9_]+)`/g)) rows.push([Number(m[1]), c[1]]);
  }
  return rows;
}

describe('auth error codes', () => {
  const doc = readFileSync(new URL('../../../docs/auth.md', import.meta.url), 'utf8');
  const rows = docRows(doc.slice(doc.indexOf('## Error codes'), doc.indexOf('\n## ', doc.indexOf('## Error codes') + 1)));

  it('docs/auth.md shows every code of auth (beyond the kit) at its status', () => {
    const missing = authErrors.entries
      .filter((e) => !kitErrorCodes.has(e.code) && !rows.some(([status, code]) => status === e.status && code === e.code))
      .map((e) => `${e.status} ${e.code}`);
    assert.deepEqual(missing, []);
  });

  it('every code of the doc table is in the list, at the status the doc shows', () => {
    assert.ok(rows.length > 20, `${rows.length} rows`);
    for (const [status, code] of rows) {
      assert.ok(authErrors.has(code), `${code} is not in src/errors.ts`);
      assert.equal(authErrors.status(code), status, code);
    }
  });
});
