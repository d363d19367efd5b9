// The Steam friends client (adapters/steam-friends.ts; docs/social.md, "Platform friends") against a real local
// node:http server in Steam's GetFriendList format: the friends (relationship `friend` only), a private profile
// (401: no friends, not an error), other statuses, malformed JSON, an answer past the size bound, an answer that
// trickles past the deadline; the key never in an error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES, steamFriendList, SteamFriendsError } from '../src/adapters/steam-friends.js';

const KEY = 'steam-key-never-shown-0123456789';

describe('Steam GetFriendList client', () => {
  let server: http.Server;
  let base: string;
  const seen: URL[] = [];
  const answers = new Map<string, (res: http.ServerResponse) => void>();

  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://steam.test');
      seen.push(url);
      const answer = answers.get(url.searchParams.get('steamid') ?? '');
      if (!answer) return void res.writeHead(404).end();
      answer(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const json = (body: unknown, status = 200) => (res: http.ServerResponse) => res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  const ask = (steamId: string, timeoutMs = 2000) => steamFriendList({ baseUrl: base, apiKey: KEY, timeoutMs }, steamId);
  const failure = async (steamId: string, timeoutMs?: number) => {
    const err = await ask(steamId, timeoutMs).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof SteamFriendsError, String(err));
    assert.ok(!err.message.includes(KEY) && !String(err.stack).includes(KEY), 'the key is never in an error');
    return err;
  };

  it('reads the documented answer: relationship friend only, duplicates once, the query Steam documents', async () => {
    answers.set('76561197960287930', json({
      friendslist: {
        friends: [
          { steamid: '76561197960265731', relationship: 'friend', friend_since: 0 },
          { steamid: '76561197960265738', relationship: 'friend', friend_since: 1_600_000_000 },
          { steamid: '76561197960265738', relationship: 'friend', friend_since: 1_600_000_000 },
          { steamid: '76561197960265740', relationship: 'requestrecipient', friend_since: 0 },
        ],
      },
    }));
    assert.deepEqual(await ask('76561197960287930'), { visible: true, steamIds: ['76561197960265731', '76561197960265738'] });
    const url = seen.at(-1)!;
    assert.equal(url.pathname, '/ISteamUser/GetFriendList/v0001/', 'a trailing slash of the base URL is not doubled');
    assert.deepEqual([url.searchParams.get('key'), url.searchParams.get('steamid'), url.searchParams.get('relationship')], [KEY, '76561197960287930', 'friend']);
    // No friends: an empty list, or an empty object.
    answers.set('1', json({ friendslist: { friends: [] } }));
    answers.set('2', json({}));
    assert.deepEqual(await ask('1'), { visible: true, steamIds: [] });
    assert.deepEqual(await ask('2'), { visible: true, steamIds: [] });
  });

  it('a private profile (401) is no friends, not an error', async () => {
    answers.set('3', (res) => res.writeHead(401, { 'content-type': 'text/html' }).end('<html><body>Unauthorized</body></html>'));
    assert.deepEqual(await ask('3'), { visible: false });
  });

  it('other statuses, malformed or wrong-shaped JSON, a too large answer, a trickle past the deadline, no server: failures with a reason', async () => {
    answers.set('10', json('<html>Internal Server Error</html>', 500));
    answers.set('11', json('<html>Forbidden</html>', 403));
    answers.set('12', json('{"friendslist":{"friends":[{"steamid":'));
    answers.set('13', json({ friendslist: { friends: 'none' } }));
    answers.set('14', json({ friendslist: { friends: [{ steamid: 76561197960265731, relationship: 'friend' }] } }));
    answers.set('15', json({ friendslist: { friends: [{ steamid: '7656119796026573x', relationship: 'friend' }] } }));
    answers.set('16', json('[]'));
    answers.set('17', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(MAX_BODY_BYTES + 1)));
    answers.set('18', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    assert.deepEqual([(await failure('10')).reason, (await failure('10')).status], ['status', 500]);
    assert.deepEqual([(await failure('11')).reason, (await failure('11')).status], ['status', 403]);
    for (const id of ['12', '13', '14', '15', '16']) assert.equal((await failure(id)).reason, 'malformed', id);
    assert.ok(['too_large', 'network'].includes((await failure('17')).reason));
    assert.ok(['timeout', 'network'].includes((await failure('18', 300)).reason));
    const nobody = http.createServer();
    await new Promise<void>((r) => nobody.listen(0, '127.0.0.1', r));
    const port = (nobody.address() as AddressInfo).port;
    await new Promise((r) => nobody.close(r));
    const err = await steamFriendList({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, timeoutMs: 2000 }, '1').catch((e: unknown) => e);
    assert.ok(err instanceof SteamFriendsError && err.reason === 'network');
  });
});
