// Revocation through the outbox alone (separate state stores: `npm start`, separate deployments), and the
// revocation notices social's internal route refuses. Scenarios: revocation-support.ts.
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { serviceToken } from '@platform/auth';
import type { Platform } from '../src/index.js';
import { scenarios } from './revocation-support.js';

/** Notices to POST /v1/internal/auth-events: processed, refused with 4xx, wrong credentials. */
function internalRouteTests(platform: () => Platform) {
  let p: Platform;
  let server: string;
  before(async () => {
    p = platform();
    server = await serviceToken(p.auth.app.auth.config, p.auth.app.auth.keys);
  });

  const notice = (over: Record<string, unknown> = {}) => ({
    id: randomUUID(),
    type: 'revocation',
    reason: 'logout',
    scope: 'session',
    account_id: randomUUID(),
    sids: [randomUUID()],
    revoked_at: new Date().toISOString(),
    until: new Date(Date.now() + 660_000).toISOString(),
    ...over,
  });
  const post = (body: unknown, token: string | null = server) => p.social.call('POST', '/v1/internal/auth-events', { body, token: token ?? undefined });

  it('a well-formed notice is processed, again on redelivery', async () => {
    const n = notice();
    for (let i = 0; i < 2; i++) assert.deepEqual((await post(n)).body, { status: 'processed' });
  });

  it('bad notices are 4xx with a stable code', async () => {
    const cases: [unknown, number, string][] = [
      [notice({ sids: undefined }), 400, 'validation_failed'],
      [notice({ scope: undefined }), 400, 'validation_failed'],
      [notice({ until: undefined }), 400, 'validation_failed'],
      [notice({ account_id: undefined }), 400, 'validation_failed'],
      [notice({ scope: 'everything' }), 400, 'validation_failed'],
      [notice({ sids: 'x' }), 400, 'validation_failed'],
      [notice({ sids: ['not-a-uuid'] }), 400, 'validation_failed'],
      [notice({ sids: Array.from({ length: 501 }, () => randomUUID()) }), 400, 'validation_failed'],
      [notice({ revoked_at: 'yesterday' }), 400, 'validation_failed'],
      [notice({ until: new Date(Date.now() - 3_600_000).toISOString() }), 400, 'validation_failed'],
      [notice({ extra: 1 }), 400, 'validation_failed'],
      [notice({ reason: 'lo\u0000gout' }), 400, 'invalid_character'],
      [notice({ sids: [randomUUID()], account_id: 'x'.repeat(201) }), 400, 'validation_failed'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post(body);
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(body).slice(0, 200));
    }
    const node = await p.addSocialNode();
    const malformed = await node.app.inject({
      method: 'POST',
      url: '/v1/internal/auth-events',
      headers: { authorization: `Bearer ${server}`, 'content-type': 'application/json' },
      payload: '{"type":"revocation",',
    });
    assert.deepEqual([malformed.statusCode, malformed.json().code], [400, 'malformed_json']);
    const big = await post(notice({ reason: 'x'.repeat(70_000) }));
    assert.equal(big.status, 413);
  });

  it('wrong credentials: none 401, a player token 403', async () => {
    assert.equal((await post(notice(), null)).status, 401);
    const player = (await p.auth.call('POST', '/guest', { body: { device_fingerprint: `device-${randomBytes(6).toString('hex')}` } })).body.access_token;
    assert.deepEqual((await post(notice(), player)).body.code, 'forbidden');
  });
}

scenarios('revocation through the outbox (no shared bus)', {}, (p) => internalRouteTests(p));
