// Appeals (docs/auth.md, "Appeals"; issue 30 item 4): a player appeals their own active sanction once (with a
// session, or a banned player with the appeal token of the refused sign-in); staff read the queue and decide once —
// uphold, shorten, lift — with the lift's authority rule; every step audited; the decision is an `appeal` notice in
// the outbox that never names who decided; appeals are in the export. Bad input, others' ids and wrong callers too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serviceToken } from '../src/services/outbox.js';
import { auditCount, bearer, harness, register, type Harness, withRoles as withRolesOf, assertError } from './support/harness.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('appeals', () => {
  let h: Harness;
  let admin: { token: string; account_id: string };
  let moderator: { token: string; account_id: string };

  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: token === undefined ? {} : bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const sanction = async (accountId: string, body: Record<string, unknown>, token = admin.token) => {
    const r = await call('POST', `/admin/accounts/${accountId}/sanctions`, token, body);
    assert.equal(r.statusCode, 201, r.body);
    return r.json() as { id: string; expires_at: string | null };
  };
  const appeal = (sanctionId: string, token: string | undefined, body: unknown = { reason: 'too_harsh', text: 'It was one joke.' }) =>
    call('POST', `/account/sanctions/${sanctionId}/appeal`, token, body);
  const decide = (appealId: string, body: unknown, token = admin.token) => call('POST', `/admin/appeals/${appealId}/decide`, token, body);
  const appealNotices = async (accountId: string) =>
    (await h.tdb.db.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM outbox WHERE topic = 'appeal' AND payload->>'account_id' = $1 ORDER BY created_at`, [accountId])).rows.map((r) => r.payload);

  before(async () => {
    h = await harness({ AUTH_RATE_GENERAL_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000', AUTH_SANCTION_SWEEP_SECONDS: '3600' });
    admin = await withRolesOf(h, ['player', 'admin']);
    moderator = await withRolesOf(h, ['player', 'moderator']);
  });
  after(() => h.close());

  it('a player appeals a chat sanction once: 201 open, listed as their own, audited; a second appeal is 409', async () => {
    const u = await register(h.app);
    const s = await sanction(u.account_id, { type: 'chat', reason: 'Spam', duration_seconds: 86_400 }, moderator.token);
    const r = await appeal(s.id, u.access_token);
    assert.equal(r.statusCode, 201, r.body);
    const a = r.json();
    assert.deepEqual(
      { sanction_id: a.sanction_id, reason: a.reason, text: a.text, status: a.status, decided_at: a.decided_at, response: a.response },
      { sanction_id: s.id, reason: 'too_harsh', text: 'It was one joke.', status: 'open', decided_at: null, response: null },
    );
    assert.equal('decided_by' in a, false);
    assertError(await appeal(s.id, u.access_token), 409, 'appeal_exists');
    const mine = await call('GET', '/account/appeals', u.access_token);
    assert.deepEqual(mine.json().appeals.map((x: any) => x.id), [a.id]);
    assert.equal(await auditCount(h, u.account_id, 'appeal'), 1);
  });

  it('refuses another player’s sanction, unknown and malformed ids (404), ended sanctions (409) and bad bodies (400)', async () => {
    const [u, other] = [await register(h.app), await register(h.app)];
    const s = await sanction(u.account_id, { type: 'chat', reason: 'Spam', duration_seconds: 3600 });
    assertError(await appeal(s.id, other.access_token), 404, 'sanction_not_found');
    assertError(await appeal(UNKNOWN, u.access_token), 404, 'sanction_not_found');
    assertError(await appeal('not-a-uuid', u.access_token), 404, 'sanction_not_found');
    assertError(await appeal(encodeURIComponent('../admin'), u.access_token), 404, 'sanction_not_found');
    for (const body of [{ reason: 'bored', text: 'x' }, { reason: 'other', text: '' }, { reason: 'other', text: 'x'.repeat(2001) }, { reason: 'other' }, { reason: 'other', text: 'x', extra: 1 }, { reason: 'other', text: 'a\u0000b' }]) {
      assert.equal((await appeal(s.id, u.access_token, body)).statusCode, 400, JSON.stringify(body));
    }
    const malformed = await h.app.inject({ method: 'POST', url: `/account/sanctions/${s.id}/appeal`, headers: { ...bearer(u.access_token), 'content-type': 'application/json' }, payload: '{"reason":' });
    assertError(malformed, 400, 'malformed_json');
    assertError(await appeal(s.id, 'not.a.token'), 401, 'invalid_token');
    assert.equal((await appeal(s.id, undefined)).statusCode, 401);
    // Lifted: nothing left to appeal.
    assert.equal((await call('POST', `/admin/sanctions/${s.id}/lift`, admin.token)).statusCode, 200);
    assertError(await appeal(s.id, u.access_token), 409, 'sanction_not_active');
  });

  it('a banned player appeals with the appeal token of the refused sign-in; a tampered or foreign token is 401', async () => {
    const u = await register(h.app);
    const ban = await sanction(u.account_id, { type: 'ban', reason: 'Cheating', duration_seconds: 7 * 86_400 });
    const refused = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
    const body = assertError(refused, 403, 'account_banned');
    const details = body.details ?? body;
    assert.equal(details.sanction_id, ban.id);
    assert.equal(typeof details.appeal_token, 'string');
    // A wrong password never gets a token.
    const wrong = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: 'not the password 123' } });
    assert.equal(JSON.stringify(wrong.json()).includes('appeal_token'), false);
    const tampered = `${details.appeal_token.slice(0, -4)}AAAA`;
    for (const token of [tampered, 'x'.repeat(40)]) {
      assertError(await call('POST', '/appeals', undefined, { appeal_token: token, reason: 'not_me', text: 'My brother played.' }), 401, 'invalid_appeal_token');
    }
    const r = await call('POST', '/appeals', undefined, { appeal_token: details.appeal_token, reason: 'not_me', text: 'My brother played.' });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().sanction_id, ban.id);
    assertError(await call('POST', '/appeals', undefined, { appeal_token: details.appeal_token, reason: 'not_me', text: 'Again' }), 409, 'appeal_exists');
    assertError(await call('POST', '/appeals', undefined, { reason: 'not_me', text: 'no token' }), 400, 'validation_failed');
  });

  it('staff read the open queue oldest first with each sanction, paged; players are refused', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const u = await register(h.app);
      const s = await sanction(u.account_id, { type: 'chat', reason: `Queue ${i}`, duration_seconds: 3600 });
      made.push((await appeal(s.id, u.access_token)).json().id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await call('GET', `/admin/appeals?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, moderator.token);
      assert.equal(r.statusCode, 200, r.body);
      const page = r.json();
      for (const a of page.appeals) {
        assert.equal(a.status, 'open');
        assert.ok(a.sanction && a.sanction.id === a.sanction_id);
        seen.push(a.id);
      }
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(made.filter((id) => seen.includes(id)), made, 'the three, oldest first');
    const player = await register(h.app);
    assertError(await call('GET', '/admin/appeals', player.access_token), 403, 'moderator_required');
    assert.equal((await call('GET', '/admin/appeals')).statusCode, 401);
    assertError(await call('GET', '/admin/appeals?cursor=nonsense', moderator.token), 400, 'validation_failed');
    assertError(await call('GET', '/admin/appeals?status=maybe', moderator.token), 400, 'validation_failed');
  });

  it('uphold, shorten and lift: each decided once, audited, and told in an appeal notice that names no moderator', async () => {
    const u = await register(h.app);
    const keep = await sanction(u.account_id, { type: 'chat', reason: 'A', duration_seconds: 86_400 }, moderator.token);
    const shortenMe = await sanction(u.account_id, { type: 'chat', reason: 'B', duration_seconds: 86_400 });
    const liftMe = await sanction(u.account_id, { type: 'ban', reason: 'C', duration_seconds: 86_400 });
    const signIn = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
    const token = (signIn.json().details ?? signIn.json()).appeal_token;
    // Appeals of the chat sanctions need a session: the ban ended it, so the token of the ban, and a fresh sign-in after.
    const a3 = (await call('POST', '/appeals', undefined, { appeal_token: token, reason: 'not_me', text: 'C' })).json();
    const upheld = await decide(a3.id, { outcome: 'uphold', response: 'The logs are clear.' }, moderator.token);
    assert.equal(upheld.statusCode, 200, upheld.body);
    assert.equal(upheld.json().status, 'upheld');
    assertError(await decide(a3.id, { outcome: 'lift' }), 409, 'appeal_decided');
    // Lift the ban by another route so the chat sanctions can be appealed with a session.
    assert.equal((await call('POST', `/admin/sanctions/${liftMe.id}/lift`, admin.token)).statusCode, 200);
    const session = (await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } })).json().access_token;
    const a1 = (await appeal(keep.id, session)).json();
    const a2 = (await appeal(shortenMe.id, session)).json();
    // Shorten: the end must move earlier and stay in the future.
    assertError(await decide(a2.id, { outcome: 'shorten', duration_seconds: 200_000 }), 409, 'invalid_shortening');
    assertError(await decide(a2.id, { outcome: 'shorten' }), 400, 'validation_failed');
    const shortened = await decide(a2.id, { outcome: 'shorten', duration_seconds: 3600, response: 'One hour is enough.' });
    assert.equal(shortened.statusCode, 200, shortened.body);
    const sv = shortened.json();
    assert.equal(sv.status, 'shortened');
    assert.ok(Math.abs(Date.parse(sv.new_expires_at) - Date.now() - 3600_000) < 60_000);
    assert.equal(Date.parse(sv.sanction.expires_at), Date.parse(sv.new_expires_at));
    // Lift: the sanction ends.
    const lifted = await decide(a1.id, { outcome: 'lift', response: 'Sorry, our mistake.' }, moderator.token);
    assert.equal(lifted.statusCode, 200, lifted.body);
    assert.equal(lifted.json().status, 'lifted');
    assert.equal(lifted.json().sanction.active, false);
    assert.equal(await auditCount(h, u.account_id, 'appeal_decision'), 3);
    const notices = await appealNotices(u.account_id);
    assert.deepEqual(notices.map((n) => n.outcome), ['upheld', 'shortened', 'lifted']);
    for (const n of notices) {
      const text = JSON.stringify(n);
      assert.equal(text.includes(moderator.account_id) || text.includes(admin.account_id), false, 'no moderator named');
      assert.equal(n.type, 'appeal');
    }
    assert.equal(notices[0]!.response, 'The logs are clear.');
    // The player's own view: answers, never who decided; the export lists them.
    const own = (await call('GET', '/account/appeals', session)).json().appeals;
    assert.equal(own.length, 3);
    for (const a of own) assert.equal('decided_by' in a, false);
    const exported = (await call('POST', '/account/export', session)).json();
    assert.equal(exported.appeals.length, 3);
    assert.equal(JSON.stringify(exported.appeals).includes(moderator.account_id), false);
  });

  it('deciding: a moderator cannot lift a staff member’s sanction on appeal (403), unknown ids 404, bad outcomes 400, players 403', async () => {
    const staff = await withRolesOf(h, ['player', 'moderator']);
    const s = await sanction(staff.account_id, { type: 'chat', reason: 'Staff spam', duration_seconds: 3600 });
    const a = (await appeal(s.id, staff.token)).json();
    assertError(await decide(a.id, { outcome: 'lift' }, moderator.token), 403, 'forbidden');
    assert.equal((await call('GET', '/admin/appeals', moderator.token)).json().appeals.some((x: any) => x.id === a.id), true, 'still open');
    assert.equal((await decide(a.id, { outcome: 'lift' }, admin.token)).statusCode, 200);
    assertError(await decide(UNKNOWN, { outcome: 'uphold' }), 404, 'appeal_not_found');
    assertError(await decide('nope', { outcome: 'uphold' }), 404, 'appeal_not_found');
    assertError(await decide(a.id, { outcome: 'forgive' }), 400, 'validation_failed');
    const player = await register(h.app);
    assertError(await decide(a.id, { outcome: 'uphold' }, player.access_token), 403, 'moderator_required');
    // A service token (internal callers) may decide like staff.
    const server = await serviceToken(h.config, h.app.auth.keys, 'registry');
    assert.equal((await call('GET', '/admin/appeals', server)).statusCode, 200);
  });
});
