/** Every player operation of the social service (/v1/…), typed from its OpenAPI document. */
import { seg } from './http.js';
import { SocialFindingApi } from './social-finding.js';
import type {
  ChatHistory,
  ChatHistoryQuery,
  ChatKind,
  ChatMessage,
  CreateGroupInput,
  CreatePartyInput,
  Erased,
  FriendSummary,
  GameInviteInput,
  GameJoinResult,
  Group,
  GroupInvite,
  GroupInvites,
  GroupJoinRequests,
  GroupJoinResult,
  GroupLeaveResult,
  GroupMember,
  GroupMemberPage,
  GroupPageQuery,
  GroupPatch,
  GroupRole,
  GroupRoleInput,
  GroupRoles,
  GroupSearchPage,
  GroupSearchQuery,
  Invite,
  JoinMetadata,
  JoinResult,
  LeaveResult,
  Me,
  MemberTarget,
  MyGroups,
  Note,
  Notification,
  NotificationPage,
  NotificationQuery,
  Party,
  PartyVisibility,
  Presence,
  PresenceInput,
  PrivacyExport,
  Profile,
  ProfilePatch,
  ReadAllResult,
  ReportInput,
  ReportReceived,
  RequestDirection,
  RequestSummary,
  SearchQuery,
  Target,
  UnreadCount,
  UserSummary,
} from './types.js';

/**
 * The social service's player API (`client.social`): profile, search, reports, friends, blocks, mutes, parties, groups,
 * presence, invites, notes, chat, the notification inbox, and (from SocialFindingApi) recent players, suggestions and
 * open parties.
 */
export class SocialApi extends SocialFindingApi {
  // ---- self and users ----
  /** The signed-in player's social profile (`GET /v1/me`): publicId, fullHandle, display name. */
  me(): Promise<Me> {
    return this.call('GET', '/v1/me');
  }
  /**
   * Changes the caller's profile fields (avatar, status …); friends get friendProfileChanged. The display name and
   * status go through the game's text filter: a status may come back masked (`*`); refused text throws a
   * PlatformError `text_filtered` (400, `field` names it).
   */
  updateProfile(patch: ProfilePatch): Promise<Profile> {
    return this.call('PATCH', '/v1/me/profile', { body: patch });
  }
  /**
   * Changes the display name; a new discriminator is drawn when needed. Friends get friendProfileChanged. A name
   * the game's text filter matches is refused with PlatformError `text_filtered` (400) in modes reject and mask.
   */
  changeName(displayName: string): Promise<Me> {
    return this.call('POST', '/v1/me/name', { body: { displayName } });
  }
  /** The caller's social data, as a privacy export (friends, blocks, notes, messages …). */
  exportData(): Promise<PrivacyExport> {
    return this.call('GET', '/v1/me/export');
  }
  /** Erases the caller's social data (friends, notes, messages …); open sockets close with 4001. */
  eraseSocialData(): Promise<Erased> {
    return this.call('DELETE', '/v1/me');
  }
  /** Players of this game by exact `Name#1234`, or by a name prefix (at least 2 characters; only players who are `searchable`). */
  searchUsers(handle: string, query: SearchQuery = {}): Promise<UserSummary[]> {
    return this.call('GET', '/v1/users/search', { query: { handle, ...query } });
  }
  /** Reports a player to the moderators (a reason and optional context); answers the report's id. */
  report(input: ReportInput): Promise<ReportReceived> {
    return this.call('POST', '/v1/reports', { body: input });
  }

