// A guest's standing across the real services (docs/social.md, "Guest restrictions"; docs/auth.md, "Guest abuse
// score"): auth scores a guest account by its signals (here, wrong guest secrets from its device); social asks auth
// for the account's standing (GET /internal/accounts/{id}: the level only) and slows the guest's sensitive actions at
// `slow` (429 rate_limited past Social:Guests:SlowActionsPerHour) and refuses them at `refuse` (403 guest_restricted,
// naming what upgrading unlocks, never the score). An upgrade ends both: an account that is no guest is never asked.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startPlatform, type Platform } from '../src/index.js';
import { guest } from './revocation-support.js';

describe('guest standing: auth scores, social slows and refuses', () => {
  let p: Platform;
  before(async () => {
    p = await startPlatform({
      authEnv: { AUTH_GUEST_SCORE_SLOW: '2', AUTH_GUEST_SCORE_REFUSE: '4' },
      socialEnv: { SOCIAL_GUEST_STANDING_CACHE_SECONDS: '0', SOCIAL_GUEST_SLOW_ACTIONS_PER_HOUR: '2' },
    });
  });
  after(async () => p?.close());

  it('normal → slow (limited per hour) → refuse (403 guest_restricted); the upgrade lifts it', async () => {
    const g = await guest(p);
    const createParty = async (token = g.token) => {
      const r = await p.social.call('POST', '/v1/parties', { token, body: { visibility: 'Public' } });
      if (r.status === 201) assert.equal((await p.social.call('POST', `/v1/parties/${r.body.partyId}/leave`, { token })).status, 200);
      return r;
    };
    const wrongSecret = async () => {
      const r = await p.auth.call('POST', '/guest/restore', { body: { account_id: g.accountId, guest_secret: 'not-the-secret', device_fingerprint: g.fingerprint } });
      assert.equal(r.status, 401);
    };
    // Normal (the device made one guest: 1 < 2): no limit of the standing's.
    for (let i = 0; i < 3; i++) assert.equal((await createParty()).status, 201);
    // One wrong secret from its device (+2: 3): slow — two an hour, then 429.
    await wrongSecret();
    for (let i = 0; i < 2; i++) assert.equal((await createParty()).status, 201, `slow ${i}`);
    const slowed = await createParty();
    assert.deepEqual([slowed.status, slowed.body.code], [429, 'rate_limited'], JSON.stringify(slowed.body));
    assert.ok(Number(slowed.headers['retry-after']) > 0);
    // Another (+2: 5): refuse — as a listed restriction reads, no score, no reason.
    await wrongSecret();
    const refused = await createParty();
    assert.deepEqual([refused.status, refused.body.code, refused.body.feature], [403, 'guest_restricted', 'party_create'], JSON.stringify(refused.body));
    assert.ok(!/score|standing|abuse/i.test(JSON.stringify(refused.body)), 'the answer names no score');
    // Reading stays open: the standing gates sensitive actions only.
    assert.equal((await p.social.call('GET', '/v1/me', { token: g.token })).status, 200);
    // The upgrade is never refused, and lifts the standing's gate (the new token carries no guest claim).
    const linked = await p.auth.call('POST', '/account/link', { token: g.token, body: { email: `standing-${Date.now()}@e2e.test`, password: 'correct horse battery staple' } });
    assert.ok([200, 201].includes(linked.status), JSON.stringify(linked.body));
    const refreshed = await p.auth.call('POST', '/refresh', { body: { refresh_token: g.refresh } });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal((await createParty(refreshed.body.access_token)).status, 201);
  });
});
