/**
 * The base of `client.social`: the request helper, and finding people to play with (docs/social.md, "Finding
 * players"): recent players, suggestions, open parties. Split from social.ts by size only; callers see one class.
 */
import { seg, type HttpService, type RequestOptions } from './http.js';
import type { OpenPartiesPage, OpenPartiesQuery, PageQuery, PartyListing, PartyListingInput, RecentPlayersPage, SuggestionsPage } from './types.js';

type Authed = <T>(call: (token: string) => Promise<T>) => Promise<T>;

/** Finding people to play with: the part of `client.social` (SocialApi) for recent players, suggestions and open parties. */
export class SocialFindingApi {
  constructor(
    private readonly http: HttpService,
    private readonly authed: Authed,
  ) {}

  /** @internal One authenticated request to the social service. */
  protected call<T>(method: string, path: string, more: Omit<RequestOptions, 'method' | 'path' | 'token'> = {}): Promise<T> {
    return this.authed((token) => this.http.request<T>({ method, path, token, ...more }));
  }

  // ---- finding players ----
  /**
   * The players the caller last played with in this game (rosters the game server posted), newest first; the next
   * page with `cursor` = `nextCursor`. Report one with `report({…, context: 'match:' + matchId})`.
   */
  recentPlayers(query: PageQuery = {}): Promise<RecentPlayersPage> {
    return this.call('GET', '/v1/me/recent-players', { query });
  }
  /**
   * People the caller may know: platform friends who play this game (Steam friends, `source: 'platform'`), then
   * friends of friends (most mutual friends first), then recent players of this game.
   */
  suggestions(query: PageQuery = {}): Promise<SuggestionsPage> {
    return this.call('GET', '/v1/me/suggestions', { query });
  }
  /** Leader only: lists the party in this game with `mode`, `region`, `language`, `metadata` (replaces an earlier listing). */
  listParty(partyId: string, listing: PartyListingInput = {}): Promise<PartyListing> {
    return this.call('PUT', `/v1/parties/${seg(partyId)}/listing`, { body: listing });
  }
  /** Leader only: stops listing the party (also when it was not listed). */
  unlistParty(partyId: string): Promise<void> {
    return this.call('DELETE', `/v1/parties/${seg(partyId)}/listing`);
  }
  /** Listed parties of this game that would admit the caller (not full, not private), filtered; join with `joinParty`. */
  openParties(query: OpenPartiesQuery = {}): Promise<OpenPartiesPage> {
    return this.call('GET', '/v1/parties', { query });
  }
}
