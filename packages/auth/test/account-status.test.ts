// Issue 25, item 17: a lock and a ban are kept apart (ending a ban of a locked account leaves it locked), and a role
// taken away reaches every verifier at once (a `roles_changed` revocation: the tokens issued before are refused, the
// session lives on and a refresh carries the new roles). Across social: packages/e2e/test/revocation-support.ts.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { REVOCATION_CHANNEL } from '../src/services/revocation.js';
import { bearer, harness, register, type Harness, withRoles as withRolesOf } from './support/harness.js';

describe('account status and roles', () => {
  let h: Harness;
  let admin: string;
  const heard: { reason: string; scope: string; account_id: string; sids: string[] }[] = [];

  const withRoles = (roles: string[]) => withRolesOf(h, roles);

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const status = (id: string, s: string) => call('POST', `/admin/accounts/${id}/status`, admin, { status: s });
  const login = (u: { email: string; password: string }) => h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
  const statusOf = async (id: string) => (await call('GET', `/admin/accounts/${id}`, admin)).json().account.status;

  before(async () => {
    h = await harness({ AUTH_RATE_LOGIN_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000', AUTH_SANCTION_SWEEP_SECONDS: '3600' });
    await h.tstate.state.subscribe(REVOCATION_CHANNEL, (m) => heard.push(JSON.parse(m)));
    admin = (await withRoles(['player', 'admin'])).access_token;
  });
  after(() => h.close());

  it('locked, then banned, then the ban lifted: still locked (403 account_disabled), until an operator reactivates it', async () => {
    const u = await register(h.app);
    assert.equal((await status(u.account_id, 'locked')).statusCode, 200);
    const ban = await call('POST', `/admin/accounts/${u.account_id}/sanctions`, admin, { type: 'ban', reason: 'Cheating' });
    assert.equal(ban.statusCode, 201, ban.body);
    assert.equal(await statusOf(u.account_id), 'banned');
    assert.equal((await login(u)).json().code, 'account_banned');
    assert.equal((await call('POST', `/admin/sanctions/${ban.json().id}/lift`, admin)).statusCode, 200);
    assert.equal(await statusOf(u.account_id), 'locked');
    assert.deepEqual([(await login(u)).statusCode, (await login(u)).json().code], [403, 'account_disabled']);
    assert.equal((await status(u.account_id, 'active')).statusCode, 200);
    assert.equal((await login(u)).statusCode, 200);
  });

  it('a lock set during a ban outlives the ban’s expiry (the sweeper); an unlocked account banned for a while is active after', async () => {
    const [locked, plain] = [await register(h.app), await register(h.app)];
    for (const u of [locked, plain]) {
      const r = await call('POST', `/admin/accounts/${u.account_id}/sanctions`, admin, { type: 'ban', reason: 'Toxic', duration_seconds: 60 });
      assert.equal(r.statusCode, 201, r.body);
    }
    assert.equal((await status(locked.account_id, 'locked')).statusCode, 200);
    assert.equal(await statusOf(locked.account_id), 'banned', 'the ban shows while it lasts');
    await h.tdb.db.query(`UPDATE sanctions SET expires_at = now() - interval '1 second' WHERE account_id = ANY($1::uuid[])`, [[locked.account_id, plain.account_id]]);
    assert.ok((await h.app.sweepSanctions()) >= 2);
    assert.deepEqual([await statusOf(locked.account_id), await statusOf(plain.account_id)], ['locked', 'active']);
    assert.equal((await login(locked)).json().code, 'account_disabled');
    assert.equal((await login(plain)).statusCode, 200);
  });

  it('a role taken away: the tokens issued before are refused at once (no session ends); a refresh carries the new roles', async () => {
    const mod = await withRoles(['player', 'moderator']);
    const search = (token: string) => call('GET', `/admin/accounts?q=${encodeURIComponent(mod.email)}`, token);
    assert.equal((await search(mod.access_token)).statusCode, 200);
    const r = await call('PUT', `/admin/accounts/${mod.account_id}/roles`, admin, { roles: ['player'] });
    assert.equal(r.statusCode, 200, r.body);

    const old = await search(mod.access_token);
    assert.deepEqual([old.statusCode, old.json().code], [401, 'invalid_token']);
    const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: mod.refresh_token } });
    assert.equal(refreshed.statusCode, 200, 'the session lives on');
    const fresh = refreshed.json().access_token as string;
    assert.deepEqual([(await search(fresh)).statusCode, (await search(fresh)).json().code], [403, 'moderator_required']);
    assert.equal((await call('GET', '/account', fresh)).statusCode, 200);
    // Announced like a revocation (bus and outbox), account scope, no session listed.
    const notice = heard.find((n) => n.account_id === mod.account_id);
    assert.deepEqual([notice?.reason, notice?.scope, notice?.sids], ['roles_changed', 'account', []]);
    const outbox = await h.tdb.db.query(`SELECT 1 FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1 AND payload->>'reason' = 'roles_changed'`, [mod.account_id]);
    assert.equal(outbox.rowCount, 1);
  });

  it('a role granted refuses nothing: the old token goes on, the next one carries the new role', async () => {
    const u = await withRoles(['player']);
    assert.equal((await call('PUT', `/admin/accounts/${u.account_id}/roles`, admin, { roles: ['player', 'moderator'] })).statusCode, 200);
    assert.equal((await call('GET', '/account', u.access_token)).statusCode, 200);
    assert.equal(heard.filter((n) => n.account_id === u.account_id).length, 0);
    const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: u.refresh_token } });
    assert.equal((await call('GET', `/admin/accounts?q=${encodeURIComponent(u.email)}`, refreshed.json().access_token)).statusCode, 200);
  });
});
