/**
 * Social's metrics (docs/social-realtime.md, "Metrics"), on top of the kit's HTTP, process and database pool
 * metrics: open sockets, event frames delivered and dropped (by reason), refused per-user limits, and the
 * replay and resync counts of a resumed socket (defined here; counted by the replay work through
 * `replayed()` and `resync()`).
 */
import { createMetrics, databaseMetrics, type Database, type ServiceMetrics } from '@platform/kit';

/**
 * Why an event frame did not reach a socket:
 * - `slow_consumer`: the socket's send buffer was over SOCIAL_REALTIME_SEND_BUFFER_BYTES (the socket is cut, 4008);
 * - `socket_closing`: the socket was already closing (cut as a slow consumer, or closing);
 * - `no_recipient`: the event reached this node's channel after its last socket left;
 * - `dispatch_failed`: the dispatch threw (a read it needed failed);
 * - `unreadable`: a message from the state store that is not an event (another version, corruption);
 * - `publish_failed`: the state store refused the publish: no other node received the event.
 */
export type DropReason = 'slow_consumer' | 'socket_closing' | 'no_recipient' | 'dispatch_failed' | 'unreadable' | 'publish_failed';

export interface SocialMetrics {
  readonly metrics: ServiceMetrics;
  /** An event frame written to a socket. */
  delivered(): void;
  dropped(reason: DropReason): void;
  /** A per-user limit refused (chat, outreach, search, frames). */
  rateLimited(limit: 'chat' | 'outreach' | 'search' | 'frames' | 'group_create' | 'group_search' | 'guest_slow'): void;
  /** Player text the game's text filter found something in, by the game's mode (services/text-filter.ts). */
  textFiltered(mode: 'mask' | 'reject' | 'flag'): void;
  /** A platform friends refresh ended (services/platform-friends.ts), by outcome. */
  platformFriendsRefreshed(outcome: 'imported' | 'private' | 'no_identity' | 'platform_failed' | 'auth_failed' | 'failed'): void;
  /** Events sent again to a resumed socket (the replay work calls it with the count replayed). */
  replayed(events: number): void;
  /** A resumed socket told to resync (its missed events no longer kept), or every socket after lost subscriptions. */
  resync(): void;
  /**
   * A message heard from the state store: on a user or party channel (`event`) or the fan-out channel (`fanout`);
   * `local`: a socket on this node was among its recipients. Messages with none are the cost of a channel this node
   * did not need (docs/social-realtime.md, "Metrics").
   */
  busMessage(channel: 'event' | 'fanout', local: boolean): void;
  /** A WebSocket upgrade refused 503 server_busy (Social:Realtime:MaxPendingUpgrades were being authenticated). */
  upgradeShed(): void;
  /**
   * A socket closed, by its close code: the code this node closed it with, or else the client's (1006: the TCP
   * connection ended without a close frame). Codes outside the documented list count as `other`.
   */
  socketClosed(code: number): void;
  /** The node's sockets and channels, read at each scrape. */
  watchRealtime(realtime: { connections(): number; subscribedChannels(): string[] }): void;
}

/** Close codes counted under their own label (docs/social-realtime.md, "Limits and close codes"); a client's own codes are not a label's worth each. */
const COUNTED_CLOSE_CODES = new Set([1000, 1001, 1005, 1006, 1008, 1009, 1011, 4001, 4002, 4003, 4004, 4005, 4008]);

export function createSocialMetrics(db: Database): SocialMetrics {
  const metrics = createMetrics('social');
  databaseMetrics(metrics, db);
  const delivered = metrics.counter('events_delivered_total', 'Event frames written to a WebSocket on this node (one per socket)');
  const dropped = metrics.counter('events_dropped_total', 'Event frames that reached no socket, by reason (docs/social-realtime.md, "Metrics")', ['reason']);
  const limited = metrics.counter('rate_limited_total', 'Requests and frames refused by a per-user limit, by limit', ['limit']);
  const filtered = metrics.counter('text_filtered_total', "Player texts (chat, names, status) the game's text filter matched, by the game's mode", ['mode']);
  const platformFriends = metrics.counter(
    'platform_friends_refreshes_total',
    'Platform friends refreshes, by outcome: imported, private (a private profile: nothing to import), no_identity, platform_failed, auth_failed, failed',
    ['outcome'],
  );
  const replayed = metrics.counter('replayed_events_total', 'Events sent again to a resumed WebSocket');
  const resyncs = metrics.counter('resyncs_total', 'WebSockets told to resync (their missed events were no longer kept, or this node lost its subscriptions)');
  const bus = metrics.counter('bus_messages_total', 'Messages heard from the state store, by channel kind and whether a socket on this node was a recipient', ['channel', 'local']);
  const shed = metrics.counter('ws_upgrades_shed_total', 'WebSocket upgrades refused 503 server_busy: the node was authenticating as many as Social:Realtime:MaxPendingUpgrades');
  const closes = metrics.counter('ws_closes_total', 'WebSockets closed, by close code (this node\'s code when it closed the socket, else the client\'s; unlisted codes: other)', ['code']);
  let realtime: { connections(): number; subscribedChannels(): string[] } | undefined;
  metrics.gauge('ws_open_sockets', 'WebSockets open on this node', [], (g) => {
    g.set(realtime?.connections() ?? 0);
  });
  metrics.gauge('ws_subscribed_channels', 'Event channels this node is subscribed to (users and parties with a socket here)', [], (g) => {
    g.set(realtime?.subscribedChannels().length ?? 0);
  });
  const deliveredChild = delivered.labels();
  return {
    metrics,
    delivered: () => deliveredChild.inc(),
    dropped: (reason) => dropped.inc({ reason }),
    rateLimited: (limit) => limited.inc({ limit }),
    textFiltered: (mode) => filtered.inc({ mode }),
    platformFriendsRefreshed: (outcome) => platformFriends.inc({ outcome }),
    replayed: (events) => replayed.inc(events),
    resync: () => resyncs.inc(),
    upgradeShed: () => shed.inc(),
    socketClosed: (code) => closes.inc({ code: COUNTED_CLOSE_CODES.has(code) ? String(code) : 'other' }),
    busMessage: (channel, local) => bus.inc({ channel, local: local ? 'yes' : 'no' }),
    watchRealtime(r) {
      realtime = r;
    },
  };
}
