// Auth → social notices: the outbox webhook (account.deleted, key_rotation) and social's
// server-authenticated endpoint POST /v1/internal/auth-events.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { serviceToken } from '@platform/auth';
import { eventually, startPlatform, type Platform } from '../src/index.js';

const fingerprint = () => `device-${randomBytes(6).toString('hex')}`;

async function guest(p: Platform) {
  const g = await p.auth.call('POST', '/guest', { body: { device_fingerprint: fingerprint() } });
  assert.equal(g.status, 200);
  return { token: g.body.access_token as string, accountId: g.body.account_id as string, secret: g.body.guest_secret as string };
}

/** Two friends in social; returns their public ids. */
async function friends(p: Platform, a: { token: string }, b: { token: string }) {
  const pa = (await p.social.call('GET', '/v1/me', { token: a.token })).body.publicId;
  const pb = (await p.social.call('GET', '/v1/me', { token: b.token })).body.publicId;
  assert.equal((await p.social.call('POST', '/v1/friends/requests', { token: a.token, body: { toPublicId: pb } })).status, 201);
  assert.equal((await p.social.call('POST', `/v1/friends/requests/${pa}/accept`, { token: b.token })).status, 200);
  return { pa, pb };
}

const deliveryOf = async (p: Platform, accountId: string) =>
  (
    await p.auth.app.auth.db.query<{ attempts: number; delivered_at: Date | null; last_error: string | null }>(
      `SELECT d.attempts, d.delivered_at, d.last_error FROM outbox_deliveries d JOIN outbox o ON o.id = d.outbox_id
        WHERE o.topic = 'account.deleted' AND o.payload->>'account_id' = $1`,
      [accountId],
    )
  ).rows[0];

let p: Platform;
before(async () => {
  // A long unknown-kid cooldown in social: only the key_rotation notice can make it fetch a new key (last test).
  p = await startPlatform({ socialEnv: { SOCIAL__AUTH__KEYCOOLDOWNSECONDS: '3600' } });
});
after(() => p?.close());

describe('account deletion reaches social through the outbox', () => {
  it('social down at deletion time: the notice is delivered when it comes back', async () => {
    const a = await guest(p);
    const b = await guest(p);
    const { pb } = await friends(p, a, b);
    await p.stopSocial();
    assert.equal((await p.auth.call('DELETE', '/account', { token: b.token })).status, 202);
    const failed = await eventually('a failed attempt', async () => {
      const d = await deliveryOf(p, b.accountId);
      return d && d.attempts >= 1 && d.last_error ? d : undefined;
    });
    assert.equal(failed.delivered_at, null);
    await p.startSocial();
    await eventually('delivered', async () => ((await deliveryOf(p, b.accountId))?.delivered_at ? true : undefined));
    const list = await p.social.call('GET', '/v1/friends', { token: a.token });
    assert.equal(list.status, 200);
    assert.ok(!list.body.some((f: { publicId: string }) => f.publicId === pb));
  });
});

