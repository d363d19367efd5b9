// A failing statement is logged without its parameters or row: no password hash, API key, secret hash or account id.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '@platform/kit/testing';
import { bearer, useHarness, registerDeveloper } from './helpers.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

describe('database failures in the log', () => {
  const logs = captureLogs();
  const h = useHarness({ logLevel: 'info' }, { logStream: logs.stream });

  it('a failed developer insert and a failed game insert are logged with the SQLSTATE and constraint only', async () => {
    const dev = await registerDeveloper(h.app);
    // Every new row now fails a CHECK: PostgreSQL reports the whole row ("Failing row contains (…)").
    await h.db.exec('ALTER TABLE games ADD CONSTRAINT refuse_all_games CHECK (false) NOT VALID');
    await h.db.exec('ALTER TABLE developers ADD CONSTRAINT refuse_all_developers CHECK (false) NOT VALID');
    const game = await h.app.inject({ method: 'POST', url: '/games', headers: bearer(dev.token), payload: { DisplayName: 'Doomed' } });
    assert.equal(game.statusCode, 500);
    const password = 'a password nobody logs';
    const second = await h.app.inject({ method: 'POST', url: '/developers/register', payload: { Email: 'second@example.test', Password: password, DisplayName: 'Dev' } });
    assert.equal(second.statusCode, 500);

    const lines = logs.lines().filter((l) => l.err);
    assert.deepEqual(
      lines.map((l) => [l.err.code, l.err.constraint]),
      [
        ['23514', 'refuse_all_games'],
        ['23514', 'refuse_all_developers'],
      ],
    );
    const text = logs.text();
    assert.doesNotMatch(text, /\$argon2id\$/, 'no password hash');
    assert.doesNotMatch(text, /gk_[A-Za-z0-9_-]{20}/, 'no API key');
    assert.doesNotMatch(text, /\b[0-9a-f]{64}\b/, 'no secret hash');
    assert.ok(!text.includes(password) && !text.includes('Failing row'));
    const requestIds = new Set(logs.lines().map((l) => l.requestId));
    assert.deepEqual((text.match(UUID) ?? []).filter((id) => !requestIds.has(id)), [], 'no account id');
    assert.ok(!text.includes(dev.id));
  });
});
