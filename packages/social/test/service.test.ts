// The service as a whole: configuration (file + env), key rotation, TLS and plain HTTP start, and a walk
// over every endpoint proving no account id (nor internal id) ever appears in a response.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@platform/kit';
import { readSocialConfig, startSocial } from '../src/index.js';
import { startHarness, useHarness, startKeySet } from './support.js';

describe('configuration', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'social-cfg-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a JSON file with nested keys; environment variables override it, case-insensitively', () => {
    const file = path.join(dir, 'social.json');
    writeFileSync(
      file,
      JSON.stringify({ Social: { Auth: { JwksUrl: 'https://auth.example/jwks', Audience: 'from-file' }, Presence: { TtlSeconds: 90 }, Chat: { Enabled: false } } }),
    );
    const c = readSocialConfig({ SOCIAL_CONFIG_FILE: file, Social__Auth__Audience: 'from-env', SOCIAL__INVITES__TTLSECONDS: '120' });
    assert.equal(c.jwksUrl, 'https://auth.example/jwks');
    assert.equal(c.audience, 'from-env');
    assert.equal(c.presenceTtlSeconds, 90);
    assert.equal(c.inviteTtlSeconds, 120);
    assert.equal(c.chatEnabled, false);
    assert.equal(c.issuer, 'https://localhost:8443');
    assert.equal(c.registryUrl, 'http://127.0.0.1:3004');
    assert.equal(c.chatRetentionDays, 30);
    assert.equal(c.port, 9443);
    assert.equal(c.tlsMode, 'https');
  });

  it('stops on a bad value, naming the setting', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /SOCIAL__AUTH__JWKSURL/],
      [{ SOCIAL__AUTH__JWKSURL: 'not a url' }, /SOCIAL__AUTH__JWKSURL/],
      [{ SOCIAL__AUTH__JWKSURL: 'http://x/j', SOCIAL__PRESENCE__TTLSECONDS: 'soon' }, /SOCIAL__PRESENCE__TTLSECONDS/],
      [{ SOCIAL__AUTH__JWKSURL: 'http://x/j', SOCIAL__CHAT__ENABLED: 'maybe' }, /SOCIAL__CHAT__ENABLED/],
      [{ SOCIAL__AUTH__JWKSURL: 'http://x/j', SOCIAL__TLS__MODE: 'tcp' }, /SOCIAL__TLS__MODE/],
      [{ SOCIAL__AUTH__JWKSURL: 'http://x/j', SOCIAL__AUTH__CAFILE: '/nonexistent/ca.pem' }, /SOCIAL__AUTH__CAFILE/],
      [{ SOCIAL__AUTH__APIKEY: 'short' }, /SOCIAL__AUTH__APIKEY/],
      [{ SOCIAL__AUTH__JWKSURL: 'http://x/j', SOCIAL__DATABASE__SCHEMA: 'social; drop' }, /SOCIAL__DATABASE__SCHEMA/],
      [{ SOCIAL__AUTH__JWKSURL: 'http://x/j', SOCIAL_CONFIG_FILE: '/nonexistent.json' }, /SOCIAL_CONFIG_FILE/],
    ];
    for (const [env, re] of cases) {
      assert.throws(() => readSocialConfig(env), (err: unknown) => err instanceof ConfigError && re.test(err.message), JSON.stringify(env));
    }
    // API-key mode alone needs no key set.
    assert.equal(readSocialConfig({ SOCIAL__AUTH__APIKEY: 'a-long-enough-server-key' }).jwksUrl, undefined);
  });

  it('reads the house names (SOCIAL_<SECTION>_<SETTING>); the spec spelling is an alias and the house name wins', () => {
    const c = readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'http://a/j', SOCIAL_CHAT_MAX_LENGTH: '500', SOCIAL__CHAT__MAXLENGTH: '900', SOCIAL__INVITES__TTLSECONDS: '120' });
    assert.deepEqual([c.jwksUrl, c.chatMaxLength, c.inviteTtlSeconds], ['http://a/j', 500, 120]);
    assert.throws(() => readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'http://a/j', SOCIAL_REALTIME_PING_SECONDS: 'often' }), /SOCIAL_REALTIME_PING_SECONDS: must be an integer/);
    assert.throws(() => readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'http://a/j', SOCIAL__REALTIME__PINGSECONDS: 'often' }), /SOCIAL__REALTIME__PINGSECONDS \(now SOCIAL_REALTIME_PING_SECONDS\)/);
  });

  it('rate limits are SOCIAL_RATE_…: the older SOCIAL_LIMITS_… names and the spec spelling still work, the house name wins', () => {
    const base = { SOCIAL_AUTH_JWKS_URL: 'http://a/j' };
    const now = readSocialConfig({ ...base, SOCIAL_RATE_CHAT_PER_MINUTE: '11', SOCIAL_RATE_ACTIONS_PER_MINUTE: '12', SOCIAL_RATE_SEARCHES_PER_MINUTE: '13' });
    assert.deepEqual([now.chatPerMinute, now.actionsPerMinute, now.searchesPerMinute], [11, 12, 13]);
    const old = readSocialConfig({ ...base, SOCIAL_LIMITS_CHAT_PER_MINUTE: '21', SOCIAL_LIMITS_ACTIONS_PER_MINUTE: '22', SOCIAL_LIMITS_SEARCHES_PER_MINUTE: '23' });
    assert.deepEqual([old.chatPerMinute, old.actionsPerMinute, old.searchesPerMinute], [21, 22, 23]);
    const spec = readSocialConfig({ ...base, SOCIAL__LIMITS__CHATPERMINUTE: '31', SOCIAL_LIMITS_ACTIONS_PER_MINUTE: '32', SOCIAL_RATE_ACTIONS_PER_MINUTE: '42' });
    assert.deepEqual([spec.chatPerMinute, spec.actionsPerMinute, spec.searchesPerMinute], [31, 42, 30]);
  });
});

