// Social's exact API contract: the OpenAPI document passes Redocly's recommended rules, every operation has an
// operationId and its security, every error response names only listed codes of its status, and docs/social.md
// lists every code at its status. (That the routes answer as documented is checked on every response of every
// test: scripts/test.mjs turns the kit's response contract check on.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { errorCodesMissingFromDoc, lintOpenApi } from '@platform/kit/testing';
import { socialErrors } from '../src/services/errors.js';
import { startHarness, type Harness } from './support.js';

type Operation = { operationId?: string; description?: string; security?: Record<string, string[]>[]; parameters?: { in: string; name: string }[]; responses: Record<string, any> };

describe('social OpenAPI document and error codes', () => {
  let h: Harness;
  let doc: { paths: Record<string, Record<string, Operation>>; servers?: unknown[]; components: { securitySchemes: Record<string, unknown> } };
  const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
  const codesOf = (r: any): string[] | undefined => {
    const code = r.content?.['application/json']?.schema?.properties?.code;
    return code?.enum ?? (code?.const ? [code.const] : undefined);
  };
  before(async () => {
    h = await startHarness();
    doc = (await h.req(null, 'GET', '/openapi.json')).body;
  });
  after(() => h.close());

  it('docs/social.md lists every code at its status', () => {
    const text = readFileSync(new URL('../../../docs/social.md', import.meta.url), 'utf8');
    assert.deepEqual(errorCodesMissingFromDoc(text, socialErrors.entries), []);
  });

  it('passes Redocly’s recommended rules with no error', async () => {
    const { errors } = await lintOpenApi(doc);
    assert.deepEqual(errors, []);
    assert.deepEqual(doc.servers, [{ url: 'https://localhost:9443', description: 'npm start (embedded, self-signed TLS)' }]);
  });

  it('every operation has an operationId and its security', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      assert.ok(op.operationId, `${method} ${path} has no operationId`);
      assert.ok(!ids.has(op.operationId), `${op.operationId} twice`);
      ids.add(op.operationId);
      assert.ok(Array.isArray(op.security), `${method} ${path} declares no security`);
      const expected = path.startsWith('/v1/internal/')
        ? [{ serverToken: [] }]
        : path === '/v1/matches'
          ? [{ gameKey: [], gameSecret: [] }, { serverToken: [] }]
        : path === '/v1/ws'
          ? [{ bearer: [] }, { accessToken: [] }, { apiKey: [], userId: [] }]
          : path.startsWith('/v1/')
            ? [{ bearer: [] }, { apiKey: [], userId: [] }]
            : [];
      assert.deepEqual(op.security, expected, `${method} ${path}`);
      for (const s of op.security!.flatMap((req) => Object.keys(req))) assert.ok(doc.components.securitySchemes[s], `${method} ${path}: scheme ${s}`);
    }
  });

  it('every caller route documents the optional tenancy and client-key headers', () => {
    for (const { path, method, op } of operations()) {
      if (!path.startsWith('/v1/') || path.startsWith('/v1/internal/')) continue;
      // A game server's route: the key and secret are its security (the document names them there).
      if (path === '/v1/matches') continue;
      const headers = (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
      for (const name of ['X-Platform-Game-Key', 'X-Platform-Game-Secret', 'X-Platform-Client-Key']) assert.ok(headers.includes(name), `${method} ${path}: ${name}`);
    }
  });

  it('every error response names only listed codes of its status', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        if (Number(status) < 400 || ['/readyz', '/ready'].includes(path) && status === '503') continue; // readiness answers its probe body
        const codes = codesOf(r);
        assert.ok(codes?.length, `${method} ${path} ${status} names no codes`);
        for (const c of codes) assert.equal(socialErrors.status(c as never), Number(status), `${method} ${path}: ${c}`);
      }
    }
  });

  it('documents what the routes answer: success statuses, and the codes of a few routes', () => {
    const success = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).filter((s) => Number(s) < 400);
    assert.deepEqual(success('/v1/blocks/{publicId}', 'post'), ['204']);
    assert.deepEqual(success('/v1/mutes/{publicId}', 'delete'), ['204']);
    assert.deepEqual(success('/v1/reports', 'post'), ['202']);
    assert.deepEqual(success('/v1/parties', 'post'), ['201']);
    assert.deepEqual(success('/v1/notes/{publicId}', 'put'), ['200', '204']);
    // The WebSocket channel: 101 when it opens, never a 200.
    assert.deepEqual(success('/v1/ws', 'get'), ['101']);
    const ws = doc.paths['/v1/ws'].get.responses;
    assert.ok(codesOf(ws['400'])!.includes('upgrade_required'));
    // A refused handshake: the HTTP status to a client without Origin, in band to a browser (the table below).
    assert.ok(codesOf(ws['401'])!.includes('unauthorized') && codesOf(ws['401'])!.includes('invalid_client_key'));
    assert.ok(codesOf(ws['400'])!.includes('incomplete_game_credentials'));
    assert.deepEqual(codesOf(ws['429']), ['too_many_sockets']);
    assert.ok(codesOf(ws['503'])!.includes('shutting_down'));
    assert.equal(ws['403'], undefined, 'no refusal answers 403');
    const described = doc.paths['/v1/ws'].get.description ?? '';
    for (const [close, code] of [['4401', 'unauthorized'], ['4401', 'invalid_client_key'], ['4429', 'too_many_sockets'], ['4503', 'shutting_down']]) {
      assert.ok(described.includes(`| ${close} | \`${code}\` |`), `${code} (${close}) listed`);
    }
    const join = doc.paths['/v1/parties/{id}/join'].post.responses;
    assert.deepEqual(codesOf(join['403']), ['join_denied']);
    assert.deepEqual(codesOf(join['404']), ['party_not_found', 'invite_not_found']);
    assert.deepEqual(codesOf(join['410']), ['invite_expired']);
    // The notification inbox and the moderation notice route.
    assert.deepEqual(success('/v1/notifications/{notificationId}', 'delete'), ['204']);
    assert.deepEqual(success('/v1/internal/notifications', 'post'), ['200', '201']);
    assert.deepEqual(codesOf(doc.paths['/v1/notifications'].get.responses['400']), ['bad_request', 'invalid_character', 'too_deep', 'incomplete_game_credentials', 'ambiguous_game_credentials', 'validation_failed', 'invalid_cursor']);
    assert.deepEqual(codesOf(doc.paths['/v1/notifications/{notificationId}/read'].post.responses['404']), ['notification_not_found']);
    assert.deepEqual(doc.paths['/v1/internal/notifications'].post.security, [{ serverToken: [] }]);
    const internal = doc.paths['/v1/internal/auth-events'].post.responses;
    assert.deepEqual(codesOf(internal['401']), ['unauthorized']);
    assert.deepEqual(codesOf(internal['403']), ['forbidden']);
  });
});
