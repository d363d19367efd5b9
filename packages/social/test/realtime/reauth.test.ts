// Token expiry on an open socket and re-authentication (docs/social-realtime.md, "Token expiry and
// re-authentication"), with real tokens of the test key set: a socket whose token expired longer ago than the
// grace (2 s here) gets a token_expired error frame and close 4004; an `authenticate` frame with a new token of
// the same account extends it (`authenticated {expiresAt}`), also within the grace after the old token's exp;
// refused tokens and malformed frames are error frames and change nothing; API-key sockets do not expire.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '@platform/kit/testing';
import { type TestUser } from '../support.js';
import { connect, type Client, realtimeSuite } from './support.js';

const GRACE_S = 2;
const API_KEY = 'server-to-server-key-0123456789';

describe('realtime: token expiry and re-authentication', () => {
  const logs = captureLogs();
  const { h, nodeA: url, ready } = realtimeSuite({ SOCIAL__REALTIME__TOKENGRACESECONDS: String(GRACE_S), SOCIAL__AUTH__APIKEY: API_KEY, LOG_LEVEL: 'info' }, { opts: { logStream: logs.stream } });
  const tokens: string[] = [];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A token of `u` expiring `seconds` from now, and the earliest instant (ms) its socket may be closed. */
  const shortToken = async (u: TestUser, seconds: number) => {
    const floor = Math.floor(Date.now() / 1000);
    const token = await h.keys.sign(u.sub, { expOffsetSec: seconds });
    tokens.push(token);
    return { token, closeNotBefore: (floor + seconds + GRACE_S) * 1000 };
  };
  const open = async (token: string | null, headers?: Record<string, string>) => {
    return ready(await connect(url.ws, token, headers ? { headers } : {}));
  };
  const stillOpen = async (c: Client) => {
    c.send({ type: 'heartbeat' });
    await c.next('heartbeatAck');
  };
  /** The first `authenticated` or `error` frame after the first `start` frames: its data, or the error's code. */
  const answerAfter = async (c: Client, start: number) => {
    for (let i = 0; i < 800; i++) {
      const f = c.frames.slice(start).find((x) => x.type === 'authenticated' || x.type === 'error');
      if (f) return f.type === 'error' ? f.data.code : f.data;
      await sleep(10);
    }
    throw new Error(`no answer; got ${JSON.stringify(c.frames.slice(start))}`);
  };
  /** Sends an authenticate frame and returns the answer: `authenticated` data, or the error frame's code. */
  const authenticate = async (c: Client, frame: Record<string, unknown>) => {
    const start = c.frames.length;
    c.send({ type: 'authenticate', ...frame });
    return answerAfter(c, start);
  };
  const expiredWith4004 = async (c: Client, notBefore: number) => {
    const closed = await c.closed;
    assert.deepEqual(closed, { code: 4004, reason: 'token_expired' });
    assert.ok(Date.now() >= notBefore - 20, `closed ${notBefore - Date.now()} ms before the token's exp + grace`);
    const last = c.frames[c.frames.length - 1];
    assert.equal(last.type, 'error');
    assert.equal(last.data.code, 'token_expired');
  };

  it('a socket whose token expired longer ago than the grace gets token_expired and close 4004; an API-key socket stays', async () => {
    const u = await h.user('Ulla');
    const { token, closeNotBefore } = await shortToken(u, 1);
    const c = await open(token);
    const server = await open(null, { 'x-api-key': API_KEY, 'x-user-id': 'acct-reauth-server' });
    await expiredWith4004(c, closeNotBefore);
    await sleep(200);
    await stillOpen(server);
  });

  it('authenticate with a new token of the same account: answered with its expiry, the socket outlives the old token and keeps its events', async () => {
    const [u, friend] = await h.friends('Vera', 'Walt');
    const { token, closeNotBefore } = await shortToken(u, 1);
    const c = await open(token);
    const floor = Math.floor(Date.now() / 1000);
    const fresh = await h.keys.sign(u.sub);
    tokens.push(fresh);
    const answer = await authenticate(c, { token: fresh });
    const expiresAt = Date.parse(answer.expiresAt);
    assert.equal(new Date(expiresAt).toISOString(), answer.expiresAt, 'an ISO 8601 instant');
    assert.ok(expiresAt >= (floor + 600) * 1000 && expiresAt <= (floor + 602) * 1000, `expiresAt ${answer.expiresAt}`);
    await sleep(closeNotBefore - Date.now() + 500);
    await stillOpen(c);
    await h.req(friend, 'POST', '/v1/presence', { body: { state: 'busy' } });
    await c.next('friendPresenceChanged', (d) => d.publicId === friend.publicId && d.state === 'busy');
    assert.ok(!c.seen('error').length, JSON.stringify(c.seen('error')));
  });

  it('re-authenticating within the grace after the old token expired keeps the socket; a JWT works as a PASETO does', async () => {
    const u = await h.user('Xena');
    const { token, closeNotBefore } = await shortToken(u, 1);
    const c = await open(token);
    // Past the old token's exp (closeNotBefore - grace), within the grace.
    await sleep(closeNotBefore - GRACE_S * 1000 - Date.now() + 300);
    const jwt = await h.keys.sign(u.sub, { format: 'jwt' });
    tokens.push(jwt);
    assert.equal(typeof (await authenticate(c, { token: jwt })).expiresAt, 'string');
    await sleep(closeNotBefore - Date.now() + 500);
    await stillOpen(c);
  });

  it('the last token presented rules: a shorter one brings the close forward', async () => {
    const u = await h.user('Yuri');
    const c = await open(u.token);
    const { token, closeNotBefore } = await shortToken(u, 1);
    await authenticate(c, { token });
    await expiredWith4004(c, closeNotBefore);
  });

  it('refused tokens are error frames (unauthorized, account_mismatch); the socket stays and keeps its old expiry', async () => {
    const [u, other] = await h.users('Zoe', 'Abe');
    const { token, closeNotBefore } = await shortToken(u, 1);
    const c = await open(token);
    const refusals: [string, string][] = [
      [other.token, 'account_mismatch'],
      ['not-a-token', 'unauthorized'],
      [`${token} ${token}`, 'unauthorized'],
      [await h.keys.sign(u.sub, { expOffsetSec: -120 }), 'unauthorized'],
      [await h.keys.sign(u.sub, { key: 'other' }), 'unauthorized'],
      [await h.keys.sign(u.sub, { aud: 'another-audience' }), 'unauthorized'],
      [await h.keys.sign(u.sub, { iss: 'https://elsewhere.test' }), 'unauthorized'],
      [token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA'), 'unauthorized'],
    ];
    for (const [t, code] of refusals) {
      tokens.push(t);
      assert.equal(await authenticate(c, { token: t }), code, `token ${t.slice(0, 16)}…`);
    }
    await stillOpen(c);
    await expiredWith4004(c, closeNotBefore);
  });

  it('malformed authenticate frames are bad_frame; the socket stays', async () => {
    const u = await h.user('Bo');
    const c = await open(u.token);
    const bad: Record<string, unknown>[] = [{}, { token: 5 }, { token: null }, { token: '' }, { token: u.token, extra: 1 }, { token: `${u.token}\u0000` }, { token: 'x'.repeat(8193) }, { token: [u.token] }];
    for (const frame of bad) assert.equal(await authenticate(c, frame), 'bad_frame', JSON.stringify(frame).slice(0, 80));
    const start = c.frames.length;
    c.send('{"type":"authenticate","token":');
    assert.equal(await answerAfter(c, start), 'bad_frame');
    await stillOpen(c);
    assert.equal(c.seen('authenticated').length, 0);
  });

  it('an API-key socket may present a token of its account; it then expires with that token', async () => {
    const u = await h.user('Cleo');
    const c = await open(null, { 'x-api-key': API_KEY, 'x-user-id': u.sub });
    assert.equal(await authenticate(c, { token: (await h.user('Dora')).token }), 'account_mismatch');
    const { token, closeNotBefore } = await shortToken(u, 1);
    assert.equal(typeof (await authenticate(c, { token })).expiresAt, 'string');
    await expiredWith4004(c, closeNotBefore);
  });

  it('tokens sent in authenticate frames never reach the logs', () => {
    const text = logs.text();
    assert.ok(text.includes('websocket closed'), 'the socket layer logs');
    const real = tokens.filter((t) => t.length > 100);
    assert.ok(real.length > 10);
    for (const t of real) assert.ok(!text.includes(t.slice(10, 60)), 'a token reached the logs');
  });
});
