// The registry's error-code list: the doc's table shows every code at its status, the OpenAPI document names
// the listed codes of each error response, and the codes the routes answer with are listed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { errorCodesMissingFromDoc, lintOpenApi } from '@platform/kit/testing';
import { registryErrors } from '../src/errors.js';
import { useHarness } from './helpers.js';

describe('registry OpenAPI document and error codes', () => {
  const h = useHarness();

  it('docs/registry.md lists every code at its status', () => {
    const doc = readFileSync(new URL('../../../docs/registry.md', import.meta.url), 'utf8');
    assert.deepEqual(errorCodesMissingFromDoc(doc, registryErrors.entries), []);
  });

  it('the docs page is never framed, sends no referrer and is nosniff; a malformed path answers in the house format', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    const bad = await h.app.inject({ method: 'GET', url: '/games/%C0%AE%C0%AE' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(Object.keys(bad.json()).sort(), ['Code', 'Message', 'RequestId']);
    assert.equal(bad.json().Code, 'bad_request');
  });

  it('the OpenAPI document passes Redocly’s recommended rules with no error', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const { errors } = await lintOpenApi(doc);
    assert.deepEqual(errors, []);
    for (const [path, ops] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) assert.ok(op.operationId, `${method} ${path} has no operationId`);
    }
  });

  it('the OpenAPI document names the listed codes of each error response', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const games = doc.paths['/games/{gameId}'].get.responses;
    const notFound: string[] = games['404'].content['application/json'].schema.properties.Code.enum;
    assert.ok(notFound.includes('game_not_found') && notFound.every((c) => registryErrors.status(c as never) === 404), notFound.join());
    const unauthorized: string[] = games['401'].content['application/json'].schema.properties.Code.enum;
    assert.ok(unauthorized.includes('unauthorized'));
    for (const [path, ops] of Object.entries<Record<string, { responses: Record<string, any> }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, r] of Object.entries(op.responses ?? {})) {
          if (Number(status) < 400 || path === '/readyz') continue; // readiness answers its probe body, not an error
          const code = r.content?.['application/json']?.schema?.properties?.Code;
          const codes: string[] | undefined = code?.enum ?? (code?.const ? [code.const] : undefined);
          assert.ok(codes?.length, `${method} ${path} ${status} names no codes`);
          for (const c of codes) assert.equal(registryErrors.status(c as never), Number(status), `${method} ${path}: ${c}`);
        }
      }
    }
  });
});
