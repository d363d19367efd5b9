// The device authorization grant (RFC 8628) through app.inject: the device's form posts, the approval calls with a
// player's Bearer token, every poll answer the RFC names, codes single-use and bounded, bad input on both OAuth
// endpoints (RFC 6749 error bodies), and the metadata documents (RFC 8414).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { useHarness, guest, register, bearer, fingerprint, type Harness, assertError } from './support/harness.js';
import { DEVICE_CODE_GRANT, USER_CODE_ALPHABET, newUserCode, normaliseUserCode } from '../src/services/device-grants.js';
import type { AuthApp } from '../src/app.js';

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const CLIENT = 'living-room-tv';

async function authorize(app: AuthApp, fields: Record<string, string> = {}) {
  const r = await app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: CLIENT, ...fields }) });
  assert.equal(r.statusCode, 200, r.body);
  return r.json() as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
}

const poll = (app: AuthApp, deviceCode: string, clientId = CLIENT) =>
  app.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: form({ grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id: clientId }) });

/** The previous poll an hour ago: the next one comes after the interval (no waiting in tests). */
async function pollLater(h: Harness, deviceCode: string) {
  await h.tdb.db.query(`UPDATE device_grants SET last_polled_at = last_polled_at - interval '1 hour' WHERE device_code_hash = $1`, [sha256Hex(deviceCode)]);
}

const lookup = (app: AuthApp, token: string, userCode: string) => app.inject({ method: 'POST', url: '/device/lookup', headers: bearer(token), payload: { user_code: userCode } });
const decide = (app: AuthApp, token: string, userCode: string, approve: boolean) =>
  app.inject({ method: 'POST', url: '/device/decision', headers: bearer(token), payload: { user_code: userCode, approve } });

function assertOAuthError(r: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, error: string, code = error) {
  assert.equal(r.statusCode, status, r.body);
  const b = JSON.parse(r.body);
  assert.equal(b.error, error, r.body);
  assert.equal(b.code, code, r.body);
  assert.equal(typeof b.error_description, 'string');
  assert.equal(r.headers['cache-control'], 'no-store');
}

