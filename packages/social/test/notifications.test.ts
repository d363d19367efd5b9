// The notification inbox: every kind stored for an offline recipient (and actionable from its ids), pages
// newest first behind cursors, the unread filter and count, read one / read all / delete, the live
// `notification` frame on a real socket, mutes and blocks, erasure and export, retention and the per-user cap,
// moderation notices from a server caller, and bad input of every kind.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { purgeNotifications } from '../src/services/notifications.js';
import { MODERATION_CALLER } from '../src/routes/notifications.js';
import { befriend, startHarness, type Harness, type TestUser } from './support.js';
import { connect, listen, startSecondNode, type Client } from './realtime/support.js';

const CAP = 12;

describe('notifications', () => {
  let h: Harness;
  let url: { ws: string; http: string };
  let server: string;
  let authServer: string;
  const clients: Client[] = [];
  const users: TestUser[] = [];
  const user = async (name: string) => {
    const u = await h.user(name);
    users.push(u);
    return u;
  };
  const inbox = async (u: TestUser, query = '') => {
    const r = await h.req(u, 'GET', `/v1/notifications${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { notifications: any[]; nextCursor?: string; unreadCount: number };
  };
  const moderate = (body: Record<string, unknown>, token = server) =>
    h.req(null, 'POST', '/v1/internal/notifications', { body, headers: { authorization: `Bearer ${token}` } });
  const notice = (u: TestUser, message: string) => moderate({ noticeId: randomUUID(), publicId: u.publicId, message });
  const expectCode = (r: { status: number; body: any }, status: number, code: string) => {
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.code, code, JSON.stringify(r.body));
  };

  before(async () => {
    h = await startHarness({ SOCIAL__LIMITS__ACTIONSPERMINUTE: '1000', SOCIAL__NOTIFICATIONS__MAXPERUSER: String(CAP) });
    url = await listen(h.app);
    server = await h.keys.sign(MODERATION_CALLER, { roles: ['server'] });
    authServer = await h.keys.sign('service:auth', { roles: ['server'] });
  });
  after(async () => {
    h.assertNoAccountIds();
    const all = h.bodies.join('\n') + clients.map((c) => JSON.stringify(c.frames)).join('\n');
    for (const u of users) assert.ok(!all.includes(u.id), 'an internal id reached a client');
    for (const c of clients) c.ws.terminate();
    await h.close();
  });

  it('stores every kind for an offline recipient, with the actor and the ids to act on it', async () => {
    const a = await user('Ana');
    const b = await user('Ben');
    // Friend request received, then accepted.
    const req = await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    let got = (await inbox(b)).notifications;
    assert.equal(got.length, 1);
    assert.deepEqual(Object.keys(got[0]).sort(), ['actor', 'createdAt', 'data', 'kind', 'notificationId', 'readAt']);
    assert.equal(got[0].kind, 'friendRequestReceived');
    assert.deepEqual(got[0].actor, { publicId: a.publicId, fullHandle: a.fullHandle });
    assert.deepEqual(got[0].data, { requestId: req.body.requestId });
    assert.equal(got[0].readAt, null);
    assert.ok(!Number.isNaN(Date.parse(got[0].createdAt)));
    // The ids are enough to act: accept with the actor's publicId.
    assert.equal((await h.req(b, 'POST', `/v1/friends/requests/${got[0].actor.publicId}/accept`)).status, 200);
    got = (await inbox(a)).notifications;
    assert.deepEqual(
      got.map((n) => [n.kind, n.actor.publicId, n.data]),
      [['friendRequestAccepted', b.publicId, { requestId: req.body.requestId }]],
    );

    // Party invite → join with its ids; then a kick.
    const party = (await h.req(a, 'POST', '/v1/parties', { body: {} })).body;
    const inv = (await h.req(a, 'POST', `/v1/parties/${party.partyId}/invites`, { body: { toPublicId: b.publicId } })).body;
    const [pi] = (await inbox(b)).notifications;
    assert.equal(pi.kind, 'partyInviteReceived');
    assert.deepEqual(pi.data, { inviteId: inv.inviteId, partyId: party.partyId, expiresAt: inv.expiresAt });
    assert.equal((await h.req(b, 'POST', `/v1/parties/${pi.data.partyId}/join`, { body: { inviteId: pi.data.inviteId } })).status, 200);
    assert.equal((await h.req(a, 'POST', `/v1/parties/${party.partyId}/kick`, { body: { publicId: b.publicId } })).status, 200);
    const [kicked] = (await inbox(b)).notifications;
    assert.equal(kicked.kind, 'partyKicked');
    assert.deepEqual([kicked.actor.publicId, kicked.data], [a.publicId, { partyId: party.partyId }]);

    // Game invite (with and without a session handle) → accept with its id.
    const game = (await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId, sessionHandle: 'srv-7' } })).body;
    const [gi] = (await inbox(b)).notifications;
    assert.equal(gi.kind, 'gameInviteReceived');
    assert.deepEqual(gi.data, { inviteId: game.inviteId, sessionHandle: 'srv-7', expiresAt: game.expiresAt });
    assert.equal((await h.req(b, 'POST', `/v1/invites/game/${gi.data.inviteId}/accept`)).status, 200);
    await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } });
    assert.deepEqual(Object.keys((await inbox(b)).notifications[0].data).sort(), ['expiresAt', 'inviteId']);

    // A moderation notice has no actor.
    const m = await moderate({ noticeId: randomUUID(), publicId: b.publicId, title: ' Warning ', message: ' Be nice. ', reference: 'sanction-42' });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    const [mod] = (await inbox(b)).notifications;
    assert.deepEqual(mod, m.body);
    assert.equal(mod.kind, 'moderationNotice');
    assert.equal('actor' in mod, false);
    assert.deepEqual(mod.data, { message: 'Be nice.', title: 'Warning', reference: 'sanction-42' });

    const all = await inbox(b);
    assert.deepEqual(
      all.notifications.map((n) => n.kind),
      ['moderationNotice', 'gameInviteReceived', 'gameInviteReceived', 'partyKicked', 'partyInviteReceived', 'friendRequestReceived'],
    );
    assert.equal(all.unreadCount, 6);
    assert.equal(all.nextCursor, undefined);
  });

  it('a crossing friend request notifies the first requester of the acceptance', async () => {
    const a = await user('Cross');
    const b = await user('Cross');
    const first = (await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } })).body;
    const second = await h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } });
    assert.equal(second.body.state, 'accepted');
    const [n] = (await inbox(a)).notifications;
    assert.deepEqual([n.kind, n.actor.publicId, n.data], ['friendRequestAccepted', b.publicId, { requestId: first.requestId }]);
  });

  it('pages newest first behind cursors; unread filter; read one, read all, delete; unread count', async () => {
    const u = await user('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await notice(u, `n${i}`)).body.notificationId);
    const newest = [...ids].reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await inbox(u, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.notifications.map((n) => n.notificationId));
      assert.equal(page.unreadCount, 7);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, newest);
    assert.equal((await inbox(u)).notifications.length, 7, 'the default page holds them all (20)');

    // Read one: readAt set, idempotent (the first time stays); the count follows.
    const r1 = await h.req(u, 'POST', `/v1/notifications/${ids[5]}/read`);
    assert.equal(r1.status, 200);
    assert.equal(r1.body.notificationId, ids[5]);
    assert.ok(r1.body.readAt);
    const again = await h.req(u, 'POST', `/v1/notifications/${ids[5].toUpperCase()}/read`, { body: {} });
    assert.equal(again.body.readAt, r1.body.readAt);
    assert.deepEqual((await h.req(u, 'GET', '/v1/notifications/unread-count')).body, { unreadCount: 6 });
    const unread = await inbox(u, '?unread=true&limit=2');
    assert.deepEqual(unread.notifications.map((n) => n.notificationId), [ids[6], ids[4]]);
    const rest = await inbox(u, `?unread=true&cursor=${unread.nextCursor}`);
    assert.deepEqual(rest.notifications.map((n) => n.notificationId), [ids[3], ids[2], ids[1], ids[0]]);
    assert.equal((await inbox(u, '?unread=false')).notifications.length, 7);

    // Delete one; a second delete and a read of it are 404.
    const del = await h.req(u, 'DELETE', `/v1/notifications/${ids[0]}`);
    assert.equal(del.status, 204);
    expectCode(await h.req(u, 'DELETE', `/v1/notifications/${ids[0]}`), 404, 'notification_not_found');
    expectCode(await h.req(u, 'POST', `/v1/notifications/${ids[0]}/read`), 404, 'notification_not_found');

    // Read all.
    const all = await h.req(u, 'POST', '/v1/notifications/read-all');
    assert.deepEqual(all.body, { marked: 5, unreadCount: 0 });
    assert.deepEqual((await h.req(u, 'POST', '/v1/notifications/read-all', { body: {} })).body, { marked: 0, unreadCount: 0 });
    const after = await inbox(u);
    assert.equal(after.unreadCount, 0);
    assert.ok(after.notifications.every((n) => n.readAt));
    assert.equal(after.notifications.find((n) => n.notificationId === ids[5]).readAt, r1.body.readAt, 'read-all keeps earlier read times');
    assert.deepEqual((await inbox(u, '?unread=true')).notifications, []);
  });

  it('delivers each stored notification live as a `notification` frame (the DTO the inbox lists)', async () => {
    const a = await user('Live');
    const b = await user('Listener');
    const c = await connect(url.ws, b.token);
    clients.push(c);
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
    await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    await c.next('friendRequestReceived');
    const live = await c.next('notification');
    const [stored] = (await inbox(b)).notifications;
    assert.deepEqual(live.data, stored);
    const m = await notice(b, 'hello');
    assert.deepEqual((await c.next('notification', (d) => d.kind === 'moderationNotice')).data, m.body);
  });

  it('mutes and blocks: a muted or blocked actor’s notifications are neither stored nor delivered', async () => {
    const a = await user('Loud');
    const b = await user('Quiet');
    await befriend(h, a, b);
    await h.req(b, 'POST', '/v1/notifications/read-all');
    const before = (await inbox(b)).notifications.length;
    const c = await connect(url.ws, b.token);
    clients.push(c);
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');

    assert.equal((await h.req(b, 'POST', `/v1/mutes/${a.publicId}`)).status, 204);
    assert.equal((await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } })).status, 201);
    await c.sync(h, b.id);
    assert.deepEqual(c.seen('notification'), []);
    assert.equal((await inbox(b)).notifications.length, before);
    assert.equal((await h.req(b, 'DELETE', `/v1/mutes/${a.publicId}`)).status, 204);
    await h.req(a, 'POST', '/v1/invites/game', { body: { toPublicId: b.publicId } });
    assert.equal((await c.next('notification')).data.actor.publicId, a.publicId);
    assert.equal((await inbox(b)).notifications.length, before + 1);

    // A member who blocked the leader is not told of the leader's kick (the block is checked where it is stored).
    const party = await h.party(a, [b], { visibility: 'FriendsOnly' });
    assert.equal((await h.req(b, 'POST', `/v1/blocks/${a.publicId}`)).status, 204);
    // The block removed what a caused in b's inbox.
    assert.deepEqual((await inbox(b)).notifications.filter((n) => n.actor?.publicId === a.publicId), []);
    assert.equal((await h.req(a, 'POST', `/v1/parties/${party.partyId}/kick`, { body: { publicId: b.publicId } })).status, 200);
    await c.sync(h, b.id);
    assert.deepEqual(c.seen('notification'), []);
    assert.deepEqual((await inbox(b)).notifications.filter((n) => n.actor?.publicId === a.publicId), []);

    // The blocked side's inbox loses what the blocker caused too.
    const x = await user('Asker');
    const y = await user('Blocker');
    await h.req(y, 'POST', '/v1/friends/requests', { body: { toPublicId: x.publicId } });
    assert.equal((await inbox(x)).notifications.length, 1);
    await h.req(y, 'POST', `/v1/blocks/${x.publicId}`);
    assert.deepEqual((await inbox(x)).notifications, []);
  });

  it('erasure deletes the user’s inbox and what they caused in others’; the export includes the inbox', async () => {
    const a = await user('Gone');
    const b = await user('Stays');
    const c = await user('Other');
    await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    await h.req(c, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    await h.req(b, 'POST', '/v1/friends/requests', { body: { toPublicId: a.publicId } });
    await notice(a, 'about a');

    const exp = await h.req(b, 'GET', '/v1/me/export');
    assert.equal(exp.status, 200);
    assert.deepEqual(exp.body.notifications, (await inbox(b)).notifications);
    assert.equal(exp.body.notifications.length, 2);

    assert.equal((await h.req(a, 'DELETE', '/v1/me')).status, 200);
    const left = await inbox(b);
    assert.deepEqual(left.notifications.map((n) => n.actor.publicId), [c.publicId]);
    assert.equal(left.unreadCount, 1);
    const rows = await h.db.db.query('SELECT 1 FROM notifications WHERE user_id = $1 OR actor_id = $1', [a.id]);
    assert.equal(rows.rowCount, 0);

    // The auth service's deletion notice erases the same way.
    const d = await user('Noticed');
    await h.req(d, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
    await notice(d, 'x');
    const n = await h.req(null, 'POST', '/v1/internal/auth-events', {
      body: { id: randomUUID(), type: 'account.deleted', account_id: d.sub },
      headers: { authorization: `Bearer ${authServer}` },
    });
    assert.equal(n.status, 200);
    assert.equal((await h.db.db.query('SELECT 1 FROM notifications WHERE user_id = $1 OR actor_id = $1', [d.id])).rowCount, 0);
    assert.deepEqual((await inbox(b)).notifications.map((x) => x.actor.publicId), [c.publicId]);
  });

  it('the purge keeps the newest per user up to the cap, and deletes what is older than the retention', async () => {
    const u = await user('Capped');
    const ids: string[] = [];
    for (let i = 0; i < CAP + 3; i++) ids.push((await notice(u, `m${i}`)).body.notificationId);
    // The cap is applied by the periodic purge: over it until then, then the newest CAP stay.
    assert.equal((await inbox(u, '?limit=100')).notifications.length, CAP + 3);
    const other = await user('Uncapped');
    await notice(other, 'one');
    assert.equal(await purgeNotifications(h.app.ctx), 3);
    const page = await inbox(u, '?limit=100');
    assert.deepEqual(page.notifications.map((n) => n.notificationId), ids.slice(3).reverse());
    assert.equal(page.unreadCount, CAP);
    assert.equal((await inbox(other)).notifications.length, 1);

    // Retention (90 days by default): nothing younger goes; everything older does.
    assert.equal(h.app.ctx.config.notificationsRetentionDays, 90);
    await purgeNotifications(h.app.ctx, new Date(Date.now() + 89 * 86_400_000));
    assert.equal((await inbox(u)).notifications.length, CAP);
    assert.ok((await purgeNotifications(h.app.ctx, new Date(Date.now() + 91 * 86_400_000))) >= CAP);
    assert.deepEqual((await inbox(u)).notifications, []);
  });

  it('moderation notices: by accountId or publicId, idempotent by noticeId, server callers only', async () => {
    const u = await user('Warned');
    const noticeId = randomUUID();
    const first = await moderate({ noticeId, accountId: u.sub, message: 'First warning' });
    assert.equal(first.status, 201);
    const repeat = await moderate({ noticeId: noticeId.toUpperCase(), publicId: u.publicId, message: 'First warning' });
    assert.equal(repeat.status, 200);
    assert.deepEqual(repeat.body, first.body);
    assert.equal((await inbox(u)).notifications.length, 1);

    // An account social never saw gets no profile unless auth confirms it active (here no internal key is
    // configured, so nothing can be confirmed: packages/e2e/test/notices.test.ts asks the real auth).
    const profiles = async () => Number((await h.db.db.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0].n);
    const before = await profiles();
    for (const sub of [`acct-${randomUUID()}`, randomUUID()]) {
      expectCode(await moderate({ noticeId: randomUUID(), accountId: sub, message: 'Welcome, and behave' }), 404, 'user_not_found');
    }
    assert.equal(await profiles(), before, 'no profile was made for an account auth did not confirm');

    expectCode(await moderate({ noticeId: randomUUID(), message: 'x' }), 400, 'target_required');
    expectCode(await moderate({ noticeId: randomUUID(), accountId: u.sub, publicId: u.publicId, message: 'x' }), 400, 'target_required');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: 'p_nobody', message: 'x' }), 404, 'user_not_found');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: '   ' }), 400, 'validation_failed');
    expectCode(await moderate({ noticeId: 'not-a-uuid', publicId: u.publicId, message: 'x' }), 400, 'validation_failed');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId }), 400, 'validation_failed');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 'x', severity: 'high' }), 400, 'validation_failed');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 7 }), 400, 'validation_failed');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 'x'.repeat(2001) }), 400, 'validation_failed');
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 'a\u0000b' }), 400, 'invalid_character');
    // Callers: a player token is forbidden, so is every server identity but the moderation tool's (the auth
    // service's, the registry's, any game server's); none or a bad one unauthorized, and nothing was stored.
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 'x' }, u.token), 403, 'forbidden');
    for (const sub of ['service:auth', 'service:registry', `service:${randomUUID()}`, 'moderation', 'service:moderation2']) {
      const other = await h.keys.sign(sub, { roles: ['server'] });
      expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 'x' }, other), 403, 'forbidden');
    }
    expectCode(await moderate({ noticeId: randomUUID(), publicId: u.publicId, message: 'x' }, 'garbage'), 401, 'unauthorized');
    expectCode(await h.req(null, 'POST', '/v1/internal/notifications', { body: { noticeId: randomUUID(), publicId: u.publicId, message: 'x' } }), 401, 'unauthorized');
    expectCode(await h.req(null, 'POST', '/v1/internal/notifications', { raw: '{"noticeId":', headers: { authorization: `Bearer ${server}` } }), 400, 'malformed_json');
    assert.equal((await inbox(u)).notifications.length, 1);
  });

  it('cursors are sealed with the server key: every bit flip is refused, the position is not readable, another node takes them', async () => {
    const u = await user('Paged');
    for (let i = 0; i < 3; i++) await notice(u, `s${i}`);
    const first = await inbox(u, '?limit=1');
    const cursor = first.nextCursor!;
    const raw = Buffer.from(cursor, 'base64url');
    // Nothing of the position in the clear (the old cursor was `n1:<platform-wide seq>:<tag>`), and two cursors
    // of the same position differ.
    assert.doesNotMatch(raw.toString('latin1'), /n1:|\d{3,}/);
    assert.notEqual((await inbox(u, '?limit=1')).nextCursor, cursor);
    let accepted = 0;
    for (let bit = 0; bit < raw.length * 8; bit++) {
      const flipped = Buffer.from(raw);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      const r = await h.req(u, 'GET', `/v1/notifications?limit=1&cursor=${flipped.toString('base64url')}`);
      if (r.status === 200) accepted++;
      else expectCode(r, 400, 'invalid_cursor');
    }
    assert.equal(accepted, 0, `${accepted} of ${raw.length * 8} bit flips accepted`);
    // A second node on the same database (a cluster) takes the cursor: one key for every node.
    const second = await startSecondNode(h);
    try {
      const r = await fetch(`${second.urls.http}/v1/notifications?limit=1&cursor=${cursor}`, { headers: { authorization: `Bearer ${u.token}` } });
      assert.equal(r.status, 200);
      assert.deepEqual(((await r.json()) as { notifications: { data: { message: string } }[] }).notifications.map((n) => n.data.message), ['s1']);
    } finally {
      await second.close();
    }
  });

  it('refuses bad input with a stable 4xx code', async () => {
    const u = await user('Careful');
    const other = await user('Nosy');
    for (let i = 0; i < 3; i++) await notice(u, `b${i}`);
    for (let i = 0; i < 3; i++) await notice(other, `o${i}`);
    const page = await inbox(u, '?limit=1');
    const foreign = (await inbox(other, '?limit=1')).nextCursor!;
    const mine = page.nextCursor!;

    // Cursors: malformed, another user's, non-canonical, forged in the old plain format, too long.
    const badCursors = [
      'garbage!',
      'x',
      foreign,
      `${mine}A`,
      `${mine.slice(0, -1)}${mine.endsWith('A') ? 'B' : 'A'}`,
      'a'.repeat(200),
      Buffer.from('n1:1:AAAAAAAA').toString('base64url'),
    ];
    for (const c of badCursors) expectCode(await h.req(u, 'GET', `/v1/notifications?cursor=${encodeURIComponent(c)}`), 400, 'invalid_cursor');
    expectCode(await h.req(u, 'GET', `/v1/notifications?cursor=${'a'.repeat(600)}`), 400, 'validation_failed');
    expectCode(await h.req(u, 'GET', '/v1/notifications?cursor='), 400, 'validation_failed');
    expectCode(await h.req(u, 'GET', '/v1/notifications?cursor=%00'), 400, 'invalid_character');
    assert.equal((await inbox(u, `?cursor=${mine}`)).notifications.length, 2, 'the reader’s own cursor works');
    // Limits and filters.
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'unread=maybe', 'order=asc', 'limit=1&limit=2']) {
      expectCode(await h.req(u, 'GET', `/v1/notifications?${q}`), 400, 'validation_failed');
    }
  });

  it('another user’s notification, unknown ids, bodies, paths and credentials', async () => {
    const u = await user('Owner');
    const other = await user('Intruder');
    const id = (await notice(u, 'mine')).body.notificationId;
    // Another user's id answers as an unknown one, and changes nothing.
    for (const nid of [id, randomUUID(), 'not-a-uuid', `${id}x`]) {
      expectCode(await h.req(other, 'POST', `/v1/notifications/${nid}/read`), 404, 'notification_not_found');
      expectCode(await h.req(other, 'DELETE', `/v1/notifications/${nid}`), 404, 'notification_not_found');
    }
    const [n] = (await inbox(u)).notifications;
    assert.equal(n.readAt, null);
    expectCode(await h.req(u, 'POST', `/v1/notifications/${'a'.repeat(65)}/read`), 400, 'validation_failed');
    // Bodies of the marking routes: none or {} only.
    expectCode(await h.req(u, 'POST', '/v1/notifications/read-all', { raw: '{' }), 400, 'malformed_json');
    expectCode(await h.req(u, 'POST', '/v1/notifications/read-all', { body: { all: true } }), 400, 'validation_failed');
    expectCode(await h.req(u, 'POST', `/v1/notifications/${id}/read`, { body: { readAt: 'now' } }), 400, 'validation_failed');
    expectCode(await h.req(u, 'POST', `/v1/notifications/${id}/read`, { body: [] }), 400, 'validation_failed');
    expectCode(await h.req(u, 'POST', '/v1/notifications/read-all', { body: { x: 'a'.repeat(70_000) } }), 413, 'payload_too_large');
    expectCode(await h.req(u, 'POST', '/v1/notifications/read-all', { body: { 'a\u0000': 1 } }), 400, 'invalid_character');
    expectCode(await h.req(u, 'POST', '/v1/notifications/read-all', { raw: 'x', headers: { 'content-type': 'application/xml' } }), 415, 'unsupported_media_type');
    // Encoded paths: an encoded letter is the same path; an encoded slash or a dot segment reaches no route.
    const enc = `/v1/%6Eotifications/${id.replace(/^(.)/, (c: string) => `%${c.charCodeAt(0).toString(16)}`)}/read`;
    const r = await h.req(u, 'POST', enc);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.notificationId, id);
    assert.equal((await h.req(u, 'DELETE', `/v1/notifications/${id}%2Fread`)).status, 404);
    // (Every spelling of every route, dot segments included, is walked by route-access.test.ts.)
    expectCode(await h.req(u, 'POST', `/V1/notifications/${id}/read`), 404, 'route_not_found');
    expectCode(await h.req(u, 'POST', `/v1/notifications/%2569${id.slice(1)}/read`), 404, 'notification_not_found');
    assert.equal((await h.req(u, 'GET', '/v1/notifications/')).status, 200, 'a trailing slash is ignored');
    // Credentials.
    for (const route of [['GET', '/v1/notifications'], ['GET', '/v1/notifications/unread-count'], ['POST', '/v1/notifications/read-all'], ['POST', `/v1/notifications/${id}/read`], ['DELETE', `/v1/notifications/${id}`]] as const) {
      expectCode(await h.req(null, route[0], route[1]), 401, 'unauthorized');
      expectCode(await h.req(null, route[0], route[1], { headers: { authorization: 'Bearer garbage' } }), 401, 'unauthorized');
      const expired = await h.keys.sign(u.sub, { expOffsetSec: -120 });
      expectCode(await h.req(null, route[0], route[1], { headers: { authorization: `Bearer ${expired}` } }), 401, 'unauthorized');
    }
    assert.equal((await h.req(u, 'DELETE', `/v1/notifications/${id}`)).status, 204);
  });
});
