// POST /internal/staff-roles (issue 25, item 14): the registry alone may call it (its internal key), for its
// super-admin; any other internal caller is refused; the change is audited on the super-admin's behalf.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, register } from './support/harness.js';

const REGISTRY_KEY = 'registry-key-0123456789abcdef0123';
const OTHER_KEY = 'matchmaking-key-0123456789abcdef01';

describe('internal staff roles', () => {
  const h = useHarness({ AUTH_INTERNAL_KEYS: `registry:${REGISTRY_KEY},matchmaking:${OTHER_KEY}` });
  const post = (key: string | undefined, payload: unknown) =>
    h.app.inject({ method: 'POST', url: '/internal/staff-roles', headers: key ? { 'x-internal-key': key } : {}, payload: payload as object });

  it('the registry grants and takes away; audited with its actor and on whose behalf', async () => {
    const u = await register(h.app);
    const r = await post(REGISTRY_KEY, { account: u.email, role: 'admin', granted: true, on_behalf_of: 'developer:42' });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { id: u.account_id, roles: ['player', 'admin'] });
    const audit = await h.tdb.db.query(`SELECT actor, detail FROM audit_log WHERE account_id = $1 AND event = 'role_change'`, [u.account_id]);
    assert.equal(audit.rows[0].actor, 'service:registry');
    assert.equal(audit.rows[0].detail.on_behalf_of, 'developer:42');
    const off = await post(REGISTRY_KEY, { account: u.account_id, role: 'admin', granted: false });
    assert.deepEqual(off.json().roles, ['player']);
  });

  it('another internal caller 403 forbidden, no key 401, a wrong key 401; unknown account 404; bad bodies 400', async () => {
    const u = await register(h.app);
    const other = await post(OTHER_KEY, { account: u.email, role: 'admin', granted: true });
    assert.deepEqual([other.statusCode, other.json().code], [403, 'forbidden']);
    assert.deepEqual((await h.tdb.db.query(`SELECT roles FROM accounts WHERE id = $1`, [u.account_id])).rows[0].roles, ['player']);
    assert.equal((await post(undefined, { account: u.email, role: 'admin', granted: true })).json().code, 'internal_key_required');
    assert.equal((await post('x'.repeat(34), { account: u.email, role: 'admin', granted: true })).json().code, 'invalid_internal_key');
    const unknown = await post(REGISTRY_KEY, { account: 'nobody@example.test', role: 'admin', granted: true });
    assert.deepEqual([unknown.statusCode, unknown.json().code], [404, 'account_not_found']);
    for (const body of [{ account: u.email, role: 'server', granted: true }, { account: u.email, role: 'admin' }, { account: u.email, role: 'admin', granted: 'yes' }, { account: u.email, role: 'admin', granted: true, extra: 1 }]) {
      assert.equal((await post(REGISTRY_KEY, body)).statusCode, 400, JSON.stringify(body));
    }
  });
});