describe('device authorization grant (RFC 8628)', () => {
  const h = useHarness({ AUTH_DEVICE_POLL_INTERVAL_SECONDS: '2', AUTH_RATE_DEVICE_AUTHORIZE_PER_IP: '1000', AUTH_RATE_DEVICE_VERIFY_PER_IP: '1000', AUTH_RATE_DEVICE_VERIFY_PER_ACCOUNT: '1000' });

  it('user codes: 8 letters of BCDFGHJKLMNPQRSTVWXZ; typed codes are read without case, dashes or spaces', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const c = newUserCode();
      assert.match(c, /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      for (const ch of c) seen.add(ch);
    }
    assert.equal(seen.size, USER_CODE_ALPHABET.length); // every letter drawn
    assert.equal(normaliseUserCode(' bcdf-ghjk '), 'BCDFGHJK');
    assert.equal(normaliseUserCode('BCDF-GHJA'), undefined); // a vowel
    assert.equal(normaliseUserCode('BCDFGHJ'), undefined);
  });

  it('device → player approves → the device polls and receives tokens; the device code is then spent', async () => {
    const a = await authorize(h.app, { device_name: 'Living room TV', platform: 'console', device_fingerprint: fingerprint(), scope: 'ignored', unknown_param: 'ignored' });
    assert.match(a.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(Buffer.from(a.device_code, 'base64url').length, 32);
    assert.equal(a.verification_uri, `${h.config.issuer}/device`);
    assert.equal(a.verification_uri_complete, `${h.config.issuer}/device?user_code=${a.user_code}`);
    assert.equal(a.expires_in, 600);
    assert.equal(a.interval, 2);
    // Only hashes are stored.
    const row = (await h.tdb.db.query(`SELECT * FROM device_grants WHERE device_code_hash = $1`, [sha256Hex(a.device_code)])).rows[0];
    assert.equal(row.user_code_hash, sha256Hex(a.user_code.replace('-', '')));
    assert.equal(JSON.stringify(row).includes(a.device_code), false);
    assert.equal(JSON.stringify(row).includes(a.user_code.replace('-', '')), false);

    assertOAuthError(await poll(h.app, a.device_code), 400, 'authorization_pending');

    const player = await register(h.app);
    const seen = await lookup(h.app, player.access_token, a.user_code.toLowerCase().replace('-', ' '));
    assert.equal(seen.statusCode, 200, seen.body);
    const s = seen.json();
    assert.equal(s.user_code, a.user_code);
    assert.equal(s.client_id, CLIENT);
    assert.equal(s.client_verified, false);
    assert.equal(s.device_name, 'Living room TV');
    assert.equal(s.platform, 'console');
    assert.equal(s.ip_prefix, '127.0.0.0/24');
    const ok = await decide(h.app, player.access_token, a.user_code, true);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { status: 'approved' });
    // Single use: the decided code names nothing any more.
    assert.equal((await decide(h.app, player.access_token, a.user_code, false)).json().code, 'user_code_not_found');
    assert.equal((await lookup(h.app, player.access_token, a.user_code)).statusCode, 404);

    await pollLater(h, a.device_code);
    const tokens = await poll(h.app, a.device_code);
    assert.equal(tokens.statusCode, 200, tokens.body);
    assert.equal(tokens.headers['cache-control'], 'no-store');
    assert.equal(tokens.headers.pragma, 'no-cache');
    const t = tokens.json();
    assert.equal(t.token_type, 'Bearer');
    assert.equal(t.account_id, player.account_id);
    assert.equal(t.expires_in, h.config.accessTtlSeconds);
    const account = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(t.access_token) });
    assert.equal(account.statusCode, 200);
    assert.equal(account.json().id, player.account_id);
    assert.ok(account.json().devices.some((d: { platform: string }) => d.platform === 'console'));
    const claims = JSON.parse(Buffer.from(t.access_token.split('.')[2], 'base64url').subarray(0, -64).toString('utf8'));
    assert.equal(claims.platform, 'device_code');

    // The device code is spent: polling again is invalid_grant (and hands out nothing).
    await pollLater(h, a.device_code);
    assertOAuthError(await poll(h.app, a.device_code), 400, 'invalid_grant');

    // The device's session is listed for the player, with the client and the device's name.
    const list = (await h.app.inject({ method: 'GET', url: '/account/sessions', headers: bearer(player.access_token) })).json();
    const tv = list.sessions.find((x: { auth_method: string }) => x.auth_method === 'device_code');
    assert.equal(tv.client_id, CLIENT);
    assert.deepEqual({ name: tv.device.name, platform: tv.device.platform }, { name: 'Living room TV', platform: 'console' });
    assert.equal(tv.current, false);

    const audit = await h.tdb.db.query(`SELECT detail FROM audit_log WHERE account_id = $1 AND detail->>'method' = 'device_code' ORDER BY at`, [player.account_id]);
    assert.deepEqual(audit.rows.map((r) => r.detail.step ?? r.detail.outcome), ['approved', 'success']);
  });

  it('the refresh_token grant rotates as /refresh does; a replayed token is invalid_grant and ends the session', async () => {
    const p = await register(h.app);
    const r1 = await h.app.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: form({ grant_type: 'refresh_token', refresh_token: p.refresh_token }) });
    assert.equal(r1.statusCode, 200, r1.body);
    assert.equal(r1.headers['cache-control'], 'no-store');
    assert.notEqual(r1.json().refresh_token, p.refresh_token);
    const replay = await h.app.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: form({ grant_type: 'refresh_token', refresh_token: p.refresh_token, client_id: CLIENT }) });
    assertOAuthError(replay, 400, 'invalid_grant');
    assert.equal(replay.json().reason, 'token_reused');
    // Reuse ended the session: the successor is spent too.
    const after = await h.app.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: form({ grant_type: 'refresh_token', refresh_token: r1.json().refresh_token }) });
    assertOAuthError(after, 400, 'invalid_grant');
    assert.equal(after.json().reason, 'token_reused');
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(r1.json().access_token) })).statusCode, 401);
    const unknown = await h.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) } });
    assertOAuthError(unknown, 400, 'invalid_grant'); // JSON bodies are accepted too
    assert.equal(unknown.json().reason, 'invalid_refresh_token');
  });

  it('polling faster than the interval is slow_down, and the interval grows by 5 seconds', async () => {
    const a = await authorize(h.app);
    assertOAuthError(await poll(h.app, a.device_code), 400, 'authorization_pending');
    const fast = await poll(h.app, a.device_code);
    assertOAuthError(fast, 400, 'slow_down');
    assert.match(fast.json().error_description, /7 seconds/);
    const row = (await h.tdb.db.query(`SELECT interval_seconds FROM device_grants WHERE device_code_hash = $1`, [sha256Hex(a.device_code)])).rows[0];
    assert.equal(row.interval_seconds, 7);
    await pollLater(h, a.device_code);
    assertOAuthError(await poll(h.app, a.device_code), 400, 'authorization_pending');
  });

  it('denied → access_denied; expired → expired_token; unknown or another client’s code → invalid_grant', async () => {
    const player = await guest(h.app);
    const denied = await authorize(h.app);
    assert.deepEqual((await decide(h.app, player.access_token, denied.user_code, false)).json(), { status: 'denied' });
    assertOAuthError(await poll(h.app, denied.device_code), 400, 'access_denied');

    const expired = await authorize(h.app);
    await h.tdb.db.query(`UPDATE device_grants SET expires_at = now() - interval '1 second' WHERE device_code_hash = $1`, [sha256Hex(expired.device_code)]);
    assertOAuthError(await poll(h.app, expired.device_code), 400, 'expired_token');
    // An expired user code cannot be approved any more.
    assert.equal((await decide(h.app, player.access_token, expired.user_code, true)).json().code, 'user_code_not_found');

    assertOAuthError(await poll(h.app, 'A'.repeat(43)), 400, 'invalid_grant');
    const other = await authorize(h.app);
    assertOAuthError(await poll(h.app, other.device_code, 'another-client'), 400, 'invalid_grant');
  });

  it('an account disabled after approving gets nothing: access_denied', async () => {
    const p = await register(h.app);
    const a = await authorize(h.app);
    await decide(h.app, p.access_token, a.user_code, true);
    await h.tdb.db.query(`UPDATE accounts SET status = 'banned' WHERE id = $1`, [p.account_id]);
    assertOAuthError(await poll(h.app, a.device_code), 400, 'access_denied');
  });

  it('client_id: required and well-formed; with AUTH_DEVICE_CLIENT_IDS only those, shown as verified', async () => {
    const missing = await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: '' });
    assertOAuthError(missing, 401, 'invalid_client');
    const malformed = await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: 'has space' }) });
    assertOAuthError(malformed, 401, 'invalid_client');
    const node = await h.node({ AUTH_DEVICE_CLIENT_IDS: 'tv-app,console-app' });
    const refused = await node.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: CLIENT }) });
    assertOAuthError(refused, 401, 'invalid_client');
    const ok = await node.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: 'tv-app' }) });
    assert.equal(ok.statusCode, 200, ok.body);
    const p = await guest(node);
    const seen = await lookup(node, p.access_token, ok.json().user_code);
    assert.equal(seen.json().client_verified, true);
    const refresh = await node.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: form({ grant_type: 'refresh_token', refresh_token: p.refresh_token, client_id: 'nope' }) });
    assertOAuthError(refresh, 401, 'invalid_client');
  });

  it('bad input on the OAuth endpoints: RFC 6749 invalid_request (or the precise error), never a 5xx', async () => {
    const post = (url: string, payload: string, headers: Record<string, string> = FORM) => h.app.inject({ method: 'POST', url, headers, payload });
    assertOAuthError(await post('/oauth/token', form({ grant_type: 'password', username: 'a', password: 'b' })), 400, 'unsupported_grant_type');
    assertOAuthError(await post('/oauth/token', form({ device_code: 'x' })), 400, 'invalid_request', 'validation_failed');
    assertOAuthError(await post('/oauth/token', form({ grant_type: DEVICE_CODE_GRANT, client_id: CLIENT })), 400, 'invalid_request');
    assertOAuthError(await post('/oauth/token', form({ grant_type: 'refresh_token' })), 400, 'invalid_request');
    assertOAuthError(await post('/oauth/token', 'grant_type=refresh_token&grant_type=refresh_token&refresh_token=x'), 400, 'invalid_request');
    assertOAuthError(await post('/oauth/token', '{"grant_type":', { 'content-type': 'application/json' }), 400, 'invalid_request', 'malformed_json');
    assertOAuthError(await post('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: 'a\u0000b' })), 400, 'invalid_request', 'invalid_character');
    assertOAuthError(await post('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(513) })), 400, 'invalid_request', 'validation_failed');
    assertOAuthError(await post('/oauth/token', `grant_type=refresh_token&refresh_token=${'x'.repeat(70_000)}`), 413, 'invalid_request', 'payload_too_large');
    assertOAuthError(await post('/oauth/token', 'grant_type=refresh_token', { 'content-type': 'application/xml' }), 415, 'invalid_request', 'unsupported_media_type');
    assertOAuthError(await post('/oauth/token', JSON.stringify({ grant_type: ['refresh_token'] }), { 'content-type': 'application/json' }), 400, 'invalid_request', 'validation_failed');
    assertOAuthError(await post('/oauth/device_authorization', form({ client_id: CLIENT, platform: 'toaster' })), 400, 'invalid_request', 'validation_failed');
    assertOAuthError(await post('/oauth/device_authorization', form({ client_id: CLIENT, device_name: 'x'.repeat(65) })), 400, 'invalid_request', 'validation_failed');
    const deep = JSON.stringify({ client_id: CLIENT, x: JSON.parse('['.repeat(40) + ']'.repeat(40)) });
    assertOAuthError(await post('/oauth/device_authorization', deep, { 'content-type': 'application/json' }), 400, 'invalid_request', 'too_deep');
  });

  it('the approval calls: Bearer required, strict bodies, unknown and malformed codes 404 without telling which', async () => {
    const p = await guest(h.app);
    assertError(await h.app.inject({ method: 'POST', url: '/device/lookup', payload: { user_code: 'BCDF-GHJK' } }), 401, 'unauthenticated');
    const badToken = await lookup(h.app, 'v4.public.nonsense', 'BCDF-GHJK');
    assert.equal(badToken.json().code, 'invalid_token');
    for (const payload of [{}, { user_code: '' }, { user_code: 'x'.repeat(33) }, { user_code: 5 }, { user_code: 'BCDF-GHJK', extra: 1 }]) {
      const r = await h.app.inject({ method: 'POST', url: '/device/lookup', headers: bearer(p.access_token), payload });
      assert.equal(r.statusCode, 400, JSON.stringify(payload));
      assert.equal(r.json().code, 'validation_failed');
    }
    const notBool = await h.app.inject({ method: 'POST', url: '/device/decision', headers: bearer(p.access_token), payload: { user_code: 'BCDF-GHJK', approve: 'yes' } });
    assert.equal(notBool.json().code, 'validation_failed');
    for (const code of ['BCDF-GHJK', 'AEIO-UAEI', '12345678', 'not a code']) {
      const r = await lookup(h.app, p.access_token, code);
      assert.equal(r.statusCode, 404, code);
      assert.deepEqual(Object.keys(r.json()).sort(), ['code', 'message', 'request_id']);
      assert.equal(r.json().code, 'user_code_not_found');
    }
  });

  it('bad input on the JSON endpoints (approval calls, end-others): malformed, oversized, NUL, deep, revoked tokens', async () => {
    const p = await guest(h.app);
    const send = (url: string, payload: string, token = p.access_token) =>
      h.app.inject({ method: 'POST', url, headers: { ...bearer(token), 'content-type': 'application/json' }, payload });
    for (const url of ['/device/lookup', '/device/decision', '/account/sessions/end-others']) {
      const cases: [string, number, string][] = [
        ['{"user_code":', 400, 'malformed_json'],
        [JSON.stringify({ user_code: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
        [JSON.stringify({ user_code: 'BCDF\u0000GHJK', approve: true }), 400, 'invalid_character'],
        [JSON.stringify({ user_code: JSON.parse('['.repeat(40) + ']'.repeat(40)) }), 400, 'too_deep'],
        [JSON.stringify({ user_code: 'BCDF-GHJK', approve: true, admin: true }), 400, 'validation_failed'],
        ['"BCDF-GHJK"', 400, 'validation_failed'],
      ];
      for (const [payload, status, code] of cases) {
        const r = await send(url, payload);
        assert.equal(r.statusCode, status, `${url} ${payload.slice(0, 40)}: ${r.body}`);
        assert.equal(r.json().code, code, `${url} ${payload.slice(0, 40)}`);
        assert.equal(r.json().error, undefined); // house bodies here: these are not OAuth endpoints
      }
    }
    // A signed-out session's token is refused everywhere new.
    const gone = await guest(h.app);
    assert.equal((await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(gone.access_token) })).statusCode, 204);
    for (const [method, url, payload] of [
      ['POST', '/device/lookup', { user_code: 'BCDF-GHJK' }],
      ['POST', '/device/decision', { user_code: 'BCDF-GHJK', approve: true }],
      ['POST', '/account/sessions/end-others', undefined],
      ['GET', '/account/sessions', undefined],
      ['DELETE', '/account/sessions/00000000-0000-4000-8000-000000000000', undefined],
    ] as const) {
      const r = await h.app.inject({ method, url, headers: bearer(gone.access_token), ...(payload ? { payload } : {}) });
      assert.equal(r.statusCode, 401, `${method} ${url}`);
      assert.equal(r.json().code, 'invalid_token');
    }
  });

  it('the metadata documents (RFC 8414 and OpenID-style): the configured issuer, endpoints under it, grants and algorithms', async () => {
    for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const r = await h.app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 200, url);
      assert.equal(r.headers['cache-control'], 'public, max-age=300');
      const m = r.json();
      assert.equal(m.issuer, h.config.issuer);
      assert.equal(m.jwks_uri, `${h.config.issuer}/.well-known/jwks.json`);
      assert.equal(m.token_endpoint, `${h.config.issuer}/oauth/token`);
      assert.equal(m.device_authorization_endpoint, `${h.config.issuer}/oauth/device_authorization`);
      assert.deepEqual(m.grant_types_supported, [DEVICE_CODE_GRANT, 'refresh_token']);
      assert.deepEqual(m.token_endpoint_auth_methods_supported, ['none']);
      assert.deepEqual(m.id_token_signing_alg_values_supported, ['EdDSA']);
    }
  });

  it('the approval page: HTML with a strict CSP, not frameable, not cached; its script and style', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/device?user_code=BCDF-GHJK' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /<script type="module" src="\/device\/device.js"><\/script>/);
    assert.doesNotMatch(page.body, /<script>/); // no inline script (the CSP would refuse it)
    const js = await h.app.inject({ method: 'GET', url: '/device/device.js' });
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    assert.doesNotMatch(js.body, /localStorage|sessionStorage|document\.cookie/);
    assert.match(String((await h.app.inject({ method: 'GET', url: '/device/device.css' })).headers['content-type']), /^text\/css/);
  });
});

