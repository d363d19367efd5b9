// Guest safety (docs/auth.md, "Guests"; docs/decisions/0022-guest-safety.md): the `guest` claim of a guest's tokens
// (gone once the account upgrades), change_email refused to guests with what upgrading unlocks, and the guest abuse
// score: its signals (creations per device and network, failed restores, sanctions), its decay, its thresholds (guest
// creation limited harder, then refused), staff seeing it with its reasons, the player never, and an upgrade never
// blocked by it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { GUEST_FEATURES } from '@platform/kit';
import { bearer, email, fingerprint, GOOD_PASSWORD, harness, withRoles, type Harness } from './support/harness.js';

/** A fresh /24 per test, so the network signal of one test does not reach another. */
let nets = 0;
const network = () => `10.${(process.pid % 200) + 1}.${++nets}`;

/** The claims of a token, PASETO v4.public or JWT (read, not verified: the service's verifier is tested elsewhere). */
function claimsOf(token: string): Record<string, unknown> {
  if (token.startsWith('v4.public.')) return JSON.parse(Buffer.from(token.split('.')[2], 'base64url').subarray(0, -64).toString('utf8'));
  return decodeJwt(token);
}

const LIMITS = {
  AUTH_RATE_GENERAL_PER_IP: '100000',
  AUTH_RATE_GUEST_PER_IP: '100000',
  AUTH_RATE_GUEST_PER_DEVICE: '100000',
  AUTH_RATE_LOGIN_PER_IP: '100000',
  AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000',
};

for (const format of ['paseto', 'jwt'] as const) {
  describe(`the guest claim (${format})`, () => {
    let h: Harness;
    before(async () => {
      h = await harness({ ...LIMITS, AUTH_TOKEN_FORMAT: format });
    });
    after(() => h.close());

    it('a guest’s tokens carry guest: true (sign-up, refresh, restore); after an upgrade the next token has no guest claim', async () => {
      const ip = `${network()}.1`;
      const device = fingerprint();
      const g = await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: device }, remoteAddress: ip });
      assert.equal(g.statusCode, 200, g.body);
      const guest = g.json();
      assert.equal(claimsOf(guest.access_token).guest, true);
      const refreshed = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: guest.refresh_token }, remoteAddress: ip });
      assert.equal(claimsOf(refreshed.json().access_token).guest, true);
      const restored = await h.app.inject({
        method: 'POST',
        url: '/guest/restore',
        payload: { account_id: guest.account_id, guest_secret: guest.guest_secret, device_fingerprint: device },
        remoteAddress: ip,
      });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.equal(claimsOf(restored.json().access_token).guest, true);

      const link = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(refreshed.json().access_token), payload: { email: email(), password: GOOD_PASSWORD }, remoteAddress: ip });
      assert.equal(link.statusCode, 200, link.body);
      const after = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: refreshed.json().refresh_token }, remoteAddress: ip });
      assert.equal(after.statusCode, 200, after.body);
      assert.equal('guest' in claimsOf(after.json().access_token), false);
    });

    it('an email account’s tokens carry no guest claim', async () => {
      const e = email();
      const r = await h.app.inject({ method: 'POST', url: '/register', payload: { email: e, password: GOOD_PASSWORD }, remoteAddress: `${network()}.1` });
      assert.equal(r.statusCode, 201, r.body);
      assert.equal('guest' in claimsOf(r.json().access_token), false);
    });
  });
}

describe('guest restrictions in auth', () => {
  let h: Harness;
  before(async () => {
    h = await harness(LIMITS);
  });
  after(() => h.close());

  it('POST /account/email: a guest is refused 403 guest_restricted naming the feature and what upgrading unlocks; once upgraded, not', async () => {
    const ip = `${network()}.1`;
    const g = (await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fingerprint() }, remoteAddress: ip })).json();
    const change = (token: string) =>
      h.app.inject({ method: 'POST', url: '/account/email', headers: bearer(token), payload: { email: email(), password: GOOD_PASSWORD }, remoteAddress: ip });
    const refused = await change(g.access_token);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.deepEqual(
      { code: refused.json().code, feature: refused.json().feature, unlocks: refused.json().unlocks },
      { code: 'guest_restricted', feature: 'change_email', unlocks: GUEST_FEATURES.change_email.unlocks },
    );
    // Upgraded: the same (not yet refreshed) token may change the address (auth reads the account, not the claim).
    const link = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { email: email(), password: GOOD_PASSWORD }, remoteAddress: ip });
    assert.equal(link.statusCode, 200, link.body);
    const allowed = await change(g.access_token);
    assert.equal(allowed.statusCode, 202, allowed.body);
  });

  it('an account that never was a guest and has no email keeps identity_not_found; bad input is still 400', async () => {
    const g = (await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fingerprint() } })).json();
    await h.tdb.db.query(`UPDATE accounts SET is_guest = false WHERE id = $1`, [g.account_id]);
    const r = await h.app.inject({ method: 'POST', url: '/account/email', headers: bearer(g.access_token), payload: { email: email(), password: GOOD_PASSWORD } });
    assert.deepEqual([r.statusCode, r.json().code], [404, 'identity_not_found']);
    const bad = await h.app.inject({ method: 'POST', url: '/account/email', headers: bearer(g.access_token), payload: { email: email(), password: GOOD_PASSWORD, guest: true } });
    assert.equal(bad.statusCode, 400, bad.body);
  });
});