describe('key rotation', () => {
  const h = useHarness({ SOCIAL__AUTH__KEYCOOLDOWNSECONDS: '3600' });

  it('a key_rotation message on the state store refetches the key set', async () => {
    const u = await h.user('Rotor');
    h.keys.rotate();
    const token = await h.keys.sign(u.sub);
    h.subs.push(u.sub);
    const before = await h.req(null, 'GET', '/v1/me', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(before.status, 401, 'unknown kid inside the cooldown is refused');
    const fetches = h.keys.fetches;
    await h.state.state.publish('auth:key_rotation', JSON.stringify({ kid: 'new' }));
    while (h.keys.fetches === fetches) await new Promise((r) => setTimeout(r, 10));
    let after = await h.req(null, 'GET', '/v1/me', { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 50 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      after = await h.req(null, 'GET', '/v1/me', { headers: { authorization: `Bearer ${token}` } });
    }
    assert.equal(after.status, 200);
    assert.equal(after.body.publicId, u.publicId);
  });
});

describe('startSocial', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'social-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves HTTPS (TLS 1.3, issued by the local CA into DATA_DIR/social/tls, with HSTS) and plain HTTP when configured', async () => {
    const keys = await startKeySet();
    after(() => keys.close());
    const base = { DATA_DIR: dir, SOCIAL__AUTH__JWKSURL: keys.url, SOCIAL__LISTEN__PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
    // Embedded PGlite under DATA_DIR (the shared PostgreSQL schema `social` is left alone); Redis when the run has it.
    const env = { ...base, ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) };
    const s = await startSocial(env);
    try {
      const port = (s.app.server.address() as { port: number }).port;
      const ca = readFileSync(path.join(dir, 'ca', 'ca-cert.pem'));
      const res = await new Promise<{ status: number; protocol: string; body: string; hsts?: string }>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/health', ca, servername: 'localhost', agent: false }, (r) => {
            const protocol = (r.socket as import('node:tls').TLSSocket).getProtocol() ?? '';
            let body = '';
            r.on('data', (c) => (body += c));
            r.on('end', () => resolve({ status: r.statusCode!, protocol, body, hsts: r.headers['strict-transport-security'] }));
          })
          .on('error', reject);
      });
      assert.equal(res.status, 200);
      assert.equal(res.protocol, 'TLSv1.3');
      assert.equal(res.hsts, 'max-age=31536000; includeSubDomains');
      assert.deepEqual(JSON.parse(res.body), { status: 'ok' });
    } finally {
      await s.app.close();
      await s.close();
    }
    const plain = await startSocial({ ...env, SOCIAL__TLS__MODE: 'http' });
    try {
      const port = (plain.app.server.address() as { port: number }).port;
      const r = await fetch(`http://127.0.0.1:${port}/ready`);
      assert.equal(r.status, 200);
      const unauth = await fetch(`http://127.0.0.1:${port}/v1/me`);
      assert.equal(unauth.status, 401);
      assert.equal(unauth.headers.get('strict-transport-security'), null, 'plain HTTP behind a TLS-terminating balancer: the balancer sends HSTS');
      assert.equal(((await unauth.json()) as { code: string }).code, 'unauthorized');
    } finally {
      await plain.app.close();
      await plain.close();
    }
  });
});

