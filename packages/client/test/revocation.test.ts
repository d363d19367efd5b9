/**
 * The SDK when the server ends the session (docs/social-realtime.md, close codes 4002 and 4003): the socket
 * closes with a typed reason and no reconnect, the session is signed out locally (`signedOut`), and a token
 * social refuses as `token_revoked` signs the session out too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeReason, type LifecycleEvents, type SessionEvent } from '../src/index.js';
import { player, rejects, usePlatform } from './support.js';

describe('client: the session ended by the server', () => {
  const { tp, sockets } = usePlatform();

  /** A signed-in player with an open socket, recording its closes, reconnects and session events. */
  async function connected(name: string) {
    const c = await player(tp, name);
    const rt = c.realtime();
    sockets.push(rt);
    const closes: LifecycleEvents['close'][] = [];
    const sessionEvents: SessionEvent[] = [];
    let reconnects = 0;
    rt.on('close', (e) => closes.push(e));
    rt.on('reconnecting', () => reconnects++);
    c.session.onChange((e) => sessionEvents.push(e));
    await rt.connect();
    const s = (await c.session.get())!;
    return { c, rt, closes, sessionEvents, reconnects: () => reconnects, accessToken: s.accessToken, accountId: s.accountId! };
  }

  it('maps 4002 and 4003 to session_revoked and account_disabled', () => {
    assert.deepEqual([4001, 4002, 4003].map(closeReason), ['account_deleted', 'session_revoked', 'account_disabled']);
  });

  it('a sign-out elsewhere closes the socket with session_revoked, for good, and signs the session out here', async () => {
    const p = await connected('Rhea');
    const closed = p.rt.next('close');
    assert.equal((await tp.platform.auth.call('POST', '/logout', { token: p.accessToken })).status, 204);
    assert.deepEqual(await closed, { code: 4002, reason: 'session_revoked', willReconnect: false });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(p.reconnects(), 0);
    assert.equal(p.rt.connected, false);
    assert.equal(await p.c.session.isSignedIn(), false);
    assert.deepEqual(p.sessionEvents.at(-1), { type: 'signedOut', reason: 'revoked' });
    // connect() again: there is no session to take a token from.
    await rejects(p.rt.connect(), 401, 'not_signed_in');
  });

  it('a ban closes the socket with account_disabled and signs the session out (reason disabled)', async () => {
    const admin = await player(tp, 'Op');
    const adminId = (await admin.session.get())!.accountId!;
    await tp.platform.auth.app.auth.db.query(`UPDATE accounts SET roles = ARRAY['player', 'admin'] WHERE id = $1`, [adminId]);
    const adminToken = (await admin.session.refresh()).accessToken;
    const p = await connected('Tess');
    const closed = p.rt.next('close');
    const ban = await tp.platform.auth.call('POST', `/admin/accounts/${p.accountId}/status`, { token: adminToken, body: { status: 'banned' } });
    assert.equal(ban.status, 200);
    assert.deepEqual(await closed, { code: 4003, reason: 'account_disabled', willReconnect: false });
    assert.equal(p.reconnects(), 0);
    assert.deepEqual(p.sessionEvents.at(-1), { type: 'signedOut', reason: 'disabled' });
  });

  it('a social call with a revoked token fails with token_revoked and signs the session out', async () => {
    const c = await player(tp, 'Uma');
    const events: SessionEvent[] = [];
    c.session.onChange((e) => events.push(e));
    const token = (await c.session.get())!.accessToken;
    assert.equal((await tp.platform.auth.call('POST', '/logout', { token })).status, 204);
    await rejects(c.social.me(), 401, 'token_revoked');
    assert.equal(await c.session.isSignedIn(), false);
    assert.deepEqual(events, [{ type: 'signedOut', reason: 'revoked' }]);
  });
});