describe('POST /v1/internal/auth-events (social)', () => {
  let server: string;
  const post = (body: unknown, token?: string) => p.social.call('POST', '/v1/internal/auth-events', { body, token });

  before(async () => {
    server = await serviceToken(p.auth.app.auth.config, p.auth.app.auth.keys);
  });

  it('account.deleted erases the user; repeating it is harmless', async () => {
    const a = await guest(p);
    const b = await guest(p);
    const { pb } = await friends(p, a, b);
    const notice = { id: randomUUID(), type: 'account.deleted', account_id: b.accountId, deleted_at: new Date().toISOString() };
    for (let i = 0; i < 2; i++) {
      const r = await post(notice, server);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body, { status: 'processed' });
    }
    const list = await p.social.call('GET', '/v1/friends', { token: a.token });
    assert.ok(!list.body.some((f: { publicId: string }) => f.publicId === pb));
    // An account social never saw: also fine.
    assert.equal((await post({ ...notice, id: randomUUID(), account_id: randomUUID() }, server)).status, 200);
  });

  it('key_rotation refreshes the key set; unknown types are acknowledged and ignored', async () => {
    assert.deepEqual((await post({ id: randomUUID(), type: 'key_rotation', kid: 'k4.pid.x' }, server)).body, { status: 'processed' });
    assert.deepEqual((await post({ id: randomUUID(), type: 'account.renamed' }, server)).body, { status: 'ignored' });
  });

  it('requires a server-role token: none or forged → 401, a player token → 403', async () => {
    const notice = { id: randomUUID(), type: 'key_rotation' };
    const none = await post(notice);
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'unauthorized');
    assert.equal((await post(notice, 'v4.public.garbage')).status, 401);
    assert.equal((await post(notice, server.slice(0, -4) + 'AAAA')).status, 401);
    const player = await guest(p);
    const r = await post(notice, player.token);
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'forbidden');
    // The API-key mode of social is not accepted here either.
    const apiKey = await p.social.call('POST', '/v1/internal/auth-events', { body: notice, headers: { 'x-api-key': 'k'.repeat(20), 'x-user-id': 'x' } });
    assert.equal(apiKey.status, 401);
  });

  it('bad input: missing fields, wrong types, a format version not read here, malformed JSON, oversized; unknown fields ignored', async () => {
    for (const [body, field] of [
      [{ type: 'key_rotation' }, 'id'],
      [{ id: randomUUID() }, 'type'],
      [{ id: 'nope', type: 'key_rotation' }, 'id'],
      [{ id: randomUUID(), type: 5 }, 'type'],
      [{ id: randomUUID(), type: 'account.deleted' }, 'account_id'],
      // A version this node does not read: refused, so the outbox retries it once social is upgraded (decisions/0020).
      [{ v: 2, id: randomUUID(), type: 'key_rotation' }, 'v'],
    ] as const) {
      const r = await post(body, server);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'validation_failed');
      assert.equal(r.body.field, field, JSON.stringify(r.body));
    }
    // A member a later release adds is ignored (docs/decisions/0020-versioned-messages.md).
    assert.equal((await post({ id: randomUUID(), type: 'some.later_notice', extra: 1 }, server)).status, 200);
    // Malformed JSON, through the https client (the social certificate is self-signed).
    const { request } = await import('node:https');
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${p.socialUrl}/v1/internal/auth-events`, {
        method: 'POST',
        ca: p.socialTls.cert,
        headers: { authorization: `Bearer ${server}`, 'content-type': 'application/json' },
      }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end('{"id":');
    });
    assert.equal(status.status, 400);
    assert.equal(JSON.parse(status.body).code, 'malformed_json');
    const huge = await post({ id: randomUUID(), type: 'x'.repeat(70_000) }, server);
    assert.equal(huge.status, 413);
  });
});

describe('emergency key rotation reaches social at once (no shared pub/sub)', () => {
  it('a token signed with the new key is accepted by social right after the rotation', async () => {
    const admin = await guest(p);
    await p.auth.app.auth.db.query(`UPDATE accounts SET roles = roles || '{admin}' WHERE id = $1`, [admin.accountId]);
    const restored = await p.auth.call('POST', '/guest/restore', { body: { account_id: admin.accountId, guest_secret: admin.secret, device_fingerprint: fingerprint() } });
    assert.equal(restored.status, 200);
    const adminToken = restored.body.access_token;
    // Social has fetched the key set (old key only).
    assert.equal((await p.social.call('GET', '/v1/me', { token: adminToken })).status, 200);

    const rot = await p.auth.call('POST', '/admin/keys/rotate', { token: adminToken, body: { emergency: true } });
    assert.equal(rot.status, 200, JSON.stringify(rot.body));
    const newKid = rot.body.kid;
    const player = await guest(p);
    const footer = JSON.parse(Buffer.from(player.token.split('.')[3], 'base64url').toString());
    assert.equal(footer.kid, newKid, 'auth signs with the new key at once');

    await eventually('key_rotation delivered to social', async () => {
      const r = await p.auth.app.auth.db.query<{ delivered_at: Date | null }>(
        `SELECT d.delivered_at FROM outbox_deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE o.topic = 'key_rotation' AND o.payload->>'kid' = $1`,
        [newKid],
      );
      return r.rows[0]?.delivered_at ? true : undefined;
    });
    const me = await p.social.call('GET', '/v1/me', { token: player.token });
    assert.equal(me.status, 200, JSON.stringify(me.body));
  });
});

describe('each internal route of social takes its one server identity', () => {
  const notify = (token: string, body: Record<string, unknown>) => p.social.call('POST', '/v1/internal/notifications', { token, body: { noticeId: randomUUID(), message: 'Be nice', ...body } });

  it('a token from POST /internal/server-token (the registry’s) cannot send auth’s notices: a forged revocation, deletion or sanction does nothing', async () => {
    const issued = await p.auth.call('POST', '/internal/server-token', { headers: { 'x-internal-key': p.internalKey } });
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.equal(issued.body.sub, 'service:registry');
    const victim = await guest(p);
    const other = await guest(p);
    await friends(p, victim, other);
    const now = new Date();
    const forged = [
      { id: randomUUID(), type: 'revocation', reason: 'logout', scope: 'account', account_id: victim.accountId, sids: [], revoked_at: now.toISOString(), until: new Date(now.getTime() + 900_000).toISOString() },
      { id: randomUUID(), type: 'account.deleted', account_id: victim.accountId },
      { id: randomUUID(), type: 'sanction', event: 'applied', sanction_id: randomUUID(), account_id: victim.accountId, sanction_type: 'chat', expires_at: null },
      { id: randomUUID(), type: 'something.else' },
    ];
    for (const body of forged) {
      const r = await p.social.call('POST', '/v1/internal/auth-events', { token: issued.body.access_token, body });
      assert.equal(r.status, 403, `${body.type}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'forbidden');
    }
    // The victim's token still works, the friendship stands, chat is open.
    const list = await p.social.call('GET', '/v1/friends', { token: victim.token });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.length, 1);
    const sent = await p.social.call('POST', `/v1/chat/dm/${list.body[0].dmChannelId}/messages`, { token: victim.token, body: { body: 'still here' } });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    // Auth's own outbox token (service:auth) is still taken; a player's is refused.
    const own = await serviceToken(p.auth.app.auth.config, p.auth.app.auth.keys);
    assert.equal((await p.social.call('POST', '/v1/internal/auth-events', { token: own, body: forged[3] })).body.status, 'ignored');
    const refused = await p.social.call('POST', '/v1/internal/auth-events', { token: victim.token, body: forged[3] });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'forbidden');
    // …and neither auth nor the registry may address moderation notices.
    for (const token of [issued.body.access_token, own]) assert.equal((await notify(token, { accountId: victim.accountId })).status, 403);
  });

  it('moderation notices: a profile only for an account auth knows as active (not for an unknown or deleted one)', async () => {
    const issued = await p.auth.call('POST', '/internal/server-token', { headers: { 'x-internal-key': p.moderationKey } });
    assert.equal(issued.body.sub, 'service:moderation');
    const token = issued.body.access_token as string;
    const profiles = async () => Number((await p.socialDb.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0].n);
    const before = await profiles();
    // Unknown ids (a uuid, anything else) and a deleted account: 404, nothing made.
    const gone = await guest(p);
    assert.equal((await p.auth.call('DELETE', '/account', { token: gone.token })).status, 202);
    for (const accountId of [randomUUID(), 'not-an-account', gone.accountId]) {
      const r = await notify(token, { accountId });
      assert.equal(r.status, 404, `${accountId}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'user_not_found');
    }
    assert.equal(await profiles(), before, 'no profile for an account auth does not know as active');
    // An active account social has not seen yet: its profile is made and the notice waits for its first visit.
    const fresh = await guest(p);
    const made = await notify(token, { accountId: fresh.accountId, message: 'Welcome, and behave' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const inbox = await p.social.call('GET', '/v1/notifications', { token: fresh.token });
    assert.deepEqual(inbox.body.notifications.map((n: { data: { message: string } }) => n.data.message), ['Welcome, and behave']);
  });
});
