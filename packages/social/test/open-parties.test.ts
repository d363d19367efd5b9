// Open parties (docs/social.md, "Open parties"; decision 0029): a leader lists the party in its game with
// attributes; players of the game list those that would admit them (not full, not Private, FriendsOnly for friends,
// no block) and join with the party's own rules; listings go when the party is full, private or gone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from '@platform/kit/testing';
import { befriend, useHarness, type Game, type TestUser } from './support.js';

describe('open parties', () => {
  const h = useHarness({}, { checkAccountIds: true });
  const open = async (u: TestUser, game?: Game, query = '') => {
    const r = await h.req(u, 'GET', `/v1/parties${query}`, game ? { game } : {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { parties: { partyId: string; freeSlots: number; memberCount: number; mode: string | null; [k: string]: unknown }[]; nextCursor: string | null };
  };
  const list = (u: TestUser, partyId: string, body: unknown, game?: Game) => h.req(u, 'PUT', `/v1/parties/${partyId}/listing`, { body, ...(game ? { game } : {}) });

  it('a listed party is found in its game with its attributes and free slots; joining follows its rules until full', async () => {
    const game = h.registry.addGame('isolated');
    const other = h.registry.addGame('isolated');
    const [lead, mate, seeker, late] = await h.users('Lead', 'Mate', 'Seeker', 'Late');
    const party = await h.party(lead, [mate], { maxSize: 3, visibility: 'Public' });
    const listed = await list(lead, party.partyId, { mode: 'ranked', region: 'eu-west', language: 'pt-BR', metadata: { note: 'chill' } }, game);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual({ ...listed.body, listedAt: undefined }, { mode: 'ranked', region: 'eu-west', language: 'pt-BR', metadata: { note: 'chill' }, listedAt: undefined });
    const found = await open(seeker, game);
    assert.equal(found.parties.length, 1);
    assert.deepEqual(
      { ...found.parties[0], listedAt: undefined },
      {
        partyId: party.partyId,
        leaderPublicId: lead.publicId,
        leaderFullHandle: lead.fullHandle,
        visibility: 'Public',
        maxSize: 3,
        memberCount: 2,
        freeSlots: 1,
        mode: 'ranked',
        region: 'eu-west',
        language: 'pt-BR',
        metadata: { note: 'chill' },
        listedAt: undefined,
      },
    );
    // Filters (case-insensitive), other games and no game.
    assert.equal((await open(seeker, game, '?mode=RANKED&region=eu-west&language=pt-br')).parties.length, 1);
    assert.equal((await open(seeker, game, '?mode=casual')).parties.length, 0);
    assert.equal((await open(seeker, other)).parties.length, 0);
    assert.equal((await open(seeker)).parties.length, 0);
    assert.equal((await open(mate, game)).parties.length, 0, 'members do not see their own party');
    assert.equal((await h.req(seeker, 'POST', `/v1/parties/${party.partyId}/join`, { body: {}, game })).status, 200);
    assert.equal((await open(late, game)).parties.length, 0, 'a full party is not listed');
    assert.equal((await h.req(seeker, 'POST', `/v1/parties/${party.partyId}/leave`)).status, 200);
    assert.equal((await open(late, game)).parties.length, 1, 'a seat freed lists it again');
  });

  it('Private hides it, FriendsOnly shows it to friends of members only, blocks hide it, gone or unlisted parties vanish', async () => {
    const game = h.registry.addGame('isolated');
    const [lead, friend, stranger, blocker] = await h.users('Owner', 'Pal', 'Stranger', 'Grudge');
    await befriend(h, lead, friend);
    const party = await h.party(lead, [], { maxSize: 4, visibility: 'Public' });
    assert.equal((await list(lead, party.partyId, {}, game)).status, 200);
    assert.equal((await h.req(blocker, 'POST', `/v1/blocks/${lead.publicId}`)).status, 204);
    assert.equal((await open(blocker, game)).parties.length, 0);
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${party.partyId}/visibility`, { body: { visibility: 'FriendsOnly' } })).status, 200);
    assert.equal((await open(friend, game)).parties.length, 1);
    assert.equal((await open(stranger, game)).parties.length, 0);
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${party.partyId}/visibility`, { body: { visibility: 'Private' } })).status, 200);
    assert.equal((await open(friend, game)).parties.length, 0);
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${party.partyId}/visibility`, { body: { visibility: 'Public' } })).status, 200);
    assert.equal((await open(stranger, game)).parties.length, 1);
    assert.equal((await h.req(lead, 'DELETE', `/v1/parties/${party.partyId}/listing`)).status, 204);
    assert.equal((await h.req(lead, 'DELETE', `/v1/parties/${party.partyId}/listing`)).status, 204, 'idempotent');
    assert.equal((await open(stranger, game)).parties.length, 0);
    assert.equal((await list(lead, party.partyId, { mode: 'duo' }, game)).status, 200);
    const exp = await h.req(lead, 'GET', '/v1/me/export');
    assert.equal(exp.body.partyListing.mode, 'duo');
    assert.equal((await h.req(lead, 'POST', `/v1/parties/${party.partyId}/leave`)).status, 200);
    assert.equal((await open(stranger, game)).parties.length, 0, 'a disbanded party is gone');
    assert.equal((await h.db.db.query('SELECT 1 FROM party_listings WHERE party_id = $1', [party.partyId])).rows.length, 0);
  });

  it('paged newest first with sealed cursors', async () => {
    const game = h.registry.addGame('isolated');
    const leads = await h.users('L1', 'L2', 'L3');
    const seeker = await h.user('Pager');
    const parties = [];
    for (const l of leads) {
      const p = await h.party(l, [], { visibility: 'Public' });
      assert.equal((await list(l, p.partyId, { mode: 'pg' }, game)).status, 200);
      parties.push(p.partyId);
    }
    const p1 = await open(seeker, game, '?limit=2');
    assert.equal(p1.parties.length, 2);
    assert.ok(p1.nextCursor);
    const p2 = await open(seeker, game, `?limit=2&cursor=${p1.nextCursor}`);
    assert.equal(p2.parties.length, 1);
    assert.equal(p2.nextCursor, null);
    assert.deepEqual([...p1.parties, ...p2.parties].map((p) => p.partyId).sort(), [...parties].sort());
    assertError(await h.req(seeker, 'GET', `/v1/parties?cursor=${p1.nextCursor}`, { game: h.registry.addGame('isolated') }), 400, 'invalid_cursor');
    assertError(await h.req(seeker, 'GET', '/v1/parties?cursor=x', { game }), 400, 'invalid_cursor');
    assertError(await h.req(seeker, 'GET', '/v1/parties?limit=51', { game }), 400, 'validation_failed');
    assertError(await h.req(seeker, 'GET', '/v1/parties?size=2', { game }), 400, 'validation_failed');
    assertError(await h.req(null, 'GET', '/v1/parties', { game }), 401, 'unauthorized');
  });

  it('listing: leader only, members only, bounded attributes', async () => {
    const game = h.registry.addGame('isolated');
    const [lead, mate, outsider] = await h.users('Boss', 'Crew', 'Nosy');
    const party = await h.party(lead, [mate], { visibility: 'Public' });
    assertError(await list(mate, party.partyId, {}, game), 403, 'not_leader');
    assertError(await list(outsider, party.partyId, {}, game), 404, 'party_not_found');
    assertError(await list(lead, '00000000-0000-4000-8000-000000000000', {}, game), 404, 'party_not_found');
    assertError(await list(lead, 'not-a-uuid', {}, game), 404, 'party_not_found');
    assertError(await h.req(mate, 'DELETE', `/v1/parties/${party.partyId}/listing`), 403, 'not_leader');
    assertError(await h.req(outsider, 'DELETE', `/v1/parties/${party.partyId}/listing`), 404, 'party_not_found');
    const bad: [unknown, number, string][] = [
      [{ mode: 'has space' }, 400, 'validation_failed'],
      [{ region: 'x'.repeat(33) }, 400, 'validation_failed'],
      [{ language: 'english!' }, 400, 'invalid_language'],
      [{ metadata: { blob: 'x'.repeat(1100) } }, 400, 'metadata_too_large'],
      [{ metadata: 'text' }, 400, 'validation_failed'],
      [{ mode: 'a\u0000' }, 400, 'invalid_character'],
      [{ extra: 1 }, 400, 'validation_failed'],
    ];
    for (const [body, status, code] of bad) assertError(await list(lead, party.partyId, body, game), status, code);
    assertError(await h.req(lead, 'PUT', `/v1/parties/${party.partyId}/listing`, { raw: '{', game, headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    assertError(await list(null as unknown as TestUser, party.partyId, {}, game), 401, 'unauthorized');
    assert.equal((await open(outsider, game)).parties.length, 0, 'nothing was listed');
  });
});
