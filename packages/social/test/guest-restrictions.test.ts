// Guest restrictions (docs/social.md, "Guest restrictions"; docs/decisions/0022-guest-safety.md): a guest account (the
// token's `guest: true` claim) is refused the restricted features with 403 guest_restricted naming the feature and
// what upgrading unlocks, over HTTP and the socket; the same account with an upgraded token (no claim) is not. What is
// restricted: the deployment's SOCIAL_GUEST_RESTRICTED (default friend_requests_over_limit and reports), replaced by
// a game's GuestRestricted (from the registry, here its stand-in; the real registry: registry.serial.test.ts).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GUEST_FEATURES, type GuestFeature } from '@platform/kit';
import { readSocialConfig } from '../src/config.js';
import { startHarness, type Game, type Harness, type TestUser } from './support.js';
import { connect, listen, type Client } from './realtime/support.js';

const LIMITS = { SOCIAL_RATE_ACTIONS_PER_MINUTE: '1000', SOCIAL_RATE_CHAT_PER_MINUTE: '1000' };

function assertRestricted(r: { status: number; body: any }, feature: GuestFeature) {
  assert.equal(r.status, 403, JSON.stringify(r.body));
  assert.deepEqual(
    { code: r.body.code, feature: r.body.feature, unlocks: r.body.unlocks },
    { code: 'guest_restricted', feature, unlocks: GUEST_FEATURES[feature].unlocks },
  );
  assert.equal(typeof r.body.message, 'string');
}

/** The same account with the token it gets after upgrading (refreshed: no guest claim). */
async function upgraded(h: Harness, u: TestUser): Promise<TestUser> {
  return { ...u, token: await h.keys.sign(u.sub) };
}

describe('guest restrictions: the deployment default', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ ...LIMITS, SOCIAL_GUEST_FRIEND_REQUESTS_PER_DAY: '2' });
  });
  after(async () => {
    h.assertNoAccountIds();
    await h.close();
  });

  it('reports: a guest is refused (whoever the target, even none), a player and the upgraded guest are not', async () => {
    const guest = await h.user('GuestReporter', { guest: true });
    const [target, player] = await h.users('Target', 'PlainReporter');
    const report = (u: TestUser, body: Record<string, unknown> = { targetPublicId: target.publicId, reason: 'spam' }) => h.req(u, 'POST', '/v1/reports', { body });
    assertRestricted(await report(guest), 'reports');
    assertRestricted(await report(guest, { targetHandle: 'Nobody#0000', reason: 'spam' }), 'reports');
    // Bad input is still bad input (the body is checked first).
    assert.equal((await h.req(guest, 'POST', '/v1/reports', { raw: '{"targetPublicId":' })).status, 400);
    assert.equal((await report(guest, { targetPublicId: target.publicId, reason: 'spam', extra: 1 })).body.code, 'validation_failed');
    assert.equal((await report(player)).status, 202);
    assert.equal((await report(await upgraded(h, guest))).status, 202);
  });

  it('friend requests: a guest sends SOCIAL_GUEST_FRIEND_REQUESTS_PER_DAY a day, then guest_restricted; refused ones do not count; upgraded, more', async () => {
    const guest = await h.user('GuestFriender', { guest: true });
    const others = await h.users('Fa', 'Fb', 'Fc', 'Fd');
    const ask = (u: TestUser, to: TestUser | { publicId: string }) => h.req(u, 'POST', '/v1/friends/requests', { body: { toPublicId: to.publicId } });
    // A request refused for another reason is not one of the day's.
    assert.equal((await ask(guest, guest)).body.code, 'cannot_friend_self');
    assert.equal((await ask(guest, { publicId: 'no-such-user' })).status, 404);
    assert.equal((await ask(guest, others[0])).status, 201);
    assert.equal((await ask(guest, others[1])).status, 201);
    assertRestricted(await ask(guest, others[2]), 'friend_requests_over_limit');
    // Accepting requests sent to the guest is not limited.
    assert.equal((await ask(others[3], guest)).status, 201);
    assert.equal((await h.req(guest, 'POST', `/v1/friends/requests/${others[3].publicId}/accept`)).status, 200);
    assert.equal((await ask(await upgraded(h, guest), others[2])).status, 201);
    // A player is not counted at all.
    const player = await h.user('PlainFriender');
    for (const o of others.slice(0, 3)) assert.equal((await ask(player, o)).status, 201);
  });

  it('parties and party chat are not restricted by default', async () => {
    const guest = await h.user('GuestLeader', { guest: true });
    const party = await h.req(guest, 'POST', '/v1/parties', { body: { visibility: 'Public' } });
    assert.equal(party.status, 201, JSON.stringify(party.body));
    const sent = await h.req(guest, 'POST', `/v1/chat/party/${party.body.partyId}/messages`, { body: { body: 'hi' } });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
  });

  it('an API-key caller asserts a user, not a guest: never restricted', async () => {
    const h2 = await startHarness({ SOCIAL_AUTH_API_KEY: 'an-api-key-of-16-chars-or-more' });
    try {
      const target = await h2.user('KeyTarget');
      const r = await h2.req(null, 'POST', '/v1/reports', {
        body: { targetPublicId: target.publicId, reason: 'spam' },
        headers: { 'x-api-key': 'an-api-key-of-16-chars-or-more', 'x-user-id': 'acct-api-key-reporter' },
      });
      assert.equal(r.status, 202, JSON.stringify(r.body));
    } finally {
      await h2.close();
    }
  });
});

