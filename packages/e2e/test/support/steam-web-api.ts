/**
 * A local Steam Web API for the platform friends tests (docs/social.md, "Platform friends"): a real node:http server
 * answering ISteamUser/GetFriendList/v0001 in Steam's documented format,
 * `{"friendslist":{"friends":[{"steamid":"…","relationship":"friend","friend_since":N}]}}`, per steamid as a test sets
 * it: a friend list, a private profile (401, as Steam answers), a 500, an answer slower than any timeout, malformed
 * JSON. A wrong key is 403 (Steam's answer). Calls are counted per steamid.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type SteamAnswer = { friends: string[] } | 'private' | 'error' | 'slow' | 'malformed';

export interface SteamWebApi {
  url: string;
  answers: Map<string, SteamAnswer>;
  calls(steamId: string): number;
  /** Requests whose key was not the configured one (403), or whose path or parameters were not GetFriendList's. */
  refused(): number;
  close(): Promise<void>;
}

export async function startSteamWebApi(key: string): Promise<SteamWebApi> {
  const answers = new Map<string, SteamAnswer>();
  const counts = new Map<string, number>();
  let refused = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://steam.test');
    const steamId = url.searchParams.get('steamid') ?? '';
    if (url.pathname !== '/ISteamUser/GetFriendList/v0001/' || url.searchParams.get('relationship') !== 'friend' || req.method !== 'GET') {
      refused++;
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('key') !== key) {
      refused++;
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body><h1>Forbidden</h1>Access is denied. Retrying will not help. Please verify your <pre>key=</pre> parameter.</body></html>');
      return;
    }
    counts.set(steamId, (counts.get(steamId) ?? 0) + 1);
    const answer = answers.get(steamId) ?? { friends: [] };
    if (answer === 'private') return void res.writeHead(401, { 'content-type': 'text/html' }).end('<html><head><title>Unauthorized</title></head><body><h1>Unauthorized</h1></body></html>');
    if (answer === 'error') return void res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body><h1>Internal Server Error</h1></body></html>');
    if (answer === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"friendslist":{"friends":[{"steamid":');
    const body = JSON.stringify({ friendslist: { friends: answer === 'slow' ? [] : answer.friends.map((id, i) => ({ steamid: id, relationship: 'friend', friend_since: 1_600_000_000 + i })) } });
    if (answer === 'slow') {
      // Headers at once, the body never within any timeout the test sets (the server's close cuts it).
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.slice(0, 10));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    calls: (id) => counts.get(id) ?? 0,
    refused: () => refused,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
