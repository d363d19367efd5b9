// The player's own sessions (list, end one, end all others: each through the revoker), Cache-Control: no-store on
// every response carrying a token, and the key set's ETag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { useHarness, guest, register, bearer, fingerprint, GOOD_PASSWORD, type Harness, assertError } from './support/harness.js';
import { buildEncryptedAppTicket, individualSteamId } from './support/steam-ticket.js';
import { DENY_SID } from '../src/services/tokens.js';
import type { AuthApp } from '../src/app.js';

const login = async (app: AuthApp, email: string, remoteAddress: string, platform = 'ios') => {
  const r = await app.inject({ method: 'POST', url: '/login', remoteAddress, payload: { email, password: GOOD_PASSWORD, device: { fingerprint: fingerprint(), platform } } });
  assert.equal(r.statusCode, 200, r.body);
  return r.json() as { access_token: string; refresh_token: string; account_id: string };
};
const list = (app: AuthApp, token: string) => app.inject({ method: 'GET', url: '/account/sessions', headers: bearer(token) });

/** The revocation notices written to the outbox for the account, oldest first. */
async function notices(h: Harness, accountId: string) {
  const r = await h.tdb.db.query(`SELECT payload FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1 ORDER BY created_at`, [accountId]);
  return r.rows.map((x) => x.payload as { reason: string; scope: string; sids: string[] });
}