describe('guest restrictions: SOCIAL_GUEST_RESTRICTED', () => {
  let h: Harness;
  let node: { ws: string; http: string };
  const clients: Client[] = [];
  before(async () => {
    h = await startHarness({ ...LIMITS, SOCIAL_GUEST_RESTRICTED: 'party_create,party_chat' });
    node = await listen(h.app);
  });
  after(async () => {
    for (const c of clients) c.ws.terminate();
    await h.close();
  });

  it('party_create and party_chat (HTTP and socket) refused to a guest, allowed once upgraded (a new token on the socket too); reports and friend requests not restricted', async () => {
    const leader = await h.user('Leader');
    const guest = await h.user('GuestMember', { guest: true });
    assertRestricted(await h.req(guest, 'POST', '/v1/parties', { body: {} }), 'party_create');
    const party = (await h.req(leader, 'POST', '/v1/parties', { body: { visibility: 'Public' } })).body;
    // Joining is not restricted; talking to members who are not friends is.
    assert.equal((await h.req(guest, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} })).status, 200);
    assertRestricted(await h.req(guest, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'hello' } }), 'party_chat');

    const c = await connect(node.ws, guest.token);
    clients.push(c);
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    c.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'hello' });
    const refused = await c.next('error', (d) => d.code === 'guest_restricted');
    assert.deepEqual({ ...refused.data, message: undefined }, { code: 'guest_restricted', message: undefined, feature: 'party_chat', unlocks: GUEST_FEATURES.party_chat.unlocks });
    // The upgraded account's token replaces the socket's credential: its messages go through.
    const after = await upgraded(h, guest);
    c.send({ type: 'authenticate', token: after.token });
    await c.next('authenticated');
    c.send({ type: 'chatSend', channel: 'party', channelId: party.partyId, body: 'hello again' });
    assert.equal((await c.next('chatMessage', (d) => d.body === 'hello again')).data.fromPublicId, guest.publicId);
    assert.equal((await h.req(after, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'over HTTP' } })).status, 201);

    // Not restricted here.
    const target = await h.user('Reported');
    assert.equal((await h.req(guest, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'spam' } })).status, 202);
    for (let i = 0; i < 12; i++) {
      const o = await h.user(`Friendly${i}`);
      assert.equal((await h.req(guest, 'POST', '/v1/friends/requests', { body: { toPublicId: o.publicId } })).status, 201);
    }
  });

  it('none restricts nothing; unknown or auth-only names stop the service at start', async () => {
    assert.deepEqual(readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'https://auth/.well-known/jwks.json', SOCIAL_GUEST_RESTRICTED: 'none' }).guestRestricted, []);
    assert.deepEqual(readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'https://auth/.well-known/jwks.json' }).guestRestricted, ['friend_requests_over_limit', 'reports', 'group_create']);
    assert.equal(readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'https://auth/.well-known/jwks.json' }).guestFriendRequestsPerDay, 10);
    for (const bad of ['change_email', 'reports,dm_strangers']) {
      assert.throws(() => readSocialConfig({ SOCIAL_AUTH_JWKS_URL: 'https://auth/.well-known/jwks.json', SOCIAL_GUEST_RESTRICTED: bad }), /SOCIAL_GUEST_RESTRICTED.*not a social guest feature/);
    }
    const h2 = await startHarness({ SOCIAL_GUEST_RESTRICTED: 'none' });
    try {
      const guest = await h2.user('FreeGuest', { guest: true });
      const target = await h2.user('FreeTarget');
      assert.equal((await h2.req(guest, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'spam' } })).status, 202);
      assert.equal((await h2.req(guest, 'POST', '/v1/parties', { body: {} })).status, 201);
    } finally {
      await h2.close();
    }
  });
});

describe('guest restrictions: a game’s own list', () => {
  let h: Harness;
  let strict: Game;
  let open: Game;
  let unset: Game;
  before(async () => {
    h = await startHarness(LIMITS);
    strict = h.registry.addGame('isolated', ['party_create']);
    open = h.registry.addGame('isolated', []);
    unset = h.registry.addGame('isolated', null);
  });
  after(() => h.close());

  it('replaces the deployment’s (by game key and secret, and by client key); null and no game use the deployment’s', async () => {
    const guest = await h.user('GameGuest', { guest: true });
    const target = await h.user('GameTarget');
    const report = (o: { game?: Game; clientKey?: string }) => h.req(guest, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'spam' }, ...o });
    // The strict game restricts party creation only: reports are allowed there.
    assert.equal((await report({ game: strict })).status, 202);
    assert.equal((await report({ clientKey: strict.clientKey })).status, 202);
    assertRestricted(await h.req(guest, 'POST', '/v1/parties', { body: {}, game: strict }), 'party_create');
    assertRestricted(await h.req(guest, 'POST', '/v1/parties', { body: {}, clientKey: strict.clientKey }), 'party_create');
    // The open game restricts nothing.
    assert.equal((await report({ game: open })).status, 202);
    // A game without a list, and no game at all: the deployment's (reports restricted).
    assertRestricted(await report({ game: unset }), 'reports');
    assertRestricted(await report({}), 'reports');
    // The upgraded account is restricted nowhere.
    const after = await upgraded(h, guest);
    const party = await h.req(after, 'POST', '/v1/parties', { body: {}, game: strict });
    assert.equal(party.status, 201, JSON.stringify(party.body));
    // Another game's credentials are not these: a wrong secret is 401, not a restriction.
    assert.equal((await h.req(guest, 'POST', '/v1/parties', { body: {}, game: { ...strict, secret: 'wrong' } })).status, 401);
  });
});
