// Names shown to others (docs/decisions/0007-display-names.md): every name-class field of every body is cleaned before its schema runs,
// whatever its spelling or depth; other text (a chat message, a description) is left as sent.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createService, displayText, type App } from '../src/index.js';
import { assertError } from '../src/testing.js';

describe('display text', () => {
  let app: App;
  before(async () => {
    app = await createService({ name: 'demo', fieldCase: 'camel', logLevel: 'silent' });
    app.post(
      '/echo',
      { config: { access: 'public' }, schema: { body: Type.Object({ displayName: Type.Optional(Type.String({ minLength: 1 })), Name: Type.Optional(Type.String()), party: Type.Optional(Type.Object({ party_name: Type.String() })), text: Type.Optional(Type.String()) }, { additionalProperties: false }) } },
      async (req) => req.body,
    );
  });
  after(() => app.close());

  it('bidi overrides and isolates, zero-width and line-breaking characters go; NFC; white space collapsed; emoji joiners kept', () => {
    assert.equal(displayText(' Official\u202E Store\u2028(verified)\u200B\t\r\n'), 'Official Store (verified)');
    assert.equal(displayText('Cafe\u0301'), 'Café');
    assert.equal(displayText('\u2066\u2069\uFEFF'), '');
    assert.equal(displayText('👩\u200D💻 dev'), '👩\u200D💻 dev');
  });

  it('name fields of a body are cleaned at any depth and spelling; other text is not; a name left empty fails the schema', async () => {
    const r = await app.inject({ method: 'POST', url: '/echo', payload: { displayName: 'Ada\u202E\u2028L', Name: 'x\u2029y', party: { party_name: '\u2067Raid\u2069' }, text: 'line one\nline two' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { displayName: 'Ada L', Name: 'x y', party: { party_name: 'Raid' }, text: 'line one\nline two' });
    assertError(await app.inject({ method: 'POST', url: '/echo', payload: { displayName: '\u202E\u200B' } }), 400, 'validation_failed');
  });
});
