// The moderation queue: reports with their snapshots, for moderators and admins only; states and their moves;
// filters and cursor paging; erasure of the reporter and of the target; bad input.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { befriend, useHarness, type TestUser } from './support.js';
import { assertError } from '@platform/kit/testing';

describe('moderation queue', () => {
  const h = useHarness({ SOCIAL__AUTH__APIKEY: 'server-key-0123456789abcdef', SOCIAL_LIMITS_ACTIONS_PER_MINUTE: '1000' }, { checkAccountIds: true });
  let mod: TestUser;
  let admin: TestUser;
  before(async () => {
    mod = await h.user('Mod', { roles: ['player', 'moderator'] });
    admin = await h.user('Admin', { roles: ['admin'] });
  });

  const report = async (by: TestUser, target: TestUser, body: Record<string, unknown> = {}) => {
    const r = await h.req(by, 'POST', '/v1/reports', { body: { targetPublicId: target.publicId, reason: 'harassment', ...body } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
  };
  /** The queue's newest report about `target` (as the moderator sees it). */
  const latestAbout = async (target: TestUser) => {
    const r = await h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(target.publicId)}&limit=1`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.reports[0];
  };

  it('a report carries a snapshot of the target and of their last messages in the party the context names', async () => {
    const [victim, bully, bystander] = await h.users('Victim', 'Bully', 'Bystander');
    const party = (await h.req(victim, 'POST', '/v1/parties', { body: { visibility: 'Public' } })).body;
    for (const u of [bully, bystander]) assert.equal((await h.req(u, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} })).status, 200);
    const say = async (u: TestUser, body: string) =>
      assert.equal((await h.req(u, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body } })).status, 201);
    await say(bully, 'first insult');
    await say(bystander, 'stop it');
    await say(bully, 'second insult');
    await report(victim, bully, { context: `party:${party.partyId} during the match` });
    // What the target does afterwards does not change the evidence.
    assert.equal((await h.req(bully, 'POST', '/v1/me/name', { body: { displayName: 'Angel' } })).status, 200);
    const r = await latestAbout(bully);
    assert.equal(r.state, 'received');
    assert.equal(r.reason, 'harassment');
    assert.equal(r.context, `party:${party.partyId} during the match`);
    assert.deepEqual(r.reporter, { publicId: victim.publicId, fullHandle: victim.fullHandle });
    assert.equal(r.target.publicId, bully.publicId);
    assert.match(r.target.fullHandle, /^Angel#\d{4}$/);
    assert.equal(r.snapshot.target.fullHandle, bully.fullHandle);
    assert.equal(r.snapshot.target.displayName, 'Bully');
    assert.equal(r.snapshot.channel.kind, 'party');
    assert.equal(r.snapshot.channel.channelId, party.partyId);
    assert.deepEqual(
      r.snapshot.channel.messages.map((m: { body: string }) => m.body),
      ['second insult', 'first insult'],
    );
    assert.deepEqual(r.history, []);
  });

  it('a dm named in the context is copied; a channel the reporter cannot read is not', async () => {
    const [a, b, outsider] = await h.users('DmA', 'DmB', 'DmOutsider');
    await befriend(h, a, b);
    const dm = (await h.req(a, 'GET', '/v1/friends')).body.find((f: { publicId: string }) => f.publicId === b.publicId);
    assert.ok(dm, 'friends');
    const channel = (await h.req(b, 'POST', '/v1/chat/dm/unknown/messages', { body: { body: 'x' } })).status;
    assert.equal(channel, 404);
    // The dm channel id of a pair, as the chat routes use it.
    const dmId = (await h.db.db.query<{ channel_id: string }>('SELECT channel_id FROM dm_channels WHERE (user_low = $1 AND user_high = $2) OR (user_low = $2 AND user_high = $1)', [a.id, b.id])).rows[0].channel_id;
    assert.equal((await h.req(b, 'POST', `/v1/chat/dm/${dmId}/messages`, { body: { body: 'nasty dm' } })).status, 201);
    await report(a, b, { context: `dm:${dmId}` });
    assert.deepEqual((await latestAbout(b)).snapshot.channel.messages.map((m: { body: string }) => m.body), ['nasty dm']);
    // The outsider names the same channel: the report is taken, the channel is not copied.
    await report(outsider, b, { context: `dm:${dmId}` });
    const r = await latestAbout(b);
    assert.equal(r.reporter.publicId, outsider.publicId);
    assert.equal(r.snapshot.channel, undefined);
    assert.equal(r.snapshot.target.publicId, b.publicId);
  });

  it('only moderators and admins reach the queue; players, API-key callers and anonymous callers do not', async () => {
    const player = await h.user('JustPlayer');
    const server = await h.user('NoRole', { roles: ['server'] });
    const target = await h.user('Reported');
    await report(player, target);
    const id = (await latestAbout(target)).reportId;
    const routes: [string, string, unknown?][] = [
      ['GET', '/v1/moderation/reports'],
      ['GET', `/v1/moderation/reports/${id}`],
      ['POST', `/v1/moderation/reports/${id}/state`, { state: 'in_review' }],
    ];
    for (const [method, url, body] of routes) {
      for (const u of [player, target, server]) {
        const r = await h.req(u, method as 'GET', url, body ? { body } : {});
        assert.equal(r.status, 403, `${method} ${url}`);
        assert.equal(r.body.code, 'moderator_required');
      }
      const apiKey = await h.req(null, method as 'GET', url, {
        ...(body ? { body } : {}),
        headers: { 'x-api-key': 'server-key-0123456789abcdef', 'x-user-id': h.subs[0] },
      });
      assert.equal(apiKey.status, 403);
      assertError(await h.req(null, method as 'GET', url, body ? { body } : {}), 401, 'unauthorized');
    }
    // Nothing moved; the admin reads it.
    const r = await h.req(admin, 'GET', `/v1/moderation/reports/${id}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.state, 'received');
  });

  it('moves received → in_review → actioned with who and when; final states stay final', async () => {
    const [reporter, target] = await h.users('R1', 'T1');
    await report(reporter, target);
    const id = (await latestAbout(target)).reportId;
    const move = (u: TestUser, body: unknown) => h.req(u, 'POST', `/v1/moderation/reports/${id}/state`, { body });
    const review = await move(mod, { state: 'in_review' });
    assert.equal(review.status, 200, JSON.stringify(review.body));
    assert.equal(review.body.state, 'in_review');
    assert.ok(review.body.updatedAt);
    const done = await move(admin, { state: 'actioned', note: 'chat muted for a day' });
    assert.equal(done.status, 200);
    assert.equal(done.body.state, 'actioned');
    assert.deepEqual(
      done.body.history.map((m: { state: string; by: { publicId: string }; note?: string }) => [m.state, m.by.publicId, m.note]),
      [
        ['in_review', mod.publicId, undefined],
        ['actioned', admin.publicId, 'chat muted for a day'],
      ],
    );
    for (const m of done.body.history) assert.ok(!Number.isNaN(Date.parse(m.at)));
    for (const state of ['dismissed', 'in_review', 'actioned']) {
      const again = await move(mod, { state });
      assert.equal(again.status, 409, state);
      assert.equal(again.body.code, 'invalid_transition');
    }
    // in_review → in_review is no move either; a report may also be dismissed straight from received.
    await report(reporter, target, { reason: 'spam' });
    const second = (await latestAbout(target)).reportId;
    assert.equal((await h.req(mod, 'POST', `/v1/moderation/reports/${second}/state`, { body: { state: 'dismissed' } })).body.state, 'dismissed');
  });

  it('filters by state, reason and target, pages newest first with a cursor, and refuses bad cursors', async () => {
    const target = await h.user('Paged');
    const reasons = ['spam', 'cheating', 'spam', 'other', 'spam'];
    // Five reporters: one reporter's repeats would be merged into one report (below).
    for (const reason of reasons) await report(await h.user('Pager'), target, { reason });
    const q = (query: string) => h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(target.publicId)}&${query}`);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await q(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(r.status, 200);
      assert.ok(r.body.reports.length <= 2);
      seen.push(...r.body.reports.map((x: { reportId: string }) => x.reportId));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 5);
    const all = (await q('limit=100')).body.reports;
    assert.deepEqual(all.map((x: { reportId: string }) => x.reportId), seen, 'pages follow the one order');
    assert.deepEqual(all.map((x: { reason: string }) => x.reason), [...reasons].reverse(), 'newest first');
    assert.equal((await q('reason=spam')).body.reports.length, 3);
    await h.req(mod, 'POST', `/v1/moderation/reports/${all[0].reportId}/state`, { body: { state: 'in_review' } });
    assert.deepEqual((await q('state=in_review')).body.reports.map((x: { reportId: string }) => x.reportId), [all[0].reportId]);
    assert.equal((await q('state=received')).body.reports.length, 4);
    const nobody = await h.req(mod, 'GET', '/v1/moderation/reports?targetPublicId=p_nobody');
    assert.deepEqual(nobody.body, { reports: [] });
    for (const bad of ['cursor=%00', 'cursor=not-a-cursor', `cursor=${Buffer.from('r1.00000000-0000-4000-8000-000000000000').toString('base64url')}`, 'cursor=' + 'A'.repeat(201)]) {
      const r = await q(bad);
      assert.equal(r.status, 400, bad);
      assert.ok(['invalid_cursor', 'validation_failed', 'invalid_character'].includes(r.body.code), `${bad}: ${r.body.code}`);
    }
    assert.equal((await q(`cursor=${Buffer.from('r1.00000000-0000-4000-8000-000000000000').toString('base64url')}`)).body.code, 'invalid_cursor');
    // Sealed with the server key: a cursor forged for an existing report (the old plain `r1.<id>`), any bit flip of
    // a real one, and another list's cursor (the notification inbox's) are refused.
    assert.equal((await q(`cursor=${Buffer.from(`r1.${all[2].reportId}`).toString('base64url')}`)).body.code, 'invalid_cursor');
    const real = Buffer.from((await q('limit=1')).body.nextCursor, 'base64url');
    for (let bit = 0; bit < real.length * 8; bit++) {
      const flipped = Buffer.from(real);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      assert.equal((await q(`limit=1&cursor=${flipped.toString('base64url')}`)).body.code, 'invalid_cursor', `bit ${bit}`);
    }
    for (let i = 0; i < 2; i++) await h.req(null, 'POST', '/v1/internal/notifications', { body: { noticeId: randomUUID(), publicId: mod.publicId, message: 'x' }, headers: { authorization: `Bearer ${await h.keys.sign('service:moderation', { roles: ['server'] })}` } });
    const inboxCursor = (await h.req(mod, 'GET', '/v1/notifications?limit=1')).body.nextCursor;
    assert.ok(inboxCursor);
    assert.equal((await q(`cursor=${inboxCursor}`)).body.code, 'invalid_cursor');
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'state=open', 'reason=rude', 'unknown=1']) {
      const r = await q(bad);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.code, 'validation_failed', bad);
    }
  });

  it('a reporter flooding one target makes one report: repeats are merged into it while it is open, with the same answer', async () => {
    const [flooder, target, other] = await h.users('Flooder', 'Flooded', 'Witness');
    await report(flooder, target, { reason: 'spam', context: 'first' });
    // 30 more within the minute (the outreach limit is raised here), in parallel too: all answered 202 received.
    await Promise.all(Array.from({ length: 30 }, (_, i) => report(flooder, target, { reason: i % 2 ? 'spam' : 'harassment', context: `again ${i}` })));
    await report(other, target, { reason: 'cheating' });
    const queue = (await h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(target.publicId)}&limit=100`)).body.reports;
    assert.equal(queue.length, 2, 'one report per reporter');
    const merged = queue.find((r: { reporter: { publicId: string } }) => r.reporter.publicId === flooder.publicId);
    assert.equal(merged.context, 'first');
    assert.equal(merged.repeatCount, 30);
    assert.equal(merged.repeats.length, 20, 'the newest 20 repeats are kept');
    assert.ok(merged.lastReportedAt);
    assert.equal(queue.find((r: { reporter: { publicId: string } }) => r.reporter.publicId === other.publicId).repeatCount, 0);
    // Once the report is decided, a new report is a new one (and merges stop going into the final one).
    assert.equal((await h.req(mod, 'POST', `/v1/moderation/reports/${merged.reportId}/state`, { body: { state: 'dismissed' } })).status, 200);
    await report(flooder, target, { reason: 'harassment', context: 'it started again' });
    await report(flooder, target, { reason: 'harassment', context: 'and again' });
    const after = (await h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(target.publicId)}&limit=100`)).body.reports;
    assert.equal(after.length, 3);
    assert.deepEqual([after[0].context, after[0].repeatCount, after[0].repeats.map((x: { context: string }) => x.context)], ['it started again', 1, ['and again']]);
  });

  it('unknown, malformed and encoded report ids are 404 report_not_found; bad bodies are 400', async () => {
    // %2e%2e is `..`: the path leaves the route (404 route_not_found); a NUL is refused before any route runs.
    const expected: Record<string, [number, string]> = {
      '00000000-0000-4000-8000-000000000000': [404, 'report_not_found'],
      nope: [404, 'report_not_found'],
      '%2e%2e': [404, 'route_not_found'],
      'a%00b': [400, 'invalid_character'],
    };
    for (const [id, [status, code]] of Object.entries(expected)) {
      const r = await h.req(mod, 'GET', `/v1/moderation/reports/${id}`);
      assert.deepEqual([r.status, r.body.code], [status, code], `GET ${id}`);
      const m = await h.req(mod, 'POST', `/v1/moderation/reports/${id}/state`, { body: { state: 'dismissed' } });
      if (id !== '%2e%2e') assert.deepEqual([m.status, m.body.code], [status, code], `POST ${id}`);
    }
    const [reporter, target] = await h.users('BadBodies', 'BadBodiesT');
    await report(reporter, target);
    const url = `/v1/moderation/reports/${(await latestAbout(target)).reportId}/state`;
    const cases: [string, { raw?: string; body?: unknown; headers?: Record<string, string> }, string][] = [
      ['malformed JSON', { raw: '{"state":' }, 'malformed_json'],
      ['missing state', { body: {} }, 'validation_failed'],
      ['received is no move', { body: { state: 'received' } }, 'validation_failed'],
      ['wrong type', { body: { state: 7 } }, 'validation_failed'],
      ['unknown field', { body: { state: 'dismissed', by: 'me' } }, 'validation_failed'],
      ['NUL in the note', { body: { state: 'dismissed', note: 'a\u0000b' } }, 'invalid_character'],
      ['note too long', { body: { state: 'dismissed', note: 'x'.repeat(2001) } }, 'validation_failed'],
      ['deep nesting', { raw: `{"state":"dismissed","note":${'['.repeat(64)}${']'.repeat(64)}}` }, 'too_deep'],
      ['oversized', { raw: JSON.stringify({ state: 'dismissed', note: 'x'.repeat(2_000_000) }) }, 'payload_too_large'],
    ];
    for (const [name, opts, code] of cases) {
      const r = await h.req(mod, 'POST', url, opts);
      assert.equal(r.body.code, code, `${name}: ${JSON.stringify(r.body)}`);
    }
    // Nothing moved.
    assert.equal((await latestAbout(target)).state, 'received');
  });

  it('erasure: a reporter’s erasure keeps the report anonymised; a target’s removes the snapshot too', async () => {
    const [reporter, target] = await h.users('Leaving', 'AlsoLeaving');
    await report(reporter, target);
    const id = (await latestAbout(target)).reportId;
    assert.equal((await h.req(reporter, 'DELETE', '/v1/me')).status, 200);
    let r = (await h.req(mod, 'GET', `/v1/moderation/reports/${id}`)).body;
    assert.equal(r.reporter, null);
    assert.equal(r.target.publicId, target.publicId);
    assert.equal(r.snapshot.target.publicId, target.publicId);
    assert.equal((await h.req(target, 'DELETE', '/v1/me')).status, 200);
    r = (await h.req(mod, 'GET', `/v1/moderation/reports/${id}`)).body;
    assert.equal(r.target, null);
    assert.equal(r.snapshot, null);
    assert.equal(r.reason, 'harassment');
    assert.equal(r.state, 'received');
  });
});

describe('repeated reports past the merge window', () => {
  const h = useHarness({ SOCIAL__REPORTS__MERGEHOURS: '2' }, { now: () => now });
  let now = new Date('2026-01-01T00:00:00Z');

  it('a repeat within the window is merged, one after it is a report of its own', async () => {
    const mod = await h.user('Mod', { roles: ['moderator'] });
    const [a, b] = await h.users('Reporter', 'Reported');
    const file = async (context: string) => assert.equal((await h.req(a, 'POST', '/v1/reports', { body: { targetPublicId: b.publicId, reason: 'spam', context } })).status, 202);
    const queue = async () => (await h.req(mod, 'GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(b.publicId)}`)).body.reports;
    await file('t0');
    now = new Date(now.getTime() + 119 * 60_000);
    await file('t119');
    assert.deepEqual((await queue()).map((r: { context: string; repeatCount: number }) => [r.context, r.repeatCount]), [['t0', 1]]);
    now = new Date(now.getTime() + 2 * 60_000);
    await file('t121');
    assert.deepEqual((await queue()).map((r: { context: string; repeatCount: number }) => [r.context, r.repeatCount]), [['t121', 0], ['t0', 1]]);
  });
});
