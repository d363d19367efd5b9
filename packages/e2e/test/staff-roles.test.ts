// The super-admin makes platform staff while everything runs (issue 25, item 14; docs/registry.md, "Staff roles"):
// the registry's POST /admin/staff-roles, through auth's internal route, across a real registry and auth.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startPlatform, type Platform } from '../src/index.js';

const PASSWORD = 'correct horse battery staple 42';
const email = () => `staff.${randomBytes(4).toString('hex')}@e2e.test`;

describe('staff roles made by the super-admin', () => {
  let p: Platform;
  let superAdmin: string;
  let developer: string;
  before(async () => {
    p = await startPlatform();
    superAdmin = (await p.registry.call('POST', '/developers/login', { body: { Email: ADMIN_EMAIL, Password: ADMIN_PASSWORD } })).body.Token;
    developer = (await p.registry.call('POST', '/developers/register', { body: { Email: email(), Password: PASSWORD, DisplayName: 'Dev' } })).body.Token;
  });
  after(() => p.close());

  const change = (token: string, body: unknown) => p.registry.call('POST', '/admin/staff-roles', { token, body });

  it('grants moderator by email (any case) at once: the next sign-in carries it and staff routes answer; taking it away works too', async () => {
    const e = email();
    const reg = await p.auth.call('POST', '/register', { body: { email: e, password: PASSWORD } });
    assert.ok(reg.status === 201 || reg.status === 202, JSON.stringify(reg.body));
    const granted = await change(superAdmin, { Account: e.toUpperCase(), Role: 'moderator', Granted: true });
    assert.equal(granted.status, 200, JSON.stringify(granted.body));
    assert.ok(granted.body.Roles.includes('moderator'));
    const login = await p.auth.call('POST', '/login', { body: { email: e, password: PASSWORD } });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const search = await p.auth.call('GET', `/admin/accounts?q=${granted.body.AccountId}`, { token: login.body.access_token });
    assert.equal(search.status, 200, JSON.stringify(search.body));
    // By account id, taken away.
    const removed = await change(superAdmin, { Account: granted.body.AccountId, Role: 'moderator', Granted: false });
    assert.equal(removed.status, 200);
    assert.ok(!removed.body.Roles.includes('moderator'));
    // The player's export names neither the registry nor the super-admin.
    const again = await p.auth.call('POST', '/login', { body: { email: e, password: PASSWORD } });
    const exp = await p.auth.call('POST', '/account/export', { token: again.body.access_token });
    assert.equal(exp.status, 200, JSON.stringify(exp.body));
    const changes = exp.body.audit_log.filter((x: { event: string }) => x.event === 'role_change');
    assert.equal(changes.length, 2);
    const text = JSON.stringify(exp.body);
    assert.ok(!text.includes('developer:') && !text.includes('service:registry'), text);
  });

  it('only the super-admin: a developer 403, no token 401; an unknown account 404 user_not_found; bad bodies 400', async () => {
    const e = email();
    await p.auth.call('POST', '/register', { body: { email: e, password: PASSWORD } });
    assert.equal((await change(developer, { Account: e, Role: 'admin', Granted: true })).status, 403);
    assert.equal((await p.registry.call('POST', '/admin/staff-roles', { body: { Account: e, Role: 'admin', Granted: true } })).status, 401);
    const unknown = await change(superAdmin, { Account: 'nobody-here@e2e.test', Role: 'admin', Granted: true });
    assert.deepEqual([unknown.status, unknown.body.Code], [404, 'user_not_found']);
    for (const body of [{ Account: e, Role: 'server', Granted: true }, { Account: e, Role: 'admin' }, { Account: e, Role: 'admin', Granted: true, Extra: 1 }, { Account: '', Role: 'admin', Granted: true }]) {
      const r = await change(superAdmin, body);
      assert.equal(r.status, 400, JSON.stringify(body));
    }
  });
});