describe('identity privacy', () => {
  const h = useHarness();

  it('no response of any endpoint carries an account id or an internal id', async () => {
    const game = h.registry.addGame('full');
    const [a, b, c] = await h.users('Walker', 'Partner', 'Third');
    const o = { game };
    const recB = await h.events(b);
    const walk: [typeof a, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string, unknown?][] = [];
    const call = async (u: typeof a, m: (typeof walk)[0][1], url: string, body?: unknown) => {
      const r = await h.req(u, m, url, { body, ...o });
      assert.ok(r.status < 500, `${m} ${url} → ${r.status}`);
      return r;
    };
    await call(a, 'GET', '/v1/me');
    await call(a, 'PATCH', '/v1/me/profile', { status: 'walking' });
    await call(a, 'POST', '/v1/me/name', { displayName: 'Walker' });
    await call(a, 'GET', `/v1/users/search?handle=pa`);
    await call(a, 'POST', '/v1/reports', { targetPublicId: c.publicId, reason: 'other' });
    await call(a, 'POST', '/v1/friends/requests', { toPublicId: b.publicId });
    await call(a, 'GET', '/v1/friends/requests?dir=outgoing');
    await call(b, 'GET', '/v1/friends/requests?dir=incoming');
    await call(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`);
    await call(c, 'POST', '/v1/friends/requests', { toPublicId: a.publicId });
    await call(a, 'POST', `/v1/friends/requests/${c.publicId}/decline`);
    await call(c, 'POST', '/v1/friends/requests', { toPublicId: a.publicId });
    await call(c, 'DELETE', `/v1/friends/requests/${a.publicId}`);
    await call(a, 'POST', '/v1/presence', { state: 'online', richPresence: { activity: 'walking', joinable: true } });
    await call(b, 'GET', `/v1/presence/${a.publicId}`);
    await call(b, 'GET', '/v1/friends');
    await call(a, 'PUT', `/v1/notes/${b.publicId}`, { text: 'note' });
    await call(a, 'GET', `/v1/notes/${b.publicId}`);
    await call(a, 'DELETE', `/v1/notes/${b.publicId}`);
    await call(a, 'POST', `/v1/mutes/${c.publicId}`);
    await call(a, 'DELETE', `/v1/mutes/${c.publicId}`);
    const party = (await call(a, 'POST', '/v1/parties', { visibility: 'FriendsOnly' })).body;
    await call(a, 'GET', `/v1/parties/${party.partyId}`);
    const inv = (await call(a, 'POST', `/v1/parties/${party.partyId}/invites`, { toPublicId: b.publicId })).body;
    await call(b, 'GET', '/v1/invites');
    await call(b, 'POST', `/v1/parties/${party.partyId}/join`, { inviteId: inv.inviteId });
    await call(a, 'POST', `/v1/parties/${party.partyId}/session`, { sessionHandle: 'sess' });
    await call(a, 'POST', `/v1/parties/${party.partyId}/visibility`, { visibility: 'Public' });
    await call(a, 'POST', `/v1/parties/${party.partyId}/join-metadata`, { lobbyId: 'l' });
    await call(a, 'POST', `/v1/parties/${party.partyId}/leader`, { publicId: b.publicId });
    await call(c, 'POST', `/v1/parties/${party.partyId}/join`, {});
    await call(b, 'POST', `/v1/parties/${party.partyId}/kick`, { publicId: c.publicId });
    await call(a, 'POST', `/v1/parties/${party.partyId}/leave`);
    await call(b, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: 'hi' });
    await call(b, 'GET', `/v1/chat/party/${party.partyId}/messages`);
    const dm = (await call(a, 'GET', '/v1/friends')).body[0].dmChannelId;
    await call(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: 'hey' });
    await call(b, 'GET', `/v1/chat/dm/${dm}/messages`);
    const g = (await call(a, 'POST', '/v1/invites/game', { toPublicId: b.publicId, sessionHandle: 's' })).body;
    await call(b, 'POST', `/v1/invites/game/${g.inviteId}/accept`);
    const g2 = (await call(a, 'POST', '/v1/invites/game', { toPublicId: b.publicId })).body;
    await call(b, 'POST', `/v1/invites/${g2.inviteId}/decline`);
    const g3 = (await call(a, 'POST', '/v1/invites/game', { toPublicId: b.publicId })).body;
    await call(a, 'DELETE', `/v1/invites/${g3.inviteId}`);
    await call(a, 'GET', '/v1/invites?dir=outgoing');
    const inbox = (await call(b, 'GET', '/v1/notifications?limit=1')).body;
    await call(b, 'GET', `/v1/notifications?cursor=${inbox.nextCursor}`);
    await call(b, 'GET', '/v1/notifications/unread-count');
    await call(b, 'POST', `/v1/notifications/${inbox.notifications[0].notificationId}/read`);
    await call(b, 'POST', '/v1/notifications/read-all');
    await call(b, 'DELETE', `/v1/notifications/${inbox.notifications[0].notificationId}`);
    await call(a, 'POST', `/v1/blocks/${c.publicId}`);
    await call(a, 'GET', '/v1/me/export');
    await call(a, 'DELETE', `/v1/blocks/${c.publicId}`);
    await call(a, 'DELETE', `/v1/friends/${b.publicId}`);
    await call(a, 'DELETE', '/v1/me');
    h.assertNoAccountIds();
    const all = h.bodies.join('\n');
    for (const u of [a, b, c]) assert.ok(!all.includes(u.id), 'an internal id leaked');
    // Events carry publicIds only, too.
    await recB.next('friendRemoved');
    const events = JSON.stringify(recB.events);
    assert.ok(recB.events.length >= 5, events);
    for (const u of [a, b, c]) {
      assert.ok(!events.includes(u.sub), 'an account id leaked into an event');
      assert.ok(!events.includes(u.id), 'an internal id leaked into an event');
    }
    await recB.stop();
  });
});

describe('openapi', () => {
  const h = useHarness();

  it('documents every /v1 operation without authentication', async () => {
    const r = await h.req(null, 'GET', '/openapi.json');
    assert.equal(r.status, 200);
    const paths = Object.keys(r.body.paths);
    for (const p of ['/v1/me', '/v1/friends/requests', '/v1/parties/{id}/join', '/v1/chat/{kind}/{channelId}/messages', '/v1/invites/game/{inviteId}/accept']) {
      assert.ok(paths.includes(p), p);
    }
  });
});

describe('logging', () => {
  it('never logs tokens, API keys, game secrets or account ids', async () => {
    const { captureLogs } = await import('@platform/kit/testing');
    const logs = captureLogs();
    const h = await startHarness({ LOG_LEVEL: 'debug', SOCIAL__AUTH__APIKEY: 'server-key-logging-test-123' }, { logStream: logs.stream });
    try {
      const game = h.registry.addGame('summary');
      const u = await h.user('Logged');
      await h.req(u, 'GET', '/v1/friends', { game });
      await h.req(u, 'GET', '/v1/me', { game: { ...game, secret: 'wrong-but-secret-value' } });
      await h.req(null, 'GET', '/v1/me', { headers: { 'x-api-key': 'server-key-logging-test-123', 'x-user-id': 'acct-logged-api' } });
      const text = logs.text();
      assert.ok(text.includes('"url":"/v1/friends"'), 'requests are logged');
      for (const secret of [u.token, game.secret, 'wrong-but-secret-value', 'server-key-logging-test-123', u.sub, 'acct-logged-api']) {
        assert.ok(!text.includes(secret), `log contains ${secret.slice(0, 12)}…`);
      }
    } finally {
      await h.close();
    }
  });
});

describe('bad input on every body-taking endpoint', () => {
  const h = useHarness();

  it('malformed JSON, non-object bodies, unknown fields, wrong content type, oversized bodies: stable 4xx', async () => {
    const u = await h.user('Fuzzer');
    const pid = '00000000-0000-4000-8000-000000000000';
    const endpoints: ['POST' | 'PUT' | 'PATCH', string][] = [
      ['PATCH', '/v1/me/profile'],
      ['POST', '/v1/me/name'],
      ['POST', '/v1/reports'],
      ['POST', '/v1/friends/requests'],
      ['POST', '/v1/presence'],
      ['PUT', `/v1/notes/${u.publicId}`],
      ['POST', '/v1/parties'],
      ['POST', `/v1/parties/${pid}/invites`],
      ['POST', `/v1/parties/${pid}/join`],
      ['POST', `/v1/parties/${pid}/kick`],
      ['POST', `/v1/parties/${pid}/leader`],
      ['POST', `/v1/parties/${pid}/session`],
      ['POST', `/v1/parties/${pid}/visibility`],
      ['POST', `/v1/parties/${pid}/join-metadata`],
      ['POST', '/v1/invites/game'],
      ['POST', `/v1/chat/dm/${pid}/messages`],
    ];
    for (const [method, url] of endpoints) {
      const malformed = await h.req(u, method, url, { raw: '{"a":' });
      assert.deepEqual([malformed.status, malformed.body.code], [400, 'malformed_json'], `${method} ${url}`);
      const array = await h.req(u, method, url, { raw: '[]' });
      assert.deepEqual([array.status, array.body.code], [400, 'validation_failed'], `${method} ${url} array`);
      const unknown = await h.req(u, method, url, { body: { surprise: true } });
      assert.equal(unknown.status, 400, `${method} ${url} unknown field`);
      assert.equal(unknown.body.code, 'validation_failed');
      const text = await h.req(u, method, url, { raw: '<a/>', headers: { 'content-type': 'application/xml' } });
      assert.equal(text.status, 415, `${method} ${url} application/xml`);
      const huge = await h.req(u, method, url, { raw: JSON.stringify({ x: 'y'.repeat(70_000) }) });
      assert.deepEqual([huge.status, huge.body.code], [413, 'payload_too_large'], `${method} ${url} huge`);
    }
    const unknownRoute = await h.req(u, 'GET', '/v1/nothing-here');
    assert.deepEqual([unknownRoute.status, unknownRoute.body.code], [404, 'route_not_found']);
    assert.ok(h.bodies.every((b) => !b.includes('internal_error')));
  });
});