describe("the player's own sessions", () => {
  const h = useHarness({ AUTH_RATE_LOGIN_PER_IP_EMAIL: '1000', AUTH_RATE_LOGIN_PER_IP: '1000' });

  it('lists live sessions: device, platform, method, created, last used, IP prefix; the current one marked', async () => {
    const p = await register(h.app);
    const phone = await login(h.app, p.email, '203.0.113.77', 'ios');
    const pc = await login(h.app, p.email, '2001:db8:1:2:3:4:5:6', 'win');
    // A refresh makes the PC session the most recently used.
    const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: pc.refresh_token } });
    assert.equal(refreshed.statusCode, 200);
    const r = await list(h.app, phone.access_token);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.headers['cache-control'], 'no-store');
    const { sessions } = r.json();
    assert.equal(sessions.length, 3); // register, phone, pc
    assert.deepEqual(
      sessions.map((s: { device: { platform: string | null }; ip_prefix: string; current: boolean }) => [s.device.platform, s.ip_prefix, s.current]),
      [
        ['win', '2001:db8:1:2::/64', false],
        ['ios', '203.0.113.0/24', true],
        [null, '127.0.0.0/24', false],
      ],
    );
    const [first] = sessions;
    assert.deepEqual(Object.keys(first).sort(), ['auth_method', 'client_id', 'created_at', 'current', 'device', 'expires_at', 'id', 'ip_prefix', 'last_used_at', 'region'].sort());
    assert.equal(first.auth_method, 'email');
    assert.ok(Date.parse(first.last_used_at) >= Date.parse(first.created_at));
    assert.ok(Date.parse(first.last_used_at) > Date.parse(sessions[2].last_used_at) - 1);
    // Another account sees only its own.
    const other = await guest(h.app);
    const theirs = (await list(h.app, other.access_token)).json().sessions;
    assert.equal(theirs.length, 1);
    assert.equal(theirs[0].current, true);
    assert.equal(theirs[0].auth_method, 'guest');
  });

  it('ends one session through the revoker: its tokens are refused, the deny set and a revocation notice have it', async () => {
    const p = await register(h.app);
    const a = await login(h.app, p.email, '198.51.100.1');
    const b = await login(h.app, p.email, '198.51.100.2');
    const sessions = (await list(h.app, a.access_token)).json().sessions as { id: string; current: boolean; ip_prefix: string }[];
    const target = sessions.find((s) => s.ip_prefix === '198.51.100.0/24' && !s.current)!;
    const r = await h.app.inject({ method: 'DELETE', url: `/account/sessions/${target.id}`, headers: bearer(a.access_token) });
    assert.equal(r.statusCode, 204, r.body);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(b.access_token) })).statusCode, 401);
    const refresh = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: b.refresh_token } });
    assert.equal(refresh.statusCode, 401);
    assert.equal(await h.tstate.state.setHas(DENY_SID, target.id), true);
    const n = await notices(h, p.account_id);
    assert.deepEqual(n.map((x) => [x.reason, x.scope, x.sids]), [['logout', 'session', [target.id]]]);
    // The asking session lives on; ending the same one again is 404.
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(a.access_token) })).statusCode, 200);
    assertError(await h.app.inject({ method: 'DELETE', url: `/account/sessions/${target.id}`, headers: bearer(a.access_token) }), 404, 'session_not_found');
    const audit = await h.tdb.db.query(`SELECT detail FROM audit_log WHERE account_id = $1 AND event = 'logout'`, [p.account_id]);
    assert.deepEqual(audit.rows.map((x) => x.detail), [{ session_id: target.id, by: 'owner' }]);
  });

  it('ending the current session is a sign-out', async () => {
    const g = await guest(h.app);
    const [mine] = (await list(h.app, g.access_token)).json().sessions;
    assert.equal((await h.app.inject({ method: 'DELETE', url: `/account/sessions/${mine.id}`, headers: bearer(g.access_token) })).statusCode, 204);
    assert.equal((await list(h.app, g.access_token)).statusCode, 401);
  });

  it("another account's session, unknown ids, non-uuids and encoded paths are 404 and leak nothing", async () => {
    const victim = await guest(h.app);
    const [theirs] = (await list(h.app, victim.access_token)).json().sessions;
    const attacker = await guest(h.app);
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', '..%2F..%2Faccount', theirs.id.toUpperCase(), '%00']) {
      const r = await h.app.inject({ method: 'DELETE', url: `/account/sessions/${id}`, headers: bearer(attacker.access_token) });
      if (id === '%00') {
        assertError(r, 400, 'invalid_character');
        continue;
      }
      assert.equal(r.statusCode, 404, `${id}: ${r.body}`);
      assert.deepEqual(Object.keys(r.json()).sort(), ['code', 'message', 'request_id']);
      assert.equal(r.json().code, 'session_not_found');
    }
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(victim.access_token) })).statusCode, 200);
    const noToken = await h.app.inject({ method: 'DELETE', url: `/account/sessions/${theirs.id}` });
    assert.equal(noToken.statusCode, 401);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account/sessions' })).json().code, 'unauthenticated');
  });

  it('ends all other sessions (one notice, session scope); the current one keeps working', async () => {
    const p = await register(h.app);
    const others = [await login(h.app, p.email, '192.0.2.1'), await login(h.app, p.email, '192.0.2.2')];
    const me = await login(h.app, p.email, '192.0.2.3');
    const r = await h.app.inject({ method: 'POST', url: '/account/sessions/end-others', headers: bearer(me.access_token) });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { ended: 3 }); // the two logins and the registration's session
    for (const o of [p, ...others]) {
      assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(o.access_token) })).statusCode, 401);
      assert.equal((await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: o.refresh_token } })).statusCode, 401);
    }
    const left = (await list(h.app, me.access_token)).json().sessions;
    assert.deepEqual(left.map((s: { current: boolean }) => s.current), [true]);
    const n = await notices(h, p.account_id);
    assert.equal(n.length, 1);
    assert.equal(n[0].scope, 'session');
    assert.equal(n[0].sids.length, 3);
    assert.equal(n[0].sids.includes(left[0].id), false);
    const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: me.refresh_token } });
    assert.equal(refreshed.statusCode, 200);
    // Nothing left to end: 0, no further notice.
    assert.deepEqual((await h.app.inject({ method: 'POST', url: '/account/sessions/end-others', headers: bearer(refreshed.json().access_token) })).json(), { ended: 0 });
    assert.equal((await notices(h, p.account_id)).length, 1);
  });

  it('end-others takes no body: fields, malformed JSON and non-objects are 400', async () => {
    const g = await guest(h.app);
    const post = (payload: string) => h.app.inject({ method: 'POST', url: '/account/sessions/end-others', headers: { ...bearer(g.access_token), 'content-type': 'application/json' }, payload });
    assert.equal((await post('{"all":true}')).json().code, 'validation_failed');
    assert.equal((await post('{"all":')).json().code, 'malformed_json');
    assert.equal((await post('[1]')).json().code, 'validation_failed');
    assert.equal((await post('{}')).statusCode, 200);
  });
});

