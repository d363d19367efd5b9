// A failing credential insert is logged without its parameters or row: no password/secret hash, no account id.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '@platform/kit/testing';
import { email, GOOD_PASSWORD, useHarness } from './support/harness.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

describe('database failures in the log', () => {
  const logs = captureLogs();
  const h = useHarness({ LOG_LEVEL: 'info' }, { logStream: logs.stream });

  it('failed credential inserts (password sign-up, guest sign-up) are logged with the SQLSTATE and constraint only', async () => {
    // Every new credential now fails a CHECK: PostgreSQL reports the whole row ("Failing row contains (…)").
    await h.tdb.db.exec('ALTER TABLE credentials ADD CONSTRAINT refuse_all_credentials CHECK (false) NOT VALID');
    const register = await h.app.inject({ method: 'POST', url: '/register', payload: { email: email(), password: GOOD_PASSWORD } });
    assert.equal(register.statusCode, 500, register.body);
    const guests = await Promise.all(
      ['device-one-0001', 'device-two-0002'].map((fp) => h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fp } })),
    );
    assert.deepEqual(guests.map((r) => r.statusCode), [500, 500]);

    const failures = logs.lines().filter((l) => l.err);
    assert.equal(failures.length, 3);
    assert.ok(failures.every((l) => l.err.code === '23514' && l.err.constraint === 'refuse_all_credentials'), JSON.stringify(failures[0]));
    const text = logs.text();
    assert.doesNotMatch(text, /\$argon2id\$/, 'no password or guest secret hash');
    assert.doesNotMatch(text, /\b[0-9a-f]{64}\b/, 'no refresh token or fingerprint hash');
    assert.ok(!text.includes(GOOD_PASSWORD) && !text.includes('Failing row'));
    const requestIds = new Set(logs.lines().map((l) => l.requestId));
    assert.deepEqual((text.match(UUID) ?? []).filter((id) => !requestIds.has(id)), [], 'no account, identity or session id');
  });
});
