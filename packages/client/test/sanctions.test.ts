// The SDK's sanctions (docs/auth.md, "Sanctions"), against the real auth and social services: getSanctions()
// reads the player's active sanctions with their reasons; a chat sanction makes sendChat fail with
// chat_restricted; a ban makes sign-in fail with account_banned and the ban's reason.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PlatformError } from '../src/index.js';
import { PASSWORD, player, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

describe('client: sanctions', () => {
  let tp: TestPlatform;
  let adminToken: string;
  before(async () => {
    tp = await startTestPlatform();
    const admin = await player(tp, 'Op');
    const adminId = (await admin.session.get())!.accountId!;
    await tp.platform.auth.app.auth.db.query(`UPDATE accounts SET roles = ARRAY['player', 'admin'] WHERE id = $1`, [adminId]);
    adminToken = (await admin.session.refresh()).accessToken;
  });
  after(() => tp.close());

  const sanction = async (accountId: string, body: Record<string, unknown>) => {
    const r = await tp.platform.auth.call('POST', `/admin/accounts/${accountId}/sanctions`, { token: adminToken, body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body as { id: string; expires_at: string | null; created_at: string };
  };

  it('getSanctions() lists the active ones with reasons; a chat sanction refuses sendChat with chat_restricted; lifted, chat works', async () => {
    const p = await player(tp, 'Noisy');
    const accountId = (await p.session.get())!.accountId!;
    assert.deepEqual(await p.auth.getSanctions(), { sanctions: [] });
    const party = await p.social.createParty({ visibility: 'Public' });
    const s = await sanction(accountId, { type: 'chat', reason: 'Flooding the party', duration_seconds: 600 });
    assert.deepEqual(await p.auth.getSanctions(), {
      sanctions: [{ id: s.id, type: 'chat', reason: 'Flooding the party', created_at: s.created_at, expires_at: s.expires_at }],
    });
    // The notice reaches social before auth answers (outbox acknowledged) or a moment after (the shared bus).
    for (let i = 0; i < 50; i++) {
      const sent = await p.social.sendChat('party', party.partyId, 'hi').then(
        () => true,
        () => false,
      );
      if (!sent) break;
      await new Promise((r) => setTimeout(r, 40));
    }
    const e = await rejects(p.social.sendChat('party', party.partyId, 'hi'), 403, 'chat_restricted');
    assert.equal(e.details.expiresAt, s.expires_at);
    assert.equal((await tp.platform.auth.call('POST', `/admin/sanctions/${s.id}/lift`, { token: adminToken })).status, 200);
    assert.deepEqual(await p.auth.getSanctions(), { sanctions: [] });
    assert.equal((await p.social.sendChat('party', party.partyId, 'hi again')).body, 'hi again');
  });

  it('a banned player’s sign-in fails with account_banned, the reason and the end in details', async () => {
    const c = tp.client();
    const email = uniqueEmail('banned');
    const { accountId } = await c.auth.register({ email, password: PASSWORD });
    await sanction(accountId!, { type: 'ban', reason: 'Cheating' });
    const e = await rejects(tp.client().auth.signInWithEmail({ email, password: PASSWORD }), 403, 'account_banned');
    assert.ok(e instanceof PlatformError);
    assert.deepEqual([e.details.reason, e.details.expires_at], ['Cheating', null]);
  });

  it('appeals: a banned player appeals with the token of the refused sign-in; lifted on appeal, the answer is in the inbox', async () => {
    const c = tp.client();
    const email = uniqueEmail('appellant');
    const { accountId } = await c.auth.register({ email, password: PASSWORD });
    // A social profile exists before the ban (the inbox is social's).
    await c.social.me();
    const ban = await sanction(accountId!, { type: 'ban', reason: 'Cheating', duration_seconds: 86_400 });
    const refused = await rejects(tp.client().auth.signInWithEmail({ email, password: PASSWORD }), 403, 'account_banned');
    assert.equal(refused.details.sanction_id, ban.id);
    const filed = await tp.client().auth.appealBan(String(refused.details.appeal_token), { reason: 'not_me', text: 'My brother used my account.' });
    assert.deepEqual([filed.status, filed.sanction_id, filed.reason], ['open', ban.id, 'not_me']);
    await rejects(tp.client().auth.appealBan(String(refused.details.appeal_token), { reason: 'other', text: 'again' }), 409, 'appeal_exists');
    const decided = await tp.platform.auth.call('POST', `/admin/appeals/${filed.id}/decide`, { token: adminToken, body: { outcome: 'lift', response: 'Welcome back.' } });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const back = tp.client();
    await back.auth.signInWithEmail({ email, password: PASSWORD });
    const [mine] = await back.auth.appeals();
    assert.deepEqual([mine!.status, mine!.response], ['lifted', 'Welcome back.']);
    // The outbox delivers the decision to social: the inbox has it (at once, or a moment later).
    let notice: any;
    for (let i = 0; i < 100 && !notice; i++) {
      notice = (await back.social.notifications()).notifications.find((n: any) => n.kind === 'moderationNotice');
      if (!notice) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(notice, 'the decision in the inbox');
    assert.equal(notice.data.reference, `appeal:${filed.id}`);
    assert.match(notice.data.message, /accepted: the ban was lifted\.\n\nWelcome back\.$/);
  });

  it('appealSanction(): the player appeals a chat sanction once; another player cannot (404)', async () => {
    const p = await player(tp, 'Muted');
    const accountId = (await p.session.get())!.accountId!;
    const s = await sanction(accountId, { type: 'chat', reason: 'Spam', duration_seconds: 600 });
    const a = await p.auth.appealSanction(s.id, { reason: 'misunderstood', text: 'It was a quote.' });
    assert.equal(a.status, 'open');
    await rejects(p.auth.appealSanction(s.id, { reason: 'other', text: 'twice' }), 409, 'appeal_exists');
    const other = await player(tp, 'Nosy');
    await rejects(other.auth.appealSanction(s.id, { reason: 'other', text: 'not mine' }), 404, 'sanction_not_found');
    assert.deepEqual((await p.auth.appeals()).map((x) => x.id), [a.id]);
  });

  it('a moderator whose role is taken away: the next moderation call refreshes (still signed in) and is refused 403 moderator_required', async () => {
    const m = await player(tp, 'Mod');
    const accountId = (await m.session.get())!.accountId!;
    await tp.platform.auth.app.auth.db.query(`UPDATE accounts SET roles = ARRAY['player', 'moderator'] WHERE id = $1`, [accountId]);
    await m.session.refresh();
    assert.ok(Array.isArray((await m.moderation.reports()).reports));
    const r = await tp.platform.auth.call('PUT', `/admin/accounts/${accountId}/roles`, { token: adminToken, body: { roles: ['player'] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // The token still in hand carries the old role; social refuses it as stale (not revoked), so the SDK refreshes.
    await rejects(m.moderation.reports(), 403, 'moderator_required');
    assert.ok(await m.session.get(), 'not signed out');
    assert.ok(Array.isArray((await m.auth.getSanctions()).sanctions));
  });
});