describe('Cache-Control: no-store on every response carrying a token; the key set has an ETag', () => {
  const KEY = 'k'.repeat(32);
  const TICKET_KEY = randomBytes(32);
  const h = useHarness({ AUTH_INTERNAL_KEYS: `registry:${KEY}`, AUTH_STORE_A_APP_ID: '480', AUTH_STORE_A_ENCRYPTION_KEY: TICKET_KEY.toString('hex') });

  const noStore = (r: { statusCode: number; body: string; headers: Record<string, unknown> }, what: string) => {
    assert.ok(r.statusCode < 300, `${what}: ${r.statusCode} ${r.body}`);
    assert.match(r.body, /access_token/, what);
    assert.equal(r.headers['cache-control'], 'no-store', what);
    assert.equal(r.headers.pragma, 'no-cache', what);
  };

  it('/guest, /guest/restore, /register, /login, /platform, /refresh, /oauth/token, /internal/server-token', async () => {
    const g = await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fingerprint() } });
    noStore(g, '/guest');
    noStore(
      await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.json().account_id, guest_secret: g.json().guest_secret, device_fingerprint: fingerprint() } }),
      '/guest/restore',
    );
    const p = await h.app.inject({ method: 'POST', url: '/register', payload: { email: `cc-${randomBytes(3).toString('hex')}@example.test`, password: GOOD_PASSWORD } });
    noStore(p, '/register');
    const email = JSON.parse(p.payload).account_id && (await h.tdb.db.query(`SELECT provider_user_id FROM identities WHERE account_id = $1`, [p.json().account_id])).rows[0].provider_user_id;
    noStore(await h.app.inject({ method: 'POST', url: '/login', payload: { email, password: GOOD_PASSWORD } }), '/login');
    const ticket = buildEncryptedAppTicket({ appId: 480, steamId: individualSteamId(777), key: TICKET_KEY }).toString('hex');
    noStore(await h.app.inject({ method: 'POST', url: '/platform', payload: { provider: 'store_a', ticket } }), '/platform');
    const r = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: g.json().refresh_token } });
    noStore(r, '/refresh');
    noStore(
      await h.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=refresh_token&refresh_token=${r.json().refresh_token}`,
      }),
      '/oauth/token',
    );
    noStore(await h.app.inject({ method: 'POST', url: '/internal/server-token', headers: { 'x-internal-key': KEY } }), '/internal/server-token');
    const device = await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', payload: { client_id: 'tv' } });
    assert.equal(device.headers['cache-control'], 'no-store'); // carries the device code
    // Errors too (they are never cacheable).
    const err = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: 'nope' } });
    assert.equal(err.statusCode, 401);
    assert.equal(err.headers['cache-control'], 'no-store');
  });

  it('GET /.well-known/jwks.json: public max-age=300 and a strong ETag; If-None-Match answers 304 without a body', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['cache-control'], 'public, max-age=300');
    const etag = String(r.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]{32}"$/);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const n = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json', headers: { 'if-none-match': inm } });
      assert.equal(n.statusCode, 304, inm);
      assert.equal(n.body, '');
      assert.equal(n.headers.etag, etag);
    }
    const changed = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json', headers: { 'if-none-match': '"stale"' } });
    assert.equal(changed.statusCode, 200);
    // A new published key changes the key set and its ETag: the old validator no longer matches.
    const admin = await register(h.app);
    await h.tdb.db.query(`UPDATE accounts SET roles = roles || '{admin}' WHERE id = $1`, [admin.account_id]);
    const relogin = await h.app.inject({ method: 'POST', url: '/login', payload: { email: admin.email, password: admin.password } });
    const rot = await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(relogin.json().access_token), payload: {} });
    assert.ok(rot.statusCode < 300, rot.body);
    await h.app.auth.keys.reload();
    const after = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json', headers: { 'if-none-match': etag } });
    assert.equal(after.statusCode, 200);
    assert.notEqual(after.headers.etag, etag);
    assert.equal(after.json().keys.length, 2);
  });
});