  // ---- friends, blocks, mutes ----
  /** The caller's friends with their presence. */
  friends(): Promise<FriendSummary[]> {
    return this.call('GET', '/v1/friends');
  }
  /** Exactly one of `{toHandle}` / `{toPublicId}`. A crossing request is accepted at once (state `accepted`). */
  sendFriendRequest(target: Target): Promise<RequestSummary> {
    return this.call('POST', '/v1/friends/requests', { body: target });
  }
  /** Pending friend requests: `incoming` (default) or `outgoing`. */
  friendRequests(dir: RequestDirection = 'incoming'): Promise<RequestSummary[]> {
    return this.call('GET', '/v1/friends/requests', { query: { dir } });
  }
  /** Takes the requester's publicId. */
  acceptFriendRequest(publicId: string): Promise<RequestSummary> {
    return this.call('POST', `/v1/friends/requests/${seg(publicId)}/accept`);
  }
  /** Declines the request from that user (takes the requester's publicId). */
  declineFriendRequest(publicId: string): Promise<RequestSummary> {
    return this.call('POST', `/v1/friends/requests/${seg(publicId)}/decline`);
  }
  /** Cancels the caller's outgoing request to that user. */
  cancelFriendRequest(publicId: string): Promise<void> {
    return this.call('DELETE', `/v1/friends/requests/${seg(publicId)}`);
  }
  /** Ends a friendship; the other player gets friendRemoved. */
  removeFriend(publicId: string): Promise<void> {
    return this.call('DELETE', `/v1/friends/${seg(publicId)}`);
  }
  /** Blocks a user (`POST /v1/blocks/{publicId}`). */
  block(publicId: string): Promise<void> {
    return this.call('POST', `/v1/blocks/${seg(publicId)}`);
  }
  /** Lifts a block. */
  unblock(publicId: string): Promise<void> {
    return this.call('DELETE', `/v1/blocks/${seg(publicId)}`);
  }
  /** Mutes a user (`POST /v1/mutes/{publicId}`). */
  mute(publicId: string): Promise<void> {
    return this.call('POST', `/v1/mutes/${seg(publicId)}`);
  }
  /** Lifts a mute. */
  unmute(publicId: string): Promise<void> {
    return this.call('DELETE', `/v1/mutes/${seg(publicId)}`);
  }