describe('user codes are bounded: per account and address, and per code', () => {
  const h = useHarness({ AUTH_RATE_DEVICE_VERIFY_PER_ACCOUNT: '6', AUTH_RATE_DEVICE_VERIFY_PER_IP: '1000', AUTH_DEVICE_USER_CODE_MAX_ENTRIES: '3' });

  it('an account guessing codes is refused (429) after its budget, even with the right code', async () => {
    const a = await authorize(h.app);
    const guesser = await guest(h.app);
    for (let i = 0; i < 6; i++) {
      const wrong = await lookup(h.app, guesser.access_token, `${'BCDFGHJKLM'[i]}BBB-BBBB`);
      assert.equal(wrong.statusCode, 404);
    }
    const refused = await lookup(h.app, guesser.access_token, a.user_code);
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // Another account is not affected; the code still works.
    const owner = await guest(h.app);
    assert.equal((await lookup(h.app, owner.access_token, a.user_code)).statusCode, 200);
  });

  it('a code submitted more than AUTH_DEVICE_USER_CODE_MAX_ENTRIES times is void: 404, and the device gets access_denied', async () => {
    const a = await authorize(h.app);
    const p = await guest(h.app);
    for (let i = 0; i < 3; i++) assert.equal((await lookup(h.app, p.access_token, a.user_code)).statusCode, 200);
    const fourth = await decide(h.app, p.access_token, a.user_code, true);
    assert.equal(fourth.statusCode, 404);
    assertOAuthError(await poll(h.app, a.device_code), 400, 'access_denied');
  });

  it('device authorization requests are limited per address', async () => {
    const node = await h.node({ AUTH_RATE_DEVICE_AUTHORIZE_PER_IP: '2' });
    const post = () => node.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: CLIENT }), remoteAddress: '10.9.8.7' });
    assert.equal((await post()).statusCode, 200);
    assert.equal((await post()).statusCode, 200);
    const third = await post();
    assert.equal(third.statusCode, 429);
    assert.equal(third.json().error, 'rate_limited');
  });
});
