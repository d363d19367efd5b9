// POST /admin/staff-roles at the registry alone (the whole path through auth: packages/e2e/test/staff-roles.test.ts):
// auth unreachable or not configured is 503 auth_unavailable with Retry-After (kit: every 503), never 500; a token that is not a
// developer's (an auth player token, garbage) is 401; encoded spellings reach the same route.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, bearer, loginAdmin, registerDeveloper, useHarness } from './helpers.js';

const body = { Account: 'someone@example.test', Role: 'moderator', Granted: true };

describe('staff roles: the registry side', () => {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const unreachable = useHarness({ authUrl: 'https://127.0.0.1:1', authInternalKey: 'registry-key-0123456789' });
  const unconfigured = useHarness({ authInternalKey: undefined });

  it('auth unreachable: 503 auth_unavailable with Retry-After, nothing half-done', async () => {
    const h = unreachable;
    const admin = await loginAdmin(h.app);
    const r = await h.app.inject({ method: 'POST', url: '/admin/staff-roles', headers: bearer(admin.token), payload: body });
    assertError(r, 503, 'auth_unavailable');
    assert.ok(Number(r.headers['retry-after']) > 0, JSON.stringify(r.headers));
  });

  it('no internal key for auth configured: 503 auth_unavailable with Retry-After', async () => {
    const h = unconfigured;
    const admin = await loginAdmin(h.app);
    const r = await h.app.inject({ method: 'POST', url: '/admin/staff-roles', headers: bearer(admin.token), payload: body });
    assertError(r, 503, 'auth_unavailable');
    assert.equal(r.headers['retry-after'], '1');
  });

  it('a token that is not a developer’s is 401, a developer’s 403; an encoded path is the same route', async () => {
    const h = unconfigured;
    // An auth access token's shape (PASETO v4.public), not signed by the registry.
    const playerToken = `v4.public.${Buffer.from('{"sub":"00000000-0000-4000-8000-000000000000","roles":["player"]}').toString('base64url')}`;
    for (const token of [playerToken, 'garbage']) {
      assertError(await h.app.inject({ method: 'POST', url: '/admin/staff-roles', headers: bearer(token), payload: body }), 401, 'unauthorized');
    }
    const dev = await registerDeveloper(h.app);
    assertError(await h.app.inject({ method: 'POST', url: '/admin/staff-roles', headers: bearer(dev.token), payload: body }), 403, 'forbidden');
    assertError(await h.app.inject({ method: 'POST', url: '/admin/%73taff-roles', headers: bearer(dev.token), payload: body }), 403, 'forbidden');
  });
});
