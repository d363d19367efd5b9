/** The frames of social's /v1/ws (docs/social-realtime.md): server events, client frames, close codes. */
import type { ChatKind, ChatMessage, GroupInvite, GroupMember, Invite, Notification, PartyMember, Presence, PresenceInput, RequestSummary } from './types.js';

/** Payload of each server → client frame `{type, data}`, by type. */
export interface ServerEvents {
  /** A friend's presence changed (online, away, busy, offline, rich presence); `sameGame` when in the caller's game. */
  friendPresenceChanged: { publicId: string; state: Presence['state']; richPresence?: Presence['richPresence']; sameGame: boolean };
  /** Someone sent the player a friend request. */
  friendRequestReceived: RequestSummary;
  /** A friend request the player sent was accepted: the two are friends now. */
  friendRequestAccepted: RequestSummary;
  /**
   * A friendship made without a request: the game imports platform friends with `befriend` (a Steam friend who plays
   * the game); both players hear it, no inbox entry.
   */
  friendAdded: { publicId: string; fullHandle: string; displayName: string; source: 'platform' };
  /** A friendship of the player's ended. */
  friendRemoved: { publicId: string };
  /** A friend changed their name, avatar or status. */
  friendProfileChanged: { publicId: string; handle: string; discriminator: string; fullHandle: string; displayName: string; avatarUrl?: string; status?: string };
  /** Someone invited the player into their party. */
  partyInviteReceived: Invite;
  /** A friend invited the player into their game session. */
  gameInviteReceived: Invite;
  /** A member joined one of the player's parties. */
  partyMemberJoined: { partyId: string; member: PartyMember };
  /** A member left one of the player's parties (`left`, `kicked`, or the party `deleted`); `disbanded` when it is gone. */
  partyMemberLeft: { partyId: string; publicId: string; reason: 'left' | 'kicked' | 'deleted'; disbanded: boolean };
  /** The leader of one of the player's parties changed. */
  partyLeaderChanged: { partyId: string; leaderPublicId: string; previousLeaderPublicId: string | null };
  /** Someone asked to join a `request` group in which the player may accept requests (the asker's publicId, handle, name). */
  groupJoinRequested: { groupId: string; publicId: string; fullHandle: string; displayName: string };
  /** Someone invited the player into a group (accept with `social.acceptGroupInvite(inviteId)`). */
  groupInviteReceived: GroupInvite;
  /** A member joined one of the player's groups (the player included: their own join is announced to them too). */
  groupMemberJoined: { groupId: string; member: GroupMember };
  /**
   * A member left one of the player's groups: `left`, `kicked`, `banned`, or `deleted` (their account's social data
   * was erased). A kicked or banned player hears about themselves too.
   */
  groupMemberLeft: { groupId: string; publicId: string; reason: 'left' | 'kicked' | 'banned' | 'deleted' };
  /** A member of one of the player's groups got a new role (an ownership transfer sends two: the new owner, the old owner now `admin`). */
  groupRoleChanged: { groupId: string; publicId: string; role: string };
  /** One of the player's groups was disbanded by its owner. */
  groupDisbanded: { groupId: string; name: string };
  /** A chat message in a channel the player is in (direct, party). */
  chatMessage: ChatMessage;
  /** A notification stored in the inbox (what `social.notifications()` lists), delivered live. */
  notification: Notification;
  /** The answer to a heartbeat: `lapsed` when the presence had expired (the client then sets it again). */
  heartbeatAck: { presence: 'live' | 'lapsed' };
  /** The answer to a presenceUpdate: the presence as the caller sees it. */
  presenceUpdated: Presence;
  /** A refused client frame; the socket stays open. */
  error: { code: string; message: string; retryAfterSeconds?: number };
  /** The answer to an `authenticate` frame: the socket now holds the new token, which expires at `expiresAt` (ISO 8601). */
  authenticated: { expiresAt: string };
  /**
   * Once per socket, after what it missed was replayed (`resumed: true`) or at once on a first connection: live
   * events from here on. Its `id` is the position to resume from.
   */
  caughtUp: { resumed: boolean };
  /**
   * Instead of `caughtUp`, once per socket: what the client missed is no longer kept (`expired`: older or more than
   * the server keeps) or its last id is not one of this server's (`invalid`). Reload the state over HTTP (friends,
   * requests, invites, party, chat history); live events follow.
   */
  resync: { reason: 'expired' | 'invalid' | 'interrupted' };
}
export type ServerEventType = keyof ServerEvents;
/**
 * A server frame. `id`: the event's id (docs/social-realtime.md, "Resume and replay"), on every event frame and
 * on caughtUp / resync; ids only grow; the client resumes from the last it saw.
 */
