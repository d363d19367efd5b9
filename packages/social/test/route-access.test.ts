// Authorization is decided by the route that runs: every route, reached by every spelling of its path
// (encoded, double-encoded, case-changed, dot segments, trailing and doubled slashes), answers as its plain
// path does for the same caller, or reaches no route. The internal notice route never runs for a player.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { routesOf } from '@platform/kit';
import { pathVariants, routeSpellingMismatches } from '@platform/kit/testing';
import { useHarness } from './support.js';

const INTERNAL = '/v1/internal/auth-events';

describe('route access by the route that runs', () => {
  const h = useHarness();

  const answer = async (method: string, url: string, token?: string, body?: unknown) => {
    const r = await h.app.inject({
      method: method as 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    let code: string | undefined;
    try {
      code = r.json().code;
    } catch {
      code = undefined;
    }
    return { status: r.statusCode, code };
  };

  it('no spelling of the internal route erases a user for a player token; a server token still can', async () => {
    const [victim, friend] = await h.users('Victim', 'Friend');
    await h.req(victim, 'POST', '/v1/friends/requests', { body: { toPublicId: friend.publicId } });
    await h.req(friend, 'POST', `/v1/friends/requests/${victim.publicId}/accept`);
    const attacker = await h.user('Attacker');
    const notice = () => ({ id: randomUUID(), type: 'account.deleted', account_id: victim.sub });
    const variants = [...pathVariants(INTERNAL), { kind: 'plain', path: INTERNAL }];
    assert.ok(variants.some((v) => v.path === '/v1/%69nternal/auth-events'));
    for (const v of variants) {
      const r = await answer('POST', v.path, attacker.token, notice());
      assert.ok([403, 404].includes(r.status), `${v.kind} ${v.path}: ${r.status} ${r.code}`);
      const rot = await answer('POST', v.path, attacker.token, { id: randomUUID(), type: 'key_rotation' });
      assert.ok([403, 404].includes(rot.status), `${v.kind} ${v.path} key_rotation: ${rot.status}`);
    }
    const me = await h.req(victim, 'GET', '/v1/me');
    assert.equal(me.body.publicId, victim.publicId, 'the victim keeps their publicId');
    const friends = await h.req(victim, 'GET', '/v1/friends');
    assert.equal(friends.body.length, 1, 'the victim keeps their friend');
    const fetchesBefore = h.keys.fetches;
    for (const v of pathVariants(INTERNAL)) await answer('POST', v.path, attacker.token, { id: randomUUID(), type: 'key_rotation' });
    assert.equal(h.keys.fetches, fetchesBefore, 'no key-set refetch for a player');

    // The route itself works for its server caller, the auth service (plain and encoded spelling alike).
    const server = await h.keys.sign('service:auth', { roles: ['server'] });
    const ok = await answer('POST', '/v1/%69nternal/auth-events', server, notice());
    assert.deepEqual(ok, { status: 200, code: undefined });
    assert.notEqual((await h.req(victim, 'GET', '/v1/me')).body.publicId, victim.publicId, 'erased by the server notice');
  });

  it('each internal route names one server identity and refuses every other (403), whatever the notice', async () => {
    const internal = routesOf(h.app).filter((r) => r.access === 'internal');
    assert.deepEqual(internal.map((r) => `${r.method} ${r.url} ${r.caller}`).sort(), [
      'POST /v1/internal/auth-events service:auth',
      'POST /v1/internal/notifications service:moderation',
    ]);
    const [victim, friend] = await h.users('Victim2', 'Friend2');
    await h.req(victim, 'POST', '/v1/friends/requests', { body: { toPublicId: friend.publicId } });
    await h.req(friend, 'POST', `/v1/friends/requests/${victim.publicId}/accept`);
    const now = new Date();
    const bodies: Record<string, unknown[]> = {
      '/v1/internal/auth-events': [
        { id: randomUUID(), type: 'account.deleted', account_id: victim.sub },
        { id: randomUUID(), type: 'key_rotation' },
        { id: randomUUID(), type: 'revocation', reason: 'logout', scope: 'account', account_id: victim.sub, sids: [], revoked_at: now.toISOString(), until: new Date(now.getTime() + 600_000).toISOString() },
        { id: randomUUID(), type: 'sanction', event: 'applied', sanction_id: randomUUID(), account_id: victim.sub, sanction_type: 'chat', expires_at: null },
      ],
      '/v1/internal/notifications': [{ noticeId: randomUUID(), publicId: victim.publicId, message: 'forged' }],
    };
    const fetches = h.keys.fetches;
    for (const route of internal) {
      // The registry's token, a game server's, the other internal route's caller, a look-alike name.
      const others = ['service:registry', `service:game-${randomUUID()}`, 'service:Auth', 'auth', ...internal.map((r) => r.caller!)].filter((c) => c !== route.caller);
      for (const sub of others) {
        const token = await h.keys.sign(sub, { roles: ['server'] });
        for (const body of bodies[route.url]) assert.deepEqual(await answer('POST', route.url, token, body), { status: 403, code: 'forbidden' }, `${sub} on ${route.url}`);
      }
    }
    assert.equal(h.keys.fetches, fetches, 'no key-set refetch for another caller');
    // Nothing happened: the victim keeps profile, friend, chat and an unrevoked token; no notice was stored.
    assert.equal((await h.req(victim, 'GET', '/v1/me')).body.publicId, victim.publicId);
    assert.equal((await h.req(victim, 'GET', '/v1/friends')).body.length, 1);
    const dm = (await h.req(victim, 'GET', '/v1/friends')).body[0].dmChannelId;
    assert.equal((await h.req(victim, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: 'still here' } })).status, 201);
    assert.equal((await h.req(victim, 'GET', '/v1/notifications')).body.notifications.length, 1, 'only the acceptance');
  });

  it('every route answers every spelling of its path as the plain path, or reaches no route', async () => {
    assert.ok(routesOf(h.app).some((r) => r.url === INTERNAL && r.access === 'internal'));
    const { walked, mismatches } = await routeSpellingMismatches(h.app, {
      // No credentials, and a fresh player per request (a state change such as DELETE /v1/me cannot change the next answer).
      callers: [async () => ({}), async () => ({ authorization: `Bearer ${await h.keys.sign(`acct-${randomUUID()}`)}` })],
      sample: (name) => (name === 'kind' ? 'party' : randomUUID()),
    });
    assert.ok(walked > 40, `walked ${walked} routes`);
    assert.deepEqual(mismatches, []);
  });

  it('answers a browser preflight without credentials (CORS, embedded default: localhost origins)', async () => {
    const r = await h.app.inject({
      method: 'OPTIONS',
      url: '/v1/me',
      headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(r.statusCode, 204);
    assert.equal(r.headers['access-control-allow-origin'], 'http://localhost:8080');
    const me = await h.app.inject({ method: 'GET', url: '/v1/me', headers: { origin: 'http://localhost:8080' } });
    assert.equal(me.statusCode, 401);
    assert.equal(me.headers['access-control-allow-origin'], 'http://localhost:8080');
  });

  it('an unknown path answers 404 without credentials', async () => {
    assert.deepEqual(await answer('GET', '/v1/nothing-here'), { status: 404, code: 'route_not_found' });
    assert.deepEqual(await answer('GET', '/v1/%6de'), { status: 401, code: 'unauthorized' });
  });
});
