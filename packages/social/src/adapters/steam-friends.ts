/**
 * Steam's friends API (docs/social.md, "Platform friends"; decision 0030): ISteamUser/GetFriendList/v0001 of the
 * Steam Web API, at Social:PlatformFriends:SteamApiUrl with Social:PlatformFriends:SteamApiKey. The documented
 * answer is `{"friendslist":{"friends":[{"steamid":"…","relationship":"friend","friend_since":N}]}}`; a private
 * profile answers 401, which is no friends to import, not a failure. Everything else (a network failure, a timeout,
 * another status, a body that is not that JSON or is too large) is a `SteamFriendsError` with a reason, never
 * carrying the key or the URL (it holds the key).
 */
import http from 'node:http';
import https from 'node:https';

/** A Steam friend list is at most 2,000 friends; more entries are not read. */
export const MAX_FRIENDS = 2000;
/** The most bytes read of an answer (2,000 friends are about 160 KB). */
export const MAX_BODY_BYTES = 1024 * 1024;
const STEAM_ID = /^\d{1,20}$/;

export type SteamFailure = 'network' | 'timeout' | 'status' | 'malformed' | 'too_large';

export class SteamFriendsError extends Error {
  constructor(
    readonly reason: SteamFailure,
    readonly status?: number,
  ) {
    super(`Steam GetFriendList failed: ${reason}${status ? ` (HTTP ${status})` : ''}`);
  }
}

export type FriendList = { visible: true; steamIds: string[] } | { visible: false };

export interface SteamFriendsOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** The steamid64s of the player's friends (relationship `friend`), or `visible: false` for a private profile. */
export async function steamFriendList(opts: SteamFriendsOptions, steamId: string): Promise<FriendList> {
  const url = new URL(`${opts.baseUrl.replace(/\/+$/, '')}/ISteamUser/GetFriendList/v0001/`);
  url.search = new URLSearchParams({ key: opts.apiKey, steamid: steamId, relationship: 'friend', format: 'json' }).toString();
  const { status, body } = await get(url, opts.timeoutMs);
  if (status === 401) return { visible: false };
  if (status !== 200) throw new SteamFriendsError('status', status);
  return { visible: true, steamIds: parseFriendList(body) };
}

/** The documented answer's friends; anything else is `malformed`. */
export function parseFriendList(text: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SteamFriendsError('malformed');
  }
  const list = (json as { friendslist?: { friends?: unknown } } | null)?.friendslist;
  // A player without friends: Steam answers {"friendslist":{"friends":[]}} (or, seen in the wild, {}).
  if (json !== null && typeof json === 'object' && !Array.isArray(json) && list === undefined) return [];
  if (!list || typeof list !== 'object' || !Array.isArray(list.friends)) throw new SteamFriendsError('malformed');
  const out = new Set<string>();
  for (const f of list.friends.slice(0, MAX_FRIENDS) as unknown[]) {
    const entry = f as { steamid?: unknown; relationship?: unknown };
    if (typeof entry?.steamid !== 'string' || !STEAM_ID.test(entry.steamid)) throw new SteamFriendsError('malformed');
    if (entry.relationship === undefined || entry.relationship === 'friend') out.add(entry.steamid);
  }
  return [...out];
}

function get(url: URL, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method: 'GET', headers: { accept: 'application/json' }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) return req.destroy(new SteamFriendsError('too_large'));
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => reject(err instanceof SteamFriendsError ? err : new SteamFriendsError('network')));
    });
    // The whole answer within the timeout, not only each read: a server trickling bytes is cut as well.
    const deadline = setTimeout(() => req.destroy(new SteamFriendsError('timeout')), timeoutMs);
    req.on('timeout', () => req.destroy(new SteamFriendsError('timeout')));
    req.on('error', (err) => reject(err instanceof SteamFriendsError ? err : new SteamFriendsError('network')));
    req.on('close', () => clearTimeout(deadline));
    req.end();
  });
}