describe('guest abuse score', () => {
  let h: Harness;
  let moderator: { token: string };
  // Small thresholds: 3 creations on a device (weight 1 each) reach slow; a failed restore weighs 2.
  before(async () => {
    h = await harness({ ...LIMITS, AUTH_GUEST_SCORE_SLOW: '3', AUTH_GUEST_SCORE_REFUSE: '6', AUTH_RATE_GUEST_SCORED: '1' });
    moderator = await withRoles(h, ['player', 'moderator']);
  });
  after(() => h.close());

  const createGuest = (device: string, ip: string) => h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: device }, remoteAddress: ip });
  const failRestore = (device: string, ip: string) =>
    h.app.inject({
      method: 'POST',
      url: '/guest/restore',
      payload: { account_id: randomUUID(), guest_secret: randomBytes(16).toString('hex'), device_fingerprint: device },
      remoteAddress: ip,
    });
  const lookup = async (accountId: string) => {
    const r = await h.app.inject({ method: 'GET', url: `/admin/accounts/${accountId}`, headers: bearer(moderator.token) });
    assert.equal(r.statusCode, 200, r.body);
    return r.json().guest_score as { score: number; level: string; reasons: { subject: string; signal: string; value: number; events: number; last_at: string }[] };
  };

  it('creations on one device: from the slow threshold limited harder (429), then refused (403 guest_creation_refused); restore and upgrade still work', async () => {
    const net = network();
    const device = fingerprint();
    const first = await createGuest(device, `${net}.1`);
    assert.equal(first.statusCode, 200, first.body);
    for (let i = 0; i < 2; i++) assert.equal((await createGuest(device, `${net}.1`)).statusCode, 200);
    // Score 3 (slow): one creation per window from this device, the next is rate-limited.
    assert.equal((await createGuest(device, `${net}.1`)).statusCode, 200);
    const limited = await createGuest(device, `${net}.1`);
    assert.deepEqual([limited.statusCode, limited.json().code], [429, 'rate_limited']);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    // Another device on the same network is not slowed (the network's own score is 0.08).
    assert.equal((await createGuest(fingerprint(), `${net}.2`)).statusCode, 200);

    // Two failed restores from the device (2 each): 8, refused.
    for (let i = 0; i < 2; i++) assert.equal((await failRestore(device, `${net}.1`)).statusCode, 401);
    const refused = await createGuest(device, `${net}.1`);
    assert.deepEqual([refused.statusCode, refused.json().code], [403, 'guest_creation_refused']);
    // The player is never told the score.
    assert.doesNotMatch(refused.body, /score|\d+(\.\d+)?\s*(points|of)/i);
    assert.deepEqual(Object.keys(refused.json()).sort(), ['code', 'message', 'request_id']);

    // The first guest of that device restores and upgrades to an email account all the same.
    const g = first.json();
    const restored = await h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: device }, remoteAddress: `${net}.1` });
    assert.equal(restored.statusCode, 200, restored.body);
    const link = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(restored.json().access_token), payload: { email: email(), password: GOOD_PASSWORD }, remoteAddress: `${net}.1` });
    assert.equal(link.statusCode, 200, link.body);
    assert.equal(link.json().identities.some((i: { provider: string }) => i.provider === 'email'), true);
  });

  it('a network: failed restores from many devices slow guest creation for every device of that /24', async () => {
    const net = network();
    // 0.5 per failed restore on the network: 7 of them are over 3 (6 would be 3 less the decay of the moments between).
    for (let i = 0; i < 7; i++) assert.equal((await failRestore(fingerprint(), `${net}.${10 + i}`)).statusCode, 401);
    assert.equal((await createGuest(fingerprint(), `${net}.50`)).statusCode, 200);
    const limited = await createGuest(fingerprint(), `${net}.51`);
    assert.deepEqual([limited.statusCode, limited.json().code], [429, 'rate_limited']);
    // Another network is untouched.
    assert.equal((await createGuest(fingerprint(), `${network()}.1`)).statusCode, 200);
  });

  it('staff see the score and its reasons; the player’s own account view has no score; signals decay with the half-life', async () => {
    const net = network();
    const device = fingerprint();
    const g = (await createGuest(device, `${net}.1`)).json();
    assert.equal((await failRestore(device, `${net}.1`)).statusCode, 401);
    const s = await lookup(g.account_id);
    const reason = (signal: string) => s.reasons.find((r) => r.subject === 'device' && r.signal === signal);
    assert.ok(Math.abs(reason('guest_created')!.value - 1) < 0.01, JSON.stringify(s));
    assert.ok(Math.abs(reason('restore_failed')!.value - 2) < 0.01, JSON.stringify(s));
    assert.equal(reason('restore_failed')!.events, 1);
    assert.ok(Math.abs(s.score - 3) < 0.02);
    assert.equal(s.level, 'slow');

    const own = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(g.access_token) });
    assert.equal(own.statusCode, 200);
    assert.doesNotMatch(own.body, /score|restore_failed|guest_created/);

    // One half-life later (the rows back-dated by 168 h, the default): half of each.
    await h.tdb.db.query(`UPDATE guest_signals SET as_of = as_of - interval '168 hours' WHERE subject = (SELECT fingerprint_hash FROM devices WHERE account_id = $1)`, [g.account_id]);
    const later = await lookup(g.account_id);
    assert.ok(Math.abs(later.score - 1.5) < 0.02, JSON.stringify(later));
    assert.equal(later.level, 'normal');
    // A new event adds to the decayed value, not to the old one.
    assert.equal((await failRestore(device, `${net}.1`)).statusCode, 401);
    const again = (await lookup(g.account_id)).reasons.find((r) => r.subject === 'device' && r.signal === 'restore_failed')!;
    assert.ok(Math.abs(again.value - 3) < 0.02, JSON.stringify(again));
    assert.equal(again.events, 2);
  });

  it('a sanction scores the account and the devices it signed in on: over the refuse threshold, the device makes no more guests; decayed rows are purged', async () => {
    const net = network();
    const device = fingerprint();
    const g = (await createGuest(device, `${net}.1`)).json();
    const sanction = await h.app.inject({
      method: 'POST',
      url: `/admin/accounts/${g.account_id}/sanctions`,
      headers: bearer(moderator.token),
      payload: { type: 'chat', reason: 'Spam', duration_seconds: 600 },
    });
    assert.equal(sanction.statusCode, 201, sanction.body);
    const s = await lookup(g.account_id);
    assert.deepEqual(
      s.reasons.filter((r) => r.signal === 'sanctioned').map((r) => [r.subject, r.value]).sort(),
      [
        ['account', 10],
        ['device', 10],
      ],
    );
    assert.equal(s.level, 'refuse');
    const refused = await createGuest(device, `${net}.1`);
    assert.deepEqual([refused.statusCode, refused.json().code], [403, 'guest_creation_refused']);
    // The purge keeps rows that still weigh something.
    const before = (await h.tdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM guest_signals`)).rows[0].n;
    await h.tdb.db.query(`UPDATE guest_signals SET as_of = as_of - interval '100 days' WHERE subject = $1`, [g.account_id]);
    const { purgeDecayedGuestSignals } = await import('../src/services/retention.js');
    assert.equal(await purgeDecayedGuestSignals(h.app.auth), 1);
    assert.equal((await h.tdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM guest_signals`)).rows[0].n, before - 1);
  });

  it('the staff lookup: an unknown account is 404, a player’s token 403', async () => {
    const r = await h.app.inject({ method: 'GET', url: `/admin/accounts/${randomUUID()}`, headers: bearer(moderator.token) });
    assert.equal(r.statusCode, 404);
    const g = (await createGuest(fingerprint(), `${network()}.1`)).json();
    const player = await h.app.inject({ method: 'GET', url: `/admin/accounts/${g.account_id}`, headers: bearer(g.access_token) });
    assert.equal(player.statusCode, 403);
  });
});

describe('guest abuse score settings', () => {
  it('AUTH_GUEST_SCORE_SLOW above AUTH_GUEST_SCORE_REFUSE is refused at start', async () => {
    const { readAuthConfig } = await import('../src/config.js');
    assert.throws(() => readAuthConfig({ AUTH_GUEST_SCORE_SLOW: '60', AUTH_GUEST_SCORE_REFUSE: '50' }), /AUTH_GUEST_SCORE_SLOW must not exceed AUTH_GUEST_SCORE_REFUSE/);
    const c = readAuthConfig({});
    assert.deepEqual([c.guestScoreSlow, c.guestScoreRefuse, c.guestScoreHalfLifeHours, c.rateGuestScored], [20, 50, 168, 1]);
  });
});
