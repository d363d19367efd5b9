// Sanctions across the real services (docs/auth.md and docs/social.md, "Sanctions"): real auth, two social nodes
// on the same database and state store (real PostgreSQL and Redis when DATABASE_URL and REDIS_URL are set), once
// through the shared bus alone and once through the outbox alone. A ban set in auth closes the player's sockets
// on both nodes (4003); a chat sanction makes both nodes refuse the player's chat (HTTP and socket) and its lift
// allows it again; a moderation action in social sanctions through auth with the moderator's own token. The
// latencies (from auth's record of the sanction to what each node shows) are printed, not asserted: the figure
// belongs to the bench.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startPlatform, type Client, type Platform, type SocialNode } from '../src/index.js';
import { guest, open, type Sock } from './revocation-support.js';

/** The next frame (after `from`) matching, within 5 s. */
async function frameAfter(s: Sock, from: number, match: (f: { type: string; data: any }) => boolean) {
  for (let i = 0; i < 250; i++) {
    const f = s.frames.slice(from).find(match);
    if (f) return f;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`no matching frame: ${JSON.stringify(s.frames.slice(from))}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function scenarios(label: string, options: Parameters<typeof startPlatform>[0]) {
  describe(label, () => {
    let p: Platform;
    let nodeB: SocialNode;
    let ca: string;
    let admin: string;
    const nodes = () => [p.social, nodeB];

    /** A guest given these roles, its token refreshed to carry them. */
    async function staff(roles: string[]) {
      const g = await guest(p);
      await p.auth.app.auth.db.query(`UPDATE accounts SET roles = $2::text[] WHERE id = $1`, [g.accountId, roles]);
      const r = await p.auth.call('POST', '/refresh', { body: { refresh_token: g.refresh } });
      assert.equal(r.status, 200);
      return { ...g, token: r.body.access_token as string };
    }

    /** A player who upgraded from guest (a token without the guest claim): guests may not report (docs/social.md, "Guest restrictions"). */
    async function upgradedPlayer() {
      const g = await guest(p);
      await p.auth.app.auth.db.query(`UPDATE accounts SET is_guest = false WHERE id = $1`, [g.accountId]);
      const r = await p.auth.call('POST', '/refresh', { body: { refresh_token: g.refresh } });
      assert.equal(r.status, 200);
      return { ...g, token: r.body.access_token as string };
    }

    /** A player with a party of their own and a set-up socket on each node. */
    async function chatter() {
      const g = await guest(p);
      const party = await p.social.call('POST', '/v1/parties', { token: g.token, body: { visibility: 'Public' } });
      assert.equal(party.status, 201, JSON.stringify(party.body));
      const socks = [await open(p.social, g.token, ca), await open(nodeB, g.token, ca)];
      return { g, partyId: party.body.partyId as string, socks };
    }

    const send = (node: Client, token: string, partyId: string) => node.call('POST', `/v1/chat/party/${partyId}/messages`, { token, body: { body: 'hello' } });

    /** Each node refuses (or, `allowed`, accepts) the player's chat over HTTP, asked until it does (5 s); when, per node. */
    async function chatOnEveryNode(c: Awaited<ReturnType<typeof chatter>>, allowed: boolean): Promise<number[]> {
      const at: number[] = [];
      for (const node of nodes()) {
        let r = await send(node, c.g.token, c.partyId);
        for (let i = 0; i < 250 && (r.status === 201) !== allowed; i++) {
          await sleep(20);
          r = await send(node, c.g.token, c.partyId);
        }
        at.push(Date.now());
        if (allowed) assert.equal(r.status, 201, JSON.stringify(r.body));
        else assert.deepEqual([r.status, r.body.code], [403, 'chat_restricted'], JSON.stringify(r.body));
      }
      // And over each socket.
      for (const s of c.socks) {
        const from = s.frames.length;
        const marker = `m-${Math.random()}`;
        s.ws.send(JSON.stringify({ type: 'chatSend', channel: 'party', channelId: c.partyId, body: marker }));
        const f = await frameAfter(s, from, (x) => (allowed ? x.type === 'chatMessage' && x.data.body === marker : x.type === 'error'));
        if (!allowed) assert.equal(f.data.code, 'chat_restricted');
      }
      return at;
    }

    before(async () => {
      p = await startPlatform(options);
      nodeB = await p.addSocialNode();
      ca = p.socialTls.cert;
      admin = (await staff(['player', 'admin'])).token;
    });
    after(() => p?.close());

    it('a ban set in auth closes the player’s sockets on both nodes (4003) and refuses sign-in with account_banned', async () => {
      const g = await guest(p);
      const socks = [await open(p.social, g.token, ca), await open(nodeB, g.token, ca)];
      const ban = await p.auth.call('POST', `/admin/accounts/${g.accountId}/sanctions`, { token: admin, body: { type: 'ban', reason: 'Cheating', duration_seconds: 3600 } });
      assert.equal(ban.status, 201, JSON.stringify(ban.body));
      const closes = await Promise.all(
        socks.map(async (s) => {
          const c = await Promise.race([s.closed, sleep(5000).then(() => undefined)]);
          assert.ok(c, 'the socket was still open 5 s after the ban');
          return c;
        }),
      );
      for (const c of closes) assert.deepEqual([c.code, c.reason], [4003, 'account_disabled']);
      const createdAt = Date.parse(ban.body.created_at);
      console.log(`[${label}] ban → socket closed: node A ${closes[0].at - createdAt} ms, node B ${closes[1].at - createdAt} ms after auth recorded the ban`);
      const restore = await p.auth.call('POST', '/guest/restore', { body: { account_id: g.accountId, guest_secret: g.secret, device_fingerprint: g.fingerprint } });
      assert.deepEqual([restore.status, restore.body.code, restore.body.reason], [403, 'account_banned', 'Cheating']);
      for (const node of nodes()) assert.equal((await node.call('GET', '/v1/me', { token: g.token })).body.code, 'token_revoked');
    });

    it('a chat sanction set in auth is refused on both nodes (HTTP and socket); lifted, chat works again on both', async () => {
      const c = await chatter();
      await chatOnEveryNode(c, true);
      const s = await p.auth.call('POST', `/admin/accounts/${c.g.accountId}/sanctions`, { token: admin, body: { type: 'chat', reason: 'Spam' } });
      assert.equal(s.status, 201, JSON.stringify(s.body));
      const refused = await chatOnEveryNode(c, false);
      const createdAt = Date.parse(s.body.created_at);
      console.log(`[${label}] chat sanction → refused: node A ${refused[0] - createdAt} ms, node B ${refused[1] - createdAt} ms after auth recorded it (an upper bound: includes the checks)`);
      const lift = await p.auth.call('POST', `/admin/sanctions/${s.body.id}/lift`, { token: admin, body: { reason: 'Appeal' } });
      assert.equal(lift.status, 200);
      const allowed = await chatOnEveryNode(c, true);
      console.log(`[${label}] chat sanction lifted → allowed: node A ${allowed[0] - Date.parse(lift.body.lifted_at)} ms, node B ${allowed[1] - Date.parse(lift.body.lifted_at)} ms`);
      for (const x of c.socks) x.ws.close();
    });

    it('a moderation action in social sanctions the report’s target through auth with the moderator’s token; the report is actioned', async () => {
      const mod = await staff(['player', 'moderator']);
      const reporter = await upgradedPlayer();
      const c = await chatter();
      const me = await p.social.call('GET', '/v1/me', { token: c.g.token });
      assert.equal((await p.social.call('POST', '/v1/reports', { token: reporter.token, body: { targetPublicId: me.body.publicId, reason: 'harassment' } })).status, 202);
      const queue = await nodeB.call('GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(me.body.publicId)}`, { token: mod.token });
      const reportId = queue.body.reports[0].reportId as string;
      const path = `/v1/moderation/reports/${reportId}/actions`;
      // A player: social refuses; an unknown type: auth refuses, mapped.
      const player = await nodeB.call('POST', path, { token: reporter.token, body: { sanction: { type: 'chat', reason: 'x' } } });
      assert.deepEqual([player.status, player.body.code], [403, 'moderator_required']);
      const badType = await nodeB.call('POST', path, { token: mod.token, body: { sanction: { type: 'voice', reason: 'x' } } });
      assert.deepEqual([badType.status, badType.body.code, badType.body.authCode], [400, 'invalid_sanction', 'unknown_sanction_type']);
      const r = await nodeB.call('POST', path, { token: mod.token, body: { sanction: { type: 'chat', reason: 'Insults in party chat', durationSeconds: 3600 }, note: 'confirmed' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.report.state, 'actioned');
      const entry = r.body.report.history.at(-1);
      assert.deepEqual([entry.state, entry.note, entry.sanctionId], ['actioned', 'confirmed', r.body.sanction.id]);
      assert.deepEqual([r.body.sanction.type, r.body.sanction.reason, r.body.sanction.active], ['chat', 'Insults in party chat', true]);
      // The report an appeal of this sanction stands beside (the console's appeal page): found by its sanction id.
      const bySanction = await nodeB.call('GET', `/v1/moderation/reports?sanctionId=${r.body.sanction.id}`, { token: mod.token });
      assert.deepEqual(bySanction.body.reports.map((x: any) => x.reportId), [reportId]);
      assert.deepEqual((await nodeB.call('GET', '/v1/moderation/reports?sanctionId=00000000-0000-4000-8000-000000000000', { token: mod.token })).body.reports, []);
      assert.equal((await nodeB.call('GET', '/v1/moderation/reports?sanctionId=not-a-uuid', { token: mod.token })).status, 400);
      assert.ok(!JSON.stringify(r.body).includes(c.g.accountId), 'no account id leaves social');
      // Auth recorded the moderator as the author; the player sees the sanction; chat is refused on both nodes.
      const list = await p.auth.call('GET', `/admin/accounts/${c.g.accountId}/sanctions`, { token: admin });
      assert.deepEqual([list.body.sanctions[0].id, list.body.sanctions[0].created_by], [r.body.sanction.id, mod.accountId]);
      assert.equal((await p.auth.call('GET', '/account/sanctions', { token: c.g.token })).body.sanctions[0].reason, 'Insults in party chat');
      await chatOnEveryNode(c, false);
      // Acted on already: 409, and auth is not asked again.
      const again = await nodeB.call('POST', path, { token: mod.token, body: { sanction: { type: 'chat', reason: 'x' } } });
      assert.deepEqual([again.status, again.body.code], [409, 'invalid_transition']);
      assert.equal((await p.auth.call('GET', `/admin/accounts/${c.g.accountId}/sanctions`, { token: admin })).body.sanctions.length, 1);
      // A moderator acting on a report about an admin: auth refuses (only an admin sanctions staff).
      const target = await staff(['player', 'admin']);
      const adminMe = await p.social.call('GET', '/v1/me', { token: target.token });
      await p.social.call('POST', '/v1/reports', { token: reporter.token, body: { targetPublicId: adminMe.body.publicId, reason: 'harassment' } });
      const q2 = await nodeB.call('GET', `/v1/moderation/reports?targetPublicId=${encodeURIComponent(adminMe.body.publicId)}`, { token: mod.token });
      const refused = await nodeB.call('POST', `/v1/moderation/reports/${q2.body.reports[0].reportId}/actions`, { token: mod.token, body: { sanction: { type: 'ban', reason: 'x' } } });
      assert.deepEqual([refused.status, refused.body.code], [403, 'sanction_forbidden']);
      for (const x of c.socks) x.ws.close();
    });
  });
}

scenarios('sanctions through the shared bus (no outbox)', { sharedBus: true, authEnv: { AUTH_OUTBOX_TARGETS: '' } });
scenarios('sanctions through the outbox (no shared bus)', {});
