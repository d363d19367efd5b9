// The game's text filter on player text (docs/social.md, "Text filter"): party and dm chat over the WebSocket and
// HTTP, display names and status texts, in each mode (mask, reject, flag), the settings carried by the game
// context and updated by the registry's text_filter_changed notice.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { encodeGameCredentialsNotice, GAME_CREDENTIALS_CHANNEL, type TextFilterMode } from '@platform/kit';
import { befriend, type Game } from './support.js';
import { connect, realtimeSuite, type Client } from './realtime/support.js';
import type { TestUser } from './support.js';

const DENY = 'griefer';
/** A message with a deny word (in leetspeak) and a dataset word; masked, both spans become stars. */
const RUDE = 'you gr1ef3r, what the fuck';
const MASKED = 'you *******, what the ****';

describe('text filter', () => {
  const s = realtimeSuite();
  const { h, nodeA } = s;

  const gameWith = (mode: TextFilterMode, more: { allowList?: string[]; version?: number } = {}) =>
    h.registry.addGame('isolated', null, { mode, allowList: more.allowList ?? [], denyList: [DENY], version: more.version ?? 1 });

  /** A socket of `u` opened from `game` (its key and secret in the handshake), set up. */
  const socket = async (u: TestUser, game: Game): Promise<Client> =>
    s.ready(await connect(nodeA.ws, u.token, { headers: { 'x-platform-game-key': game.key, 'x-platform-game-secret': game.secret } }));

  /** A party of two with a socket each, both opened from `game`. */
  async function partyOfTwo(game: Game) {
    const [a, b] = await h.users('Ann', 'Bo');
    await befriend(h, a, b);
    const party = await h.party(a, [b], { visibility: 'FriendsOnly' });
    const [ca, cb] = [await socket(a, game), await socket(b, game)];
    return { a, b, partyId: party.partyId as string, ca, cb };
  }

  async function dmPair() {
    const [a, b] = await h.users('Cy', 'Di');
    await befriend(h, a, b);
    const dm = (await h.req(a, 'GET', '/v1/friends')).body[0].dmChannelId as string;
    return { a, b, dm };
  }

  const historyOf = async (u: TestUser, kind: 'dm' | 'party', id: string) => (await h.req(u, 'GET', `/v1/chat/${kind}/${id}/messages`)).body.messages.map((m: { body: string }) => m.body);

  /** The text filter's reports about `u` in the moderation queue. */
  async function filterReportsAbout(u: TestUser) {
    const mod = await h.user('Mod', { roles: ['moderator'] });
    const r = await h.req(mod, 'GET', '/v1/moderation/reports?limit=100');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.reports as any[]).filter((x) => x.target?.publicId === u.publicId && x.source === 'text_filter');
  }

  describe('party chat over the WebSocket', () => {
    it('mask: the other member gets the message masked, and history keeps it masked', async () => {
      const game = gameWith('mask');
      const p = await partyOfTwo(game);
      p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: RUDE });
      const got = await p.cb.next('chatMessage', (d) => d.fromPublicId === p.a.publicId);
      assert.equal(got.data.body, MASKED);
      assert.equal(got.data.body.length, RUDE.length);
      assert.deepEqual(await historyOf(p.b, 'party', p.partyId), [MASKED]);
    });

    it('reject: the sender gets text_filtered; nothing is stored or delivered', async () => {
      const game = gameWith('reject');
      const p = await partyOfTwo(game);
      p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: RUDE });
      assert.equal((await p.ca.next('error')).data.code, 'text_filtered');
      const clean = `gg ${randomUUID()}`;
      p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: clean });
      // In order per channel: the clean one is the first the other member gets.
      assert.equal((await p.cb.next('chatMessage')).data.body, clean);
      assert.deepEqual(await historyOf(p.b, 'party', p.partyId), [clean]);
    });

    it('flag: delivered unchanged, and a report with no reporter and the message as snapshot reaches moderators', async () => {
      const game = gameWith('flag');
      const p = await partyOfTwo(game);
      p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: RUDE });
      const got = await p.cb.next('chatMessage', (d) => d.fromPublicId === p.a.publicId);
      assert.equal(got.data.body, RUDE);
      let reports: any[] = [];
      for (let i = 0; i < 100 && !reports.length; i++) {
        reports = await filterReportsAbout(p.a);
        if (!reports.length) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(reports.length, 1);
      const [report] = reports;
      assert.equal(report.reporter, null);
      assert.equal(report.reason, 'inappropriate_content');
      assert.equal(report.gameId, game.gameId);
      assert.equal(report.state, 'received');
      assert.deepEqual(report.snapshot.channel.messages.map((m: any) => [m.messageId, m.body]), [[got.data.messageId, RUDE]]);
      assert.equal(report.snapshot.channel.kind, 'party');
      assert.equal(report.snapshot.target.publicId, p.a.publicId);
      // A player's reports are still the player's.
      assert.equal((await h.req(p.b, 'POST', '/v1/reports', { body: { targetPublicId: p.a.publicId, reason: 'harassment' } })).status, 202);
      const mod = await h.user('Mod', { roles: ['moderator'] });
      const all = (await h.req(mod, 'GET', '/v1/moderation/reports?limit=100')).body.reports.filter((x: any) => x.target?.publicId === p.a.publicId);
      assert.deepEqual(all.map((x: any) => x.source).sort(), ['player', 'text_filter']);
    });

    it('clean text and a word on the allow list pass unchanged', async () => {
      const game = gameWith('reject', { allowList: ['cockpit'] });
      const p = await partyOfTwo(game);
      const text = 'back to the cockpit, good game';
      p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: text });
      assert.equal((await p.cb.next('chatMessage')).data.body, text);
    });
  });

  describe('dm chat', () => {
    it('mask over HTTP: stored and delivered masked to the peer’s socket', async () => {
      const game = gameWith('mask');
      const { a, b, dm } = await dmPair();
      const cb = await socket(b, game);
      const r = await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: RUDE }, game });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.body, MASKED);
      assert.equal((await cb.next('chatMessage')).data.body, MASKED);
      assert.deepEqual(await historyOf(b, 'dm', dm), [MASKED]);
    });

    it('reject over HTTP and the socket: 400 text_filtered, nothing stored or delivered', async () => {
      const game = gameWith('reject');
      const { a, b, dm } = await dmPair();
      const [ca, cb] = [await socket(a, game), await socket(b, game)];
      const r = await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: RUDE }, game });
      assert.deepEqual([r.status, r.body.code], [400, 'text_filtered']);
      ca.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: RUDE });
      assert.equal((await ca.next('error')).data.code, 'text_filtered');
      ca.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: 'hello' });
      assert.equal((await cb.next('chatMessage')).data.body, 'hello');
      assert.deepEqual(await historyOf(b, 'dm', dm), ['hello']);
    });

    it('flag over the socket: the peer gets it unchanged; the report snapshot names the dm channel', async () => {
      const game = gameWith('flag');
      const { a, b, dm } = await dmPair();
      const [ca, cb] = [await socket(a, game), await socket(b, game)];
      ca.send({ type: 'chatSend', channel: 'dm', channelId: dm, body: RUDE });
      assert.equal((await cb.next('chatMessage')).data.body, RUDE);
      let reports: any[] = [];
      for (let i = 0; i < 100 && !reports.length; i++) {
        reports = await filterReportsAbout(a);
        if (!reports.length) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(reports.length, 1);
      assert.deepEqual([reports[0].snapshot.channel.kind, reports[0].snapshot.channel.channelId, reports[0].snapshot.channel.messages[0].body], ['dm', dm, RUDE]);
    });

    it('no game context, or a game whose registry sends no filter: nothing is filtered', async () => {
      const { a, b, dm } = await dmPair();
      assert.equal((await h.req(a, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: RUDE } })).body.body, RUDE);
      const plain = h.registry.addGame('isolated');
      assert.equal((await h.req(b, 'POST', `/v1/chat/dm/${dm}/messages`, { body: { body: RUDE }, game: plain })).body.body, RUDE);
    });
  });

  describe('display names and status', () => {
    it('mask: a rude display name is refused (a name cannot hold *), a rude status is masked', async () => {
      const game = gameWith('mask');
      const u = await h.user('Eve');
      for (const r of [
        await h.req(u, 'POST', '/v1/me/name', { body: { displayName: 'Gr1ef3r' }, game }),
        await h.req(u, 'PATCH', '/v1/me/profile', { body: { displayName: 'Big Griefer' }, game }),
      ]) {
        assert.deepEqual([r.status, r.body.code, r.body.field], [400, 'text_filtered', 'displayName']);
      }
      const r = await h.req(u, 'PATCH', '/v1/me/profile', { body: { status: RUDE }, game });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.status, MASKED);
      assert.equal(r.body.displayName, 'Eve');
    });

    it('reject: name and status refused with text_filtered, nothing changed (not the name either)', async () => {
      const game = gameWith('reject');
      const u = await h.user('Fay');
      const r = await h.req(u, 'PATCH', '/v1/me/profile', { body: { displayName: 'Fay Two', status: RUDE }, game });
      assert.deepEqual([r.status, r.body.code, r.body.field], [400, 'text_filtered', 'status']);
      const me = (await h.req(u, 'GET', '/v1/me')).body;
      assert.deepEqual([me.profile.displayName, me.profile.status], ['Fay', null]);
      assert.equal((await h.req(u, 'PATCH', '/v1/me/profile', { body: { status: 'ready to play' }, game })).status, 200);
    });

    it('flag: the name is taken, and a report (offensive_name) reaches moderators', async () => {
      const game = gameWith('flag');
      const u = await h.user('Gus');
      const r = await h.req(u, 'POST', '/v1/me/name', { body: { displayName: 'Griefer' }, game });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const reports = await filterReportsAbout(u);
      assert.equal(reports.length, 1);
      assert.equal(reports[0].reason, 'offensive_name');
      assert.equal(reports[0].reporter, null);
      assert.equal(reports[0].snapshot.target.displayName, 'Griefer');
      assert.equal(reports[0].snapshot.channel, undefined);
    });
  });

  it('a text_filter_changed notice applies to sockets already open, at once', async () => {
    const game = gameWith('off', { version: 1 });
    const p = await partyOfTwo(game);
    p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: RUDE });
    assert.equal((await p.cb.next('chatMessage')).data.body, RUDE);
    const notice = {
      change: 'text_filter_changed' as const,
      gameId: game.gameId,
      apiKey: game.key,
      textFilter: { mode: 'reject' as const, allowList: [], denyList: [DENY], version: 2 },
      at: new Date().toISOString(),
    };
    await h.state.state.publish(GAME_CREDENTIALS_CHANNEL, encodeGameCredentialsNotice(notice));
    // The notice arrives a moment after the publish (pub/sub): waited for, then the open socket is refused.
    const carried = { mode: 'off' as const, allowList: [], denyList: [], version: 1 };
    for (let i = 0; i < 200 && h.app.ctx.textFilters.settingsFor(game.gameId, carried).version !== 2; i++) await new Promise((r) => setTimeout(r, 25));
    p.ca.send({ type: 'chatSend', channel: 'party', channelId: p.partyId, body: RUDE });
    assert.equal((await p.ca.next('error')).data.code, 'text_filtered');
    assert.equal(p.ca.seen('error').length, 0, 'the socket stays open and only the refusal came');
    assert.equal(p.ca.ws.readyState, p.ca.ws.OPEN);
  });
});