export type ServerFrame = { [K in ServerEventType]: { type: K; data: ServerEvents[K]; id?: string } }[ServerEventType];

/** Client → server frames: flat objects with a `type`. */
export type ClientFrame =
  | { type: 'heartbeat' }
  | ({ type: 'presenceUpdate' } & PresenceInput)
  | { type: 'chatSend'; channel: ChatKind; channelId: string; body: string }
  /** A new access token of the same account for the open socket (sent by the client when the session refreshes). */
  | { type: 'authenticate'; token: string };

/** Why a socket closed, from its close code (docs/social-realtime.md, "Limits and close codes"). */
export type CloseReason =
  | 'closed_by_client'
  | 'server_shutdown'
  | 'connection_lost'
  | 'flooding'
  | 'frame_too_large'
  | 'server_error'
  | 'account_deleted'
  | 'session_revoked'
  | 'account_disabled'
  | 'token_expired'
  | 'game_credentials_revoked'
  | 'slow_consumer'
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'too_many_sockets'
  | 'unavailable'
  | 'signed_out'
  | 'unknown';

export const CLOSE_REASONS: Readonly<Record<number, CloseReason>> = {
  1000: 'closed_by_client',
  1001: 'server_shutdown',
  1006: 'connection_lost',
  1008: 'flooding',
  1009: 'frame_too_large',
  1011: 'server_error',
  4001: 'account_deleted',
  // The session was ended (sign-out elsewhere, refresh-token reuse) or the account locked or banned: the SDK
  // signs the session out locally and does not reconnect.
  4002: 'session_revoked',
  4003: 'account_disabled',
  // The socket's token expired (past the server's grace) without a new one: reconnect with a refreshed token.
  4004: 'token_expired',
  // The game's client key (or key and secret) this socket opened with was replaced, or the game deleted.
  4005: 'game_credentials_revoked',
  4008: 'slow_consumer',
  // A refused connection (docs/social-realtime.md, "Refused connections"): 4000 + the HTTP status, after an
  // error frame whose code is the close's errorCode.
  4400: 'bad_request',
  4401: 'unauthorized',
  4403: 'forbidden',
  4429: 'too_many_sockets',
  4500: 'server_error',
  4503: 'unavailable',
};

/** The reason name (`CLOSE_REASONS`) of a WebSocket close code; `unknown` for a code not listed. */
export const closeReason = (code: number): CloseReason => CLOSE_REASONS[code] ?? 'unknown';

/** Lifecycle of the realtime client. */
export interface LifecycleEvents {
  /** The socket is open and subscribed (the first heartbeat was answered): events flow from now on. */
  open: { reconnected: boolean };
  /**
   * The socket closed. `errorCode`: when the last frame before the close (heartbeat answers aside) was an error
   * frame, its code — e.g. `rate_limited` before 1008.
   */
  close: { code: number; reason: CloseReason; errorCode?: string; willReconnect: boolean };
  /** A reconnect is scheduled in `delayMs`. */
  reconnecting: { attempt: number; delayMs: number };
}

export type RealtimeEvents = ServerEvents & LifecycleEvents;