  // ---- parties ----
  /** Creates a party led by the caller (`maxSize`, `visibility`). */
  createParty(input: CreatePartyInput = {}): Promise<Party> {
    return this.call('POST', '/v1/parties', { body: input });
  }
  /** One party the caller belongs to (or may see), with its members. */
  party(partyId: string): Promise<Party> {
    return this.call('GET', `/v1/parties/${seg(partyId)}`);
  }
  /** Invites a user (`{toHandle}` or `{toPublicId}`) to the party; they get partyInviteReceived. */
  inviteToParty(partyId: string, target: Target): Promise<Invite> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/invites`, { body: target });
  }
  /** Joins with an invite, or without one where the party's visibility allows it. */
  joinParty(partyId: string, inviteId?: string): Promise<JoinResult> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/join`, { body: inviteId === undefined ? {} : { inviteId } });
  }
  /** Leaves the party; the other members get partyMemberLeft. */
  leaveParty(partyId: string): Promise<LeaveResult> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/leave`);
  }
  /** Leader only: removes a member from the party. */
  kick(partyId: string, member: MemberTarget): Promise<Party> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/kick`, { body: member });
  }
  /** Leader only: makes another member the leader. */
  transferLeadership(partyId: string, member: MemberTarget): Promise<Party> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/leader`, { body: member });
  }
  /** Sets the party's game session handle, or clears it when absent. */
  setPartySession(partyId: string, sessionHandle?: string): Promise<Party> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/session`, { body: sessionHandle === undefined ? {} : { sessionHandle } });
  }
  /** Leader only: who may join without an invite (`private`, `friends`, `public`). */
  setPartyVisibility(partyId: string, visibility: PartyVisibility): Promise<Party> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/visibility`, { body: { visibility } });
  }
  /** Leader only: the join information (lobby id, bag) members and invitees receive. */
  setJoinMetadata(partyId: string, join: JoinMetadata): Promise<Party> {
    return this.call('POST', `/v1/parties/${seg(partyId)}/join-metadata`, { body: join });
  }

  // ---- groups (docs/social.md, "Groups"): one game's clans and guilds ----
  /**
   * Creates a group in the caller's game, owned by the caller (`name`, `tag`, optional `description`, `language`,
   * `avatarUrl`, `metadata`, `joinPolicy` (default `request`), `memberLimit`). 409 `group_name_taken`; a guest may
   * be refused with 403 `guest_restricted` (`group_create`).
   */
  createGroup(input: CreateGroupInput): Promise<Group> {
    return this.call('POST', '/v1/groups', { body: input });
  }
  /** One group (with `myRole` when the caller is a member); 404 `group_not_found`. */
  group(groupId: string): Promise<Group> {
    return this.call('GET', `/v1/groups/${seg(groupId)}`);
  }
  /** Permission `edit`: changes the fields given; absent fields stay. */
  updateGroup(groupId: string, patch: GroupPatch): Promise<Group> {
    return this.call('PATCH', `/v1/groups/${seg(groupId)}`, { body: patch });
  }
  /** The owner only: ends the group; every member gets groupDisbanded. */
  disbandGroup(groupId: string): Promise<void> {
    return this.call('DELETE', `/v1/groups/${seg(groupId)}`);
  }
  /** The caller's game's groups in name order, by name `prefix`, `tag`, `language`, `open` only; the next page with `cursor` = `nextCursor`. */
  findGroups(query: GroupSearchQuery = {}): Promise<GroupSearchPage> {
    return this.call('GET', '/v1/groups', { query });
  }
  /** The caller's groups in their game, each with `myRole`. */
  myGroups(): Promise<MyGroups> {
    return this.call('GET', '/v1/me/groups');
  }
  /**
   * Joins an open group (`state: 'joined'`; the members get groupMemberJoined), or files a join request in a
   * `request` group (`state: 'requested'`; those who may accept get groupJoinRequested). 403 `group_join_denied`
   * for an `invite` group.
   */
  joinGroup(groupId: string): Promise<GroupJoinResult> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/join`);
  }
  /** Leaves the group (`left`) or withdraws a pending join request (`withdrawn`); an owner with others in the group must hand it over first (409 `owner_must_transfer`). */
  leaveGroup(groupId: string): Promise<GroupLeaveResult> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/leave`);
  }
  /** The group's members with their roles, in joining order; the next page with `cursor` = `nextCursor`. */
  groupMembers(groupId: string, query: GroupPageQuery = {}): Promise<GroupMemberPage> {
    return this.call('GET', `/v1/groups/${seg(groupId)}/members`, { query });
  }
  /** Permission `accept_requests`: the pending join requests, oldest first. */
  groupRequests(groupId: string): Promise<GroupJoinRequests> {
    return this.call('GET', `/v1/groups/${seg(groupId)}/requests`);
  }
  /** Permission `accept_requests`: admits the player (their publicId) as a member; the members get groupMemberJoined. */
  acceptGroupRequest(groupId: string, publicId: string): Promise<GroupMember> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/requests/${seg(publicId)}/accept`);
  }
  /** Permission `accept_requests`: refuses the player's join request. */
  denyGroupRequest(groupId: string, publicId: string): Promise<void> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/requests/${seg(publicId)}/deny`);
  }
  /** Permission `invite`: invites a player (`{toHandle}` or `{toPublicId}`); they get groupInviteReceived. */
  inviteToGroup(groupId: string, target: Target): Promise<GroupInvite> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/invites`, { body: target });
  }
  /** The caller's unexpired group invites, newest first. */
  groupInvites(): Promise<GroupInvites> {
    return this.call('GET', '/v1/me/group-invites');
  }
  /** Accepts a group invite: joins, whatever the group's join policy. */
  acceptGroupInvite(inviteId: string): Promise<GroupJoinResult> {
    return this.call('POST', `/v1/me/group-invites/${seg(inviteId)}/accept`);
  }
  /** Declines a group invite sent to the caller. */
  declineGroupInvite(inviteId: string): Promise<void> {
    return this.call('POST', `/v1/me/group-invites/${seg(inviteId)}/decline`);
  }
  /** Permission `kick`, on a member of lower rank: removes them; they and the members get groupMemberLeft. */
  kickFromGroup(groupId: string, publicId: string): Promise<void> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/members/${seg(publicId)}/kick`);
  }
  /** Permission `ban`: keeps the player out until unbanned (a member of lower rank is removed). */
  banFromGroup(groupId: string, publicId: string): Promise<void> {
    return this.call('PUT', `/v1/groups/${seg(groupId)}/bans/${seg(publicId)}`);
  }
  /** Permission `ban`: lifts a ban. */
  unbanFromGroup(groupId: string, publicId: string): Promise<void> {
    return this.call('DELETE', `/v1/groups/${seg(groupId)}/bans/${seg(publicId)}`);
  }
  /** Permission `manage_roles`: gives a member of lower rank a role below the caller's; the members get groupRoleChanged. */
  setGroupRole(groupId: string, publicId: string, role: string): Promise<GroupMember> {
    return this.call('PUT', `/v1/groups/${seg(groupId)}/members/${seg(publicId)}/role`, { body: { role } });
  }
  /** The owner only: hands the group to another member; the old owner becomes an admin. */
  transferGroup(groupId: string, publicId: string): Promise<Group> {
    return this.call('POST', `/v1/groups/${seg(groupId)}/owner`, { body: { publicId } });
  }
  /** The group's roles, highest rank first: the built-in owner, admin and member, and those it defines. */
  groupRoles(groupId: string): Promise<GroupRoles> {
    return this.call('GET', `/v1/groups/${seg(groupId)}/roles`);
  }
  /** Permission `manage_roles`: defines or changes a role (`rank` 1–49 below the caller's, `permissions` the caller holds). */
  putGroupRole(groupId: string, name: string, role: GroupRoleInput): Promise<GroupRole> {
    return this.call('PUT', `/v1/groups/${seg(groupId)}/roles/${seg(name)}`, { body: role });
  }
  /** Permission `manage_roles`: removes a role the group defined; its holders become members. */
  removeGroupRole(groupId: string, name: string): Promise<void> {
    return this.call('DELETE', `/v1/groups/${seg(groupId)}/roles/${seg(name)}`);
  }

  // ---- presence and invites ----
  /** 404 `not_visible` unless the user is the caller or a friend. */
  presence(publicId: string): Promise<Presence> {
    return this.call('GET', `/v1/presence/${seg(publicId)}`);
  }
  /** Sets the caller's presence over HTTP (`state`, `richPresence`); the socket's updatePresence does the same. */
  setPresence(input: PresenceInput): Promise<Presence> {
    return this.call('POST', '/v1/presence', { body: input });
  }
  /** Invites a friend into the caller's game session; they get gameInviteReceived. */
  inviteToGame(input: GameInviteInput): Promise<Invite> {
    return this.call('POST', '/v1/invites/game', { body: input });
  }
  /** Accepts a game invite; answers what the game needs to join it. */
  acceptGameInvite(inviteId: string): Promise<GameJoinResult> {
    return this.call('POST', `/v1/invites/game/${seg(inviteId)}/accept`);
  }
  /** Pending, unexpired invites, newest first. */
  invites(dir: RequestDirection = 'incoming'): Promise<Invite[]> {
    return this.call('GET', '/v1/invites', { query: { dir } });
  }
  /** Declines a party or game invite sent to the caller. */
  declineInvite(inviteId: string): Promise<Invite> {
    return this.call('POST', `/v1/invites/${seg(inviteId)}/decline`);
  }
  /** Withdraws an invite the caller sent. */
  revokeInvite(inviteId: string): Promise<void> {
    return this.call('DELETE', `/v1/invites/${seg(inviteId)}`);
  }

  // ---- notes and chat ----
  /** 404 `no_note` when there is none. */
  note(publicId: string): Promise<Note> {
    return this.call('GET', `/v1/notes/${seg(publicId)}`);
  }
  /** A blank text clears the note (answers undefined). */
  async setNote(publicId: string, text: string): Promise<Note | undefined> {
    return (await this.call<Note | null | undefined>('PUT', `/v1/notes/${seg(publicId)}`, { body: { text } })) ?? undefined;
  }
  /** Deletes the caller's private note about that user. */
  deleteNote(publicId: string): Promise<void> {
    return this.call('DELETE', `/v1/notes/${seg(publicId)}`);
  }
  /** Newest first; page backwards with `before` = the last message's sentAt. */
  chatHistory(kind: ChatKind, channelId: string, query: ChatHistoryQuery = {}): Promise<ChatHistory> {
    return this.call('GET', `/v1/chat/${kind}/${seg(channelId)}/messages`, { query });
  }
  /**
   * Sends over HTTP; `realtime.sendChat` sends over the socket. The game's text filter may mask the body (the
   * answer and every delivery carry the masked text) or refuse it: PlatformError `text_filtered` (400).
   */
  sendChat(kind: ChatKind, channelId: string, body: string): Promise<ChatMessage> {
    return this.call('POST', `/v1/chat/${kind}/${seg(channelId)}/messages`, { body: { body } });
  }

  // ---- notification inbox (live: the realtime `notification` event) ----
  /** Newest first; the next (older) page with `cursor` = the page's `nextCursor`; `unread: true` for unread only. */
  notifications(query: NotificationQuery = {}): Promise<NotificationPage> {
    return this.call('GET', '/v1/notifications', { query });
  }
  /** The number of unread notifications in the inbox (a badge). */
  unreadNotificationCount(): Promise<UnreadCount> {
    return this.call('GET', '/v1/notifications/unread-count');
  }
  /** Idempotent: the first read time stays. 404 `notification_not_found` for an id that is not the caller's. */
  markNotificationRead(notificationId: string): Promise<Notification> {
    return this.call('POST', `/v1/notifications/${seg(notificationId)}/read`);
  }
  /** Marks every notification in the inbox read. */
  markAllNotificationsRead(): Promise<ReadAllResult> {
    return this.call('POST', '/v1/notifications/read-all');
  }
  /** Deletes one notification from the inbox. */
  deleteNotification(notificationId: string): Promise<void> {
    return this.call('DELETE', `/v1/notifications/${seg(notificationId)}`);
  }
}
