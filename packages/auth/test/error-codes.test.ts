// Auth's error-code list (src/errors.ts), the table in docs/auth.md and the routes' OpenAPI error responses
// show the same codes at the same statuses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kitErrorCodes } from '@platform/kit';
import { authErrors } from '../src/errors.js';
import { useHarness } from './support/harness.js';

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

  describe('in the OpenAPI document', () => {
    const h = useHarness();

    it('every error response names listed codes of its status; each route names its own codes', async () => {
      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      let named = 0;
      for (const [path, ops] of Object.entries<Record<string, { responses?: Record<string, any> }>>(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          for (const [status, r] of Object.entries(op.responses ?? {})) {
            if (Number(status) < 400 || path === '/readyz') continue; // readiness answers its probe body, not an error
            const codes: string[] | undefined = r.content?.['application/json']?.schema?.properties?.code?.enum;
            assert.ok(codes?.length, `${method} ${path} ${status} names no codes`);
            for (const c of codes) assert.equal(authErrors.status(c as never), Number(status), `${method} ${path}: ${c}`);
            named += codes.length;
          }
        }
      }
      assert.ok(named > 50, `${named} codes named`);
      const codesOf = (path: string, method: string, status: number): string[] =>
        doc.paths[path][method].responses[status].content['application/json'].schema.properties.code.enum;
      assert.ok(codesOf('/login', 'post', 423).includes('account_locked'));
      assert.ok(codesOf('/account/unlink', 'post', 409).includes('last_credential'));
      assert.ok(codesOf('/internal/accounts/{id}', 'get', 404).includes('account_not_found'));
      assert.ok(codesOf('/refresh', 'post', 401).includes('token_reused'));
    });

    it('an error answered through a declared error response keeps its extra fields', async () => {
      const r = await h.app.inject({ method: 'POST', url: '/register', payload: { email: 'weak@example.test', password: 'short' } });
      assert.equal(r.statusCode, 400);
      const body = r.json();
      assert.equal(body.code, 'weak_password');
      assert.equal(body.reason, 'too_short');
      assert.equal(typeof body.message, 'string');
      assert.equal(typeof body.request_id, 'string');
    });
  });
});
