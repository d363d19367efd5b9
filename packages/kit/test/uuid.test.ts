// The kit's one UUID shape: the pattern the services test ids with, and the Uuid() schema routes declare.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createService, isUuid, Uuid, UUID_PATTERN, type App } from '../src/index.js';
import { captureLogs } from '../src/testing.js';

const lower = '0b7c5d2e-4f1a-4c3b-9d8e-7f6a5b4c3d2e';

describe('UUID_PATTERN / isUuid', () => {
  it('accepts a UUID in either case', () => {
    assert.ok(isUuid(lower));
    assert.ok(isUuid(lower.toUpperCase()));
    assert.ok(UUID_PATTERN.test('00000000-0000-0000-0000-000000000000'));
  });

  it('refuses anything around or inside the 8-4-4-4-12 hex shape', () => {
    for (const bad of ['', lower.slice(1), `${lower}0`, `urn:uuid:${lower}`, `{${lower}}`, `${lower}\n`, ` ${lower}`, lower.replace(/-/g, ''), lower.replace('0', 'g')]) {
      assert.equal(isUuid(bad), false, JSON.stringify(bad));
    }
  });
});

describe('Uuid() schema', () => {
  let app: App;
  before(async () => {
    app = await createService({ name: 'uuid-demo', fieldCase: 'camel', logStream: captureLogs().stream });
    app.get('/things/:id', { schema: { params: Type.Object({ id: Uuid({ description: 'Thing id' }) }) } }, async (req) => ({ id: req.params.id }));
    app.post('/things', { schema: { body: Type.Object({ id: Uuid() }, { additionalProperties: false }) } }, async (req) => req.body);
    await app.ready();
  });
  after(() => app.close());

  it('passes a UUID in a path parameter and a body', async () => {
    assert.deepEqual((await app.inject({ method: 'GET', url: `/things/${lower.toUpperCase()}` })).json(), { id: lower.toUpperCase() });
    const r = await app.inject({ method: 'POST', url: '/things', payload: { id: lower } });
    assert.equal(r.statusCode, 200);
  });

  it('refuses what UUID_PATTERN refuses with 400 validation_failed, the urn: form included', async () => {
    for (const url of [`/things/urn:uuid:${lower}`, '/things/not-a-uuid', `/things/${lower}0`]) {
      const r = await app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 400, url);
      assert.equal(r.json().code, 'validation_failed');
    }
    const r = await app.inject({ method: 'POST', url: '/things', payload: { id: `urn:uuid:${lower}` } });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().field, 'id');
  });

  it('documents the parameter as format uuid in OpenAPI', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const param = doc.paths['/things/{id}'].get.parameters[0];
    assert.equal(param.schema.format, 'uuid');
    assert.equal(param.description ?? param.schema.description, 'Thing id');
  });
});
