/**
 * Social's error codes (docs/social.md, "Error codes"): the kit's codes plus these, each with its one HTTP
 * status. Every error social answers with is made here (`socialError`), so a code cannot drift from its status.
 */
import { kitErrorCodes } from '@platform/kit';

export const socialErrors = kitErrorCodes.extend({
  // 400
  incomplete_game_credentials: { status: 400, description: 'Only one of the two tenancy headers was sent' },
  ambiguous_game_credentials: { status: 400, description: 'A client key together with the game key or secret (or two different client keys)' },
  target_required: { status: 400, description: 'Not exactly one of handle and publicId' },
  invalid_display_name: { status: 400, description: 'displayName is not 2–32 letters, digits, spaces, "_", "-" or "."' },
  invalid_avatar_url: { status: 400, description: 'avatarUrl is not an https URL' },
  invalid_max_size: { status: 400, description: 'maxSize is outside the allowed party sizes' },
  invalid_state: { status: 400, description: 'Not a presence state' },
  rich_presence_too_large: { status: 400, description: 'richPresence.extra or its join bag is over 2 KiB' },
  join_bag_too_large: { status: 400, description: 'join.bag is over 2 KiB' },
  invalid_body: { status: 400, description: 'An empty chat message' },
  body_too_long: { status: 400, description: 'A chat message over the length limit' },
  prefix_too_short: { status: 400, description: 'A search prefix shorter than the minimum' },
  cannot_friend_self: { status: 400, description: 'Acting on yourself' },
  cannot_block_self: { status: 400, description: 'Acting on yourself' },
  cannot_mute_self: { status: 400, description: 'Acting on yourself' },
  cannot_note_self: { status: 400, description: 'Acting on yourself' },
  cannot_report_self: { status: 400, description: 'Acting on yourself' },
  cannot_invite_self: { status: 400, description: 'Acting on yourself' },
  cannot_kick_self: { status: 400, description: 'Acting on yourself' },
  upgrade_required: { status: 400, description: 'GET /v1/ws without a WebSocket upgrade' },
  invalid_cursor: { status: 400, description: 'A cursor the list did not give (malformed, tampered, another user’s, or naming nothing)' },
  text_filtered: { status: 400, description: 'The game’s text filter refused the text (`field`: body, displayName or status): mode reject, or a display name in mode mask' },
  invalid_sanction: { status: 400, description: 'The auth service refused the sanction of a moderation action (`authCode` names its code: validation_failed, unknown_sanction_type)' },
  invalid_group_name: { status: 400, description: 'A group name that is not 3–32 characters after trimming' },
  invalid_group_tag: { status: 400, description: 'A group tag that is not 2–5 letters or digits' },
  invalid_language: { status: 400, description: 'A language that is not a language tag (en, pt-BR, zh-Hant)' },
  invalid_member_limit: { status: 400, description: 'A member limit outside 2…Social:Groups:MaxMemberLimit, or below the group’s members' },
  metadata_too_large: { status: 400, description: 'A group’s or a party listing’s metadata over 2 KiB as JSON' },
  invalid_role: { status: 400, description: 'A role name that is not 2–24 lowercase letters, digits, "_" or "-", a built-in name where a defined role is meant, or a rank outside 1–49' },
  // 401, 403
  unauthorized: { status: 401, description: 'Missing or invalid credentials' },
  token_revoked: { status: 401, description: 'The token’s session was ended (sign-out, refresh-token reuse) or its account was locked, banned or deleted' },
  invalid_game_credentials: { status: 401, description: 'The game key or secret is not valid' },
  invalid_client_key: { status: 401, description: 'The client key is unknown or was replaced' },
  forbidden: { status: 403, description: 'The internal route needs a token with the server role' },
  game_secret_required: { status: 403, description: 'A game-server route called with a client key: it needs the game’s key and secret' },
  join_denied: { status: 403, description: 'The party’s gating refuses the caller' },
  not_leader: { status: 403, description: 'A leader-only party action' },
  not_friends: { status: 403, description: 'An invite or a direct message to a non-friend' },
  moderator_required: { status: 403, description: 'A moderation route without the moderator or admin role' },
  group_permission_denied: { status: 403, description: 'The caller’s group role lacks the permission (`permission` names it)' },
  rank_too_low: { status: 403, description: 'A group action on a member of equal or higher rank, or granting a role at or above the caller’s own' },
  group_banned: { status: 403, description: 'The caller is banned from the group' },
  group_join_denied: { status: 403, description: 'The group admits by invite only, or a block stands between the caller and its owner' },
  guest_restricted: {
    status: 403,
    description: 'A guest account may not use this feature here until it upgrades (`feature` names it, `unlocks` says what upgrading unlocks)',
  },
  chat_restricted: { status: 403, description: 'The sender has an active chat sanction (`expiresAt`: its end, null when permanent)' },
  sanction_forbidden: { status: 403, description: 'The auth service refused the moderator this sanction (only an admin sanctions a moderator or admin)' },
  // 404
  user_not_found: { status: 404, description: 'No such user, or one who blocked the caller' },
  not_visible: { status: 404, description: 'The presence is not visible to the caller' },
  no_note: { status: 404, description: 'No note about this user' },
  request_not_found: { status: 404, description: 'No such pending friend request' },
  friend_not_found: { status: 404, description: 'Not a friend' },
  party_not_found: { status: 404, description: 'No such party (or not the caller’s)' },
  member_not_found: { status: 404, description: 'No such member in the party' },
  invite_not_found: { status: 404, description: 'No such invite (or not the caller’s)' },
  channel_not_found: { status: 404, description: 'No such chat channel (or not the caller’s)' },
  feature_disabled: { status: 404, description: 'Chat is disabled' },
  report_not_found: { status: 404, description: 'No such report' },
  notification_not_found: { status: 404, description: 'No such notification (or not the caller’s)' },
  group_not_found: { status: 404, description: 'No such group (or one of another game the caller’s game may not see)' },
  group_member_not_found: { status: 404, description: 'No such member of the group' },
  group_request_not_found: { status: 404, description: 'No such pending join request' },
  group_invite_not_found: { status: 404, description: 'No such unexpired group invite to the caller' },
  role_not_found: { status: 404, description: 'No such role in the group' },
  ban_not_found: { status: 404, description: 'The player is not banned from the group' },
  match_not_found: { status: 404, description: 'A report’s `match:<id>` context names no match of the game the reporter played in' },
  // 409, 410
  request_exists: { status: 409, description: 'A friend request to this user is pending already' },
  already_friends: { status: 409, description: 'Already friends' },
  you_blocked_user: { status: 409, description: 'The caller blocked this user' },
  already_in_party: { status: 409, description: 'The caller is in a party already' },
  already_member: { status: 409, description: 'The invitee is in the party already' },
  party_full: { status: 409, description: 'The party is full' },
  invite_not_pending: { status: 409, description: 'The invite was accepted, declined, revoked or has expired' },
  name_unavailable: { status: 409, description: 'No free discriminator for this display name' },
  invalid_transition: { status: 409, description: 'The report is in a state it cannot leave that way (actioned and dismissed are final)' },
  friend_limit_reached: { status: 409, description: 'The caller or the other player has the most friends allowed (Social:Friends:Max)' },
  group_name_taken: { status: 409, description: 'Another group of the game has this name (case-insensitive)' },
  group_full: { status: 409, description: 'The group has as many members as its member limit' },
  already_group_member: { status: 409, description: 'The player is a member of the group already' },
  group_request_exists: { status: 409, description: 'A join request to this group is pending already' },
  group_limit_reached: { status: 409, description: 'The player belongs to as many groups of the game as allowed (Social:Groups:PerPlayer)' },
  owner_must_transfer: { status: 409, description: 'The owner leaves only after handing ownership over, or by disbanding (a group with other members)' },
  too_many_roles: { status: 409, description: 'The group defines as many roles as allowed (10)' },
  invite_expired: { status: 410, description: 'The invite is past expiresAt' },
  // 429, 503
  rate_limited: { status: 429, description: 'Chat, outreach or search limit (Retry-After)' },
  too_many_sockets: { status: 429, description: 'The per-user or per-address socket cap of a node (Retry-After)' },
  registry_unavailable: { status: 503, description: 'The game registry cannot be reached' },
  auth_unavailable: { status: 503, description: 'The auth service cannot be reached or failed (a moderation action applied no sanction; retry)' },
  shutting_down: { status: 503, description: 'The node is draining; reconnect (Retry-After)' },
  server_busy: { status: 503, description: 'The node is authenticating as many WebSocket upgrades as it allows (a reconnect storm); retry after Retry-After, with jitter' },
});

export type SocialErrorCode = Parameters<typeof socialErrors.fail>[0];

/** The AppError of one of social's codes, with its listed status. */
export const socialError = socialErrors.fail;

/** 429 rate_limited with Retry-After in whole seconds (at least 1). */
export const rateLimited = (message: string, retryAfterMs: number) =>
  socialError('rate_limited', message, undefined, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } });
