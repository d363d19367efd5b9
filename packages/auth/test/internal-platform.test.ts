// Platform identities for service callers (docs/auth.md, "Internal endpoints and service callers"):
// GET /internal/accounts/{id}/identities and POST /internal/platform-accounts/lookup, which social's platform friends
// use (docs/social.md, "Platform friends"). Players sign in with real store_a (Steam-style) encrypted app tickets.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { assertError, bearer, guest, register, useHarness } from './support/harness.js';
import { buildEncryptedAppTicket, individualSteamId } from './support/steam-ticket.js';

const KEY = 'social-secret-0123456789';
const APP_ID = 480;
const TICKET_KEY = randomBytes(32);
let nextSteamAccount = 700_000 + Math.floor(Math.random() * 100_000);

describe('internal platform identities', () => {
  const h = useHarness({ AUTH_INTERNAL_KEYS: `social:${KEY}`, AUTH_STORE_A_APP_ID: String(APP_ID), AUTH_STORE_A_ENCRYPTION_KEY: TICKET_KEY.toString('hex') });
  const internal = { 'x-internal-key': KEY };

  /** A player signed in with store_a: its steamid64 and account. */
  async function steamPlayer() {
    const steamId = individualSteamId(nextSteamAccount++);
    const ticket = buildEncryptedAppTicket({ appId: APP_ID, steamId, key: TICKET_KEY }).toString('hex');
    const r = await h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'store_a', ticket } });
    assert.equal(r.statusCode, 200, r.body);
    return { steamId, accountId: r.json().account_id as string, token: r.json().access_token as string };
  }
  const lookup = (payload: unknown, headers: Record<string, string> = internal) =>
    h.app.inject({ method: 'POST', url: '/internal/platform-accounts/lookup', headers, payload: payload as object });

  it('GET /internal/accounts/{id}/identities: the platform ids only (no email, no guest)', async () => {
    const p = await steamPlayer();
    const r = await h.app.inject({ url: `/internal/accounts/${p.accountId}/identities`, headers: internal });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().id, p.accountId);
    assert.deepEqual(r.json().identities.map((i: { provider: string; provider_user_id: string }) => [i.provider, i.provider_user_id]), [['store_a', p.steamId]]);
    assert.equal(new Date(r.json().identities[0].linked_at).toISOString(), r.json().identities[0].linked_at);
    // A guest and an email account have none to give (the email is not a platform id).
    const g = await guest(h.app);
    assert.deepEqual((await h.app.inject({ url: `/internal/accounts/${g.account_id}/identities`, headers: internal })).json().identities, []);
    const e = await register(h.app);
    const byEmail = await h.app.inject({ url: `/internal/accounts/${e.account_id}/identities`, headers: internal });
    assert.deepEqual(byEmail.json().identities, []);
    assert.ok(!byEmail.body.includes('@'), 'no email');
  });

  it('identities: unknown, malformed and deleted accounts are 404 account_not_found; no key, a wrong key or a player token → 401', async () => {
    const p = await steamPlayer();
    assert.equal((await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(p.token) })).statusCode, 202);
    for (const id of [p.accountId, '00000000-0000-4000-8000-000000000000', 'nope', 'x'.repeat(200)]) {
      assertError(await h.app.inject({ url: `/internal/accounts/${id}/identities`, headers: internal }), 404, 'account_not_found');
    }
    // Past the router's parameter length: 400 before any handler.
    assert.equal((await h.app.inject({ url: `/internal/accounts/${'x'.repeat(201)}/identities`, headers: internal })).statusCode, 400);
    const other = await steamPlayer();
    const url = `/internal/accounts/${other.accountId}/identities`;
    assertError(await h.app.inject({ url }), 401, 'internal_key_required');
    assertError(await h.app.inject({ url, headers: bearer(other.token) }), 401, 'internal_key_required');
    assertError(await h.app.inject({ url, headers: { 'x-internal-key': `${KEY}x` } }), 401, 'invalid_internal_key');
  });

  it('POST /internal/platform-accounts/lookup: active accounts of the ids, unknown/deleted/banned/other providers left out', async () => {
    const [a, b, deleted, banned] = [await steamPlayer(), await steamPlayer(), await steamPlayer(), await steamPlayer()];
    assert.equal((await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(deleted.token) })).statusCode, 202);
    await h.tdb.db.query(`UPDATE accounts SET status = 'banned' WHERE id = $1`, [banned.accountId]);
    const ids = [a.steamId, b.steamId, a.steamId, deleted.steamId, banned.steamId, individualSteamId(1), 'not-a-steam-id'];
    const r = await lookup({ provider: 'store_a', provider_user_ids: ids });
    assert.equal(r.statusCode, 200, r.body);
    const got = r.json().accounts.map((x: { provider_user_id: string; account_id: string }) => [x.provider_user_id, x.account_id]).sort();
    assert.deepEqual(got, [[a.steamId, a.accountId], [b.steamId, b.accountId]].sort());
    // The same ids under another provider name nobody.
    assert.deepEqual((await lookup({ provider: 'idp_a', provider_user_ids: [a.steamId] })).json().accounts, []);
    // The most ids at once.
    assert.equal((await lookup({ provider: 'store_a', provider_user_ids: Array.from({ length: 500 }, (_, i) => individualSteamId(i + 1)) })).statusCode, 200);
  });

  it('lookup: bad input → 400; no key, a wrong key or a player token → 401; oversized → 413', async () => {
    const p = await steamPlayer();
    for (const bad of [
      {},
      { provider: 'store_a' },
      { provider_user_ids: ['1'] },
      { provider: 'steam', provider_user_ids: ['1'] },
      { provider: 'email', provider_user_ids: ['a@b.test'] },
      { provider: 'store_a', provider_user_ids: [] },
      { provider: 'store_a', provider_user_ids: [''] },
      { provider: 'store_a', provider_user_ids: [1] },
      { provider: 'store_a', provider_user_ids: 'x' },
      { provider: 'store_a', provider_user_ids: ['x'.repeat(201)] },
      { provider: 'store_a', provider_user_ids: Array.from({ length: 501 }, (_, i) => String(i)) },
      { provider: 'store_a', provider_user_ids: ['1'], extra: true },
      [],
    ]) {
      assertError(await lookup(bad), 400, 'validation_failed');
    }
    assertError(await lookup({ provider: 'store_a', provider_user_ids: ['a\u0000'] }), 400, 'invalid_character');
    const raw = (payload: string, headers: Record<string, string> = internal) =>
      h.app.inject({ method: 'POST', url: '/internal/platform-accounts/lookup', headers: { 'content-type': 'application/json', ...headers }, payload });
    assertError(await raw('{"provider":'), 400, 'malformed_json');
    assert.equal((await raw(JSON.stringify({ provider: 'store_a', provider_user_ids: ['x'.repeat(70_000)] }))).statusCode, 413);
    const ok = { provider: 'store_a', provider_user_ids: [p.steamId] };
    assertError(await lookup(ok, {}), 401, 'internal_key_required');
    assertError(await lookup(ok, bearer(p.token)), 401, 'internal_key_required');
    assertError(await lookup(ok, { 'x-internal-key': 'wrong-key-wrong-key' }), 401, 'invalid_internal_key');
  });
});
