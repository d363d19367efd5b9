// Logs through a running auth node (issue 25, item 12): what a URL or a log object carries is redacted by the class of
// the field (credentials, one-time codes, addresses, search text), whatever its spelling; the kit's own cases are in
// packages/kit/test/http.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '@platform/kit/testing';
import { bearer, useHarness, register } from './support/harness.js';

describe('log redaction (auth)', () => {
  const logs = captureLogs();
  const h = useHarness({ LOG_LEVEL: 'info' }, { logStream: logs.stream });

  it('the device page link with its user_code, a staff search by email and a mistaken secret in the query are never logged', async () => {
    const staff = await register(h.app);
    await h.tdb.db.query(`UPDATE accounts SET roles = '{player,moderator}' WHERE id = $1`, [staff.account_id]);
    const token = (await h.app.inject({ method: 'POST', url: '/login', payload: { email: staff.email, password: staff.password } })).json().access_token;
    const victim = await register(h.app);
    const page = await h.app.inject({ url: '/device?user_code=WDJB-MJHT' });
    assert.equal(page.statusCode, 200);
    const search = await h.app.inject({ url: `/admin/accounts?q=${encodeURIComponent(victim.email)}`, headers: bearer(token) });
    assert.equal(search.statusCode, 200, search.body);
    assert.equal(search.json().accounts.length, 1);
    await h.app.inject({ url: `/admin/accounts?Q=${victim.email}&client_secret=GAME-SECRET-XYZ`, headers: bearer(token) });
    const text = logs.text();
    assert.ok(text.includes('/device?user_code=[REDACTED]'), 'the request line is logged, its code redacted');
    for (const leaked of ['WDJB-MJHT', victim.email, encodeURIComponent(victim.email), 'GAME-SECRET-XYZ', token.slice(10, 60)]) {
      assert.ok(!text.includes(leaked), `${leaked} reached the logs`);
    }
  });
});
