/**
 * Types read from the services' generated OpenAPI types (src/generated, `npm run openapi`). Request bodies and
 * query strings come from the documents as they are; a response that a document does not describe yet falls
 * back to the hand-written shape from docs/auth.md, and the generated type takes over once it is documented.
 */
import type { paths as AuthPaths } from './generated/auth.js';
import type { paths as SocialPaths } from './generated/social.js';
import type { paths as RegistryPaths } from './generated/registry.js';

export type { AuthPaths, RegistryPaths, SocialPaths };

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P, Path extends keyof P, M extends Method> = M extends keyof P[Path] ? NonNullable<P[Path][M]> : never;

/** The JSON request body of an operation. */
export type JsonBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters of an operation. */
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON body of an operation's success answers (200, 201, 202), `never` when the document has none. */
export type SuccessOf<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { 'application/json': infer C } } ? C : never) : never }[keyof R]
  : never;
/** `Documented` unless it is `never` or `unknown` (an undocumented answer), else `Fallback`. */
export type OrFallback<Documented, Fallback> = [Documented] extends [never] ? Fallback : unknown extends Documented ? Fallback : Documented;

export type AuthOp<Path extends keyof AuthPaths, M extends Method> = Operation<AuthPaths, Path, M>;
export type SocialOp<Path extends keyof SocialPaths, M extends Method> = Operation<SocialPaths, Path, M>;
export type AuthBody<Path extends keyof AuthPaths, M extends Method> = JsonBody<AuthOp<Path, M>>;
export type AuthQuery<Path extends keyof AuthPaths> = QueryOf<AuthOp<Path, 'get'>>;
export type SocialBody<Path extends keyof SocialPaths, M extends Method> = JsonBody<SocialOp<Path, M>>;
export type SocialResult<Path extends keyof SocialPaths, M extends Method> = SuccessOf<SocialOp<Path, M>>;
/** The registry's operations (developer accounts, games, module builds): the web console's types. */
export type RegistryOp<Path extends keyof RegistryPaths, M extends Method> = Operation<RegistryPaths, Path, M>;
export type RegistryBody<Path extends keyof RegistryPaths, M extends Method> = JsonBody<RegistryOp<Path, M>>;
export type RegistryResult<Path extends keyof RegistryPaths, M extends Method> = SuccessOf<RegistryOp<Path, M>>;
export type AuthResult<Path extends keyof AuthPaths, M extends Method, Fallback> = OrFallback<SuccessOf<AuthOp<Path, M>>, Fallback>;

// ---- auth ----

/** What every sign-in and refresh answers. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type?: string;
  account_id?: string;
}
export type DevicePlatform = NonNullable<AuthBody<'/guest', 'post'>['platform']>;
export type DeviceInput = NonNullable<AuthBody<'/login', 'post'>['device']>;
export type RegisterInput = AuthBody<'/register', 'post'>;
export type LoginInput = AuthBody<'/login', 'post'>;
export type PlatformSignInInput = AuthBody<'/platform', 'post'>;
export type AccountPatch = AuthBody<'/account', 'patch'>;
export type LinkInput = AuthBody<'/account/link', 'post'>;
export type UnlinkInput = AuthBody<'/account/unlink', 'post'>;

export interface IdentityView {
  id: string;
  provider: string;
  provider_user_id: string;
  verified: boolean;
  linked_at: string;
  last_login_at: string | null;
}
export interface AccountView {
  id: string;
  display_name: string | null;
  status: 'active' | 'locked' | 'banned' | 'deleted';
  roles: string[];
  home_region: string | null;
  is_guest: boolean;
  created_at: string;
  updated_at: string;
  identities: IdentityView[];
  devices: Record<string, unknown>[];
  [field: string]: unknown;
}
export interface IdentitiesView {
  identities: IdentityView[];
  [field: string]: unknown;
}
export interface AccountExport {
  account: Record<string, unknown>;
  identities: IdentityView[];
  credentials: Record<string, unknown>[];
  devices: Record<string, unknown>[];
  sessions: Record<string, unknown>[];
  audit_log: Record<string, unknown>[];
  exported_at: string;
  [field: string]: unknown;
}
export interface AccountDeletion {
  status: 'deleted';
  deleted_at: string;
  purge_after: string;
}
export type Account = AuthResult<'/account', 'get', AccountView>;
export type Identities = AuthResult<'/account/link', 'post', IdentitiesView>;
export type AccountExportResult = AuthResult<'/account/export', 'post', AccountExport>;
export type AccountDeletionResult = AuthResult<'/account', 'delete', AccountDeletion>;
/** One of the player's active sanctions (docs/auth.md, "Sanctions"): `ban`, `chat` or a feature the studio named. */
export interface OwnSanction {
  id: string;
  type: string;
  reason: string;
  created_at: string;
  /** null: permanent. */
  expires_at: string | null;
}
export type Sanctions = AuthResult<'/account/sanctions', 'get', { sanctions: OwnSanction[] }>;
/** The account's second factors (docs/auth.md, "Second factor (TOTP)"). */
export type SecondFactors = AuthResult<'/account/mfa', 'get', { totp: boolean; pending: boolean; recovery_codes_left: number; passkeys: number }>;
/** One of the account's passkeys (docs/auth.md, "Passkeys"). */
export type Passkey = AuthResult<'/account/passkeys/registration', 'post', { id: string; name: string; transports: string[]; created_at: string; last_used_at: string | null }>;
/** A pending authenticator: its secret (base32) and otpauth:// URI. */
export type TotpEnrolment = AuthResult<'/account/mfa/totp', 'post', { secret: string; otpauth_uri: string }>;
/** Why a player appeals a sanction (docs/auth.md, "Appeals"). */
export type AppealReason = AuthBody<'/account/sanctions/{sanctionId}/appeal', 'post'>['reason'];
/** An appeal as its player sees it: status `open`, then `upheld`, `shortened` or `lifted`, with the answer (never who decided). */
export type Appeal = AuthResult<'/account/appeals', 'get', { appeals: unknown[] }> extends { appeals: (infer A)[] } ? A : never;
export interface AppealInput {
  reason: AppealReason;
  /** 1–2000 characters. */
  text: string;
}

/** One live session of the account (GET /account/sessions), as its OpenAPI document says. */
export type SessionInfo = AuthResult<'/account/sessions', 'get', never>['sessions'][number];
/** The same as SessionInfo (the earlier name). */
export type SessionInfoView = SessionInfo;

/** A device request as the approving player sees it (POST /device/lookup), as its OpenAPI document says. */
export type PendingDeviceRequest = AuthResult<'/device/lookup', 'post', never>;
/** The same as PendingDeviceRequest (the earlier name). */
export type PendingDeviceRequestView = PendingDeviceRequest;

/** The device authorization answer (RFC 8628 §3.2), as the SDK hands it to a TV or console. */
export interface DeviceAuthorization {
  deviceCode: string;
  /** Show this to the player (XXXX-XXXX) … */
  userCode: string;
  /** … with this address (the approval page) … */
  verificationUri: string;
  /** … or this one (the code prefilled; e.g. as a QR code). */
  verificationUriComplete: string;
  /** Epoch ms after which the codes are void. */
  expiresAt: number;
  /** Seconds between two polls. */
  interval: number;
  clientId: string;
}
// Email flows (docs/auth.md, "Email flows").
export type PasswordResetInput = AuthBody<'/password/reset', 'post'>;
export type PasswordResetResult = AuthResult<'/password/reset', 'post', { sessions_revoked: number }>;
export type EmailVerification = AuthResult<'/email/verify', 'post', { email: string; verified: true; changed: boolean }>;
export type EmailChangeInput = AuthBody<'/account/email', 'post'>;
export type EmailChange = AuthResult<'/account/email', 'post', { pending_email: string }>;

// ---- social ----

export type Me = SocialResult<'/v1/me', 'get'>;
export type Profile = SocialResult<'/v1/me/profile', 'patch'>;
export type ProfilePatch = SocialBody<'/v1/me/profile', 'patch'>;
export type PrivacyExport = SocialResult<'/v1/me/export', 'get'>;
export type UserSummary = SocialResult<'/v1/users/search', 'get'>[number];
export type SearchQuery = Omit<QueryOf<SocialOp<'/v1/users/search', 'get'>>, 'handle'>;
export type ReportInput = SocialBody<'/v1/reports', 'post'>;
export type FriendSummary = SocialResult<'/v1/friends', 'get'>[number];
export type RequestSummary = SocialResult<'/v1/friends/requests', 'post'>;
/** Exactly one of toHandle / toPublicId. */
export type Target = SocialBody<'/v1/friends/requests', 'post'>;
export type RequestDirection = NonNullable<QueryOf<SocialOp<'/v1/friends/requests', 'get'>>['dir']>;
export type Party = SocialResult<'/v1/parties/{id}', 'get'>;
export type PartyMember = Party['members'][number];
export type PartyVisibility = Party['visibility'];
export type CreatePartyInput = SocialBody<'/v1/parties', 'post'>;
export type MemberTarget = SocialBody<'/v1/parties/{id}/kick', 'post'>;
export type JoinMetadata = SocialBody<'/v1/parties/{id}/join-metadata', 'post'>;
export type JoinResult = SocialResult<'/v1/parties/{id}/join', 'post'>;
export type LeaveResult = SocialResult<'/v1/parties/{id}/leave', 'post'>;
export type Invite = SocialResult<'/v1/parties/{id}/invites', 'post'>;
export type GameInviteInput = SocialBody<'/v1/invites/game', 'post'>;
export type GameJoinResult = SocialResult<'/v1/invites/game/{inviteId}/accept', 'post'>;
export type PresenceInput = SocialBody<'/v1/presence', 'post'>;
export type Presence = SocialResult<'/v1/presence', 'post'>;
export type PresenceState = NonNullable<PresenceInput['state']>;
export type RichPresenceInput = NonNullable<PresenceInput['richPresence']>;
export type Note = SocialResult<'/v1/notes/{publicId}', 'get'>;
export type ChatKind = 'dm' | 'party' | 'group';
export type ChatMessage = SocialResult<'/v1/chat/{kind}/{channelId}/messages', 'post'>;
export type ChatHistory = SocialResult<'/v1/chat/{kind}/{channelId}/messages', 'get'>;
export type ChatHistoryQuery = QueryOf<SocialOp<'/v1/chat/{kind}/{channelId}/messages', 'get'>>;
export type ReportReceived = SocialResult<'/v1/reports', 'post'>;
export type Erased = SocialResult<'/v1/me', 'delete'>;
/** One page of the notification inbox: newest first, `nextCursor` while older ones remain, the unread count. */
export type NotificationPage = SocialResult<'/v1/notifications', 'get'>;
export type NotificationQuery = QueryOf<SocialOp<'/v1/notifications', 'get'>>;
/** One notification; `kind` says which `data` it carries (every kind but `moderationNotice` has an `actor`). */
export type Notification = NotificationPage['notifications'][number];
export type NotificationKind = Notification['kind'];
export type UnreadCount = SocialResult<'/v1/notifications/unread-count', 'get'>;
export type ReadAllResult = SocialResult<'/v1/notifications/read-all', 'post'>;

// ---- groups (docs/social.md, "Groups") ----

/** A group of the caller's game; `myRole` when the caller is a member. */
export type Group = SocialResult<'/v1/groups/{id}', 'get'>;
/** Who may join: `open` at once, `request` by a join request a permitted member accepts, `invite` by invite only. */
export type GroupJoinPolicy = Group['joinPolicy'];
export type CreateGroupInput = SocialBody<'/v1/groups', 'post'>;
/** The fields to change; absent fields stay. */
export type GroupPatch = SocialBody<'/v1/groups/{id}', 'patch'>;
/** Search filters: name `prefix`, `tag`, `language`, `open` (open groups only), and `limit` / `cursor` for pages. */
export type GroupSearchQuery = QueryOf<SocialOp<'/v1/groups', 'get'>>;
/** One page of groups in name order; `nextCursor` while more remain. */
export type GroupSearchPage = SocialResult<'/v1/groups', 'get'>;
export type MyGroups = SocialResult<'/v1/me/groups', 'get'>;
/** `joined` (an open group, or an accepted invite) or `requested` (a join request is pending). */
export type GroupJoinResult = SocialResult<'/v1/groups/{id}/join', 'post'>;
/** `left`, or `withdrawn` (a pending join request). */
export type GroupLeaveResult = SocialResult<'/v1/groups/{id}/leave', 'post'>;
/** `limit` (1–100) and `cursor` (the previous page's `nextCursor`). */
export type GroupPageQuery = QueryOf<SocialOp<'/v1/groups/{id}/members', 'get'>>;
/** One page of members in joining order; `nextCursor` while more remain. */
export type GroupMemberPage = SocialResult<'/v1/groups/{id}/members', 'get'>;
/** A member as a page lists it: with `online` (true for any state but offline and invisible; nothing else of presence). */
export type ListedGroupMember = GroupMemberPage['members'][number];
/** A member as a change answers and `groupMemberJoined` carries it. */
export type GroupMember = SocialResult<'/v1/groups/{id}/members/{publicId}/role', 'put'>;
export type GroupJoinRequests = SocialResult<'/v1/groups/{id}/requests', 'get'>;
export type GroupJoinRequest = GroupJoinRequests['requests'][number];
export type GroupInvite = SocialResult<'/v1/groups/{id}/invites', 'post'>;
export type GroupInvites = SocialResult<'/v1/me/group-invites', 'get'>;
/** A role: the built-in `owner` (rank 100), `admin` (50), `member` (0), or one the group defines (rank 1–49). */
export type GroupRole = SocialResult<'/v1/groups/{id}/roles/{name}', 'put'>;
export type GroupRoles = SocialResult<'/v1/groups/{id}/roles', 'get'>;
/** What a defined role may do: `invite`, `accept_requests`, `kick`, `ban`, `edit`, `moderate_chat`, `manage_roles`. */
export type GroupPermission = GroupRole['permissions'][number];
export type GroupRoleInput = SocialBody<'/v1/groups/{id}/roles/{name}', 'put'>;

// ---- finding players (docs/social.md, "Finding players") ----

/** One page of recent players of the caller's game, newest first; `nextCursor` while more remain. */
export type RecentPlayersPage = SocialResult<'/v1/me/recent-players', 'get'>;
/** A player the caller played with: their summary, the latest `matchId` together (report context `match:<matchId>`), `playedAt`, `friend`. */
export type RecentPlayer = RecentPlayersPage['players'][number];
/** `limit` (1–50) and `cursor` (the previous page's `nextCursor`). */
export type PageQuery = QueryOf<SocialOp<'/v1/me/recent-players', 'get'>>;
/** One page of suggestions; `nextCursor` while more remain. */
export type SuggestionsPage = SocialResult<'/v1/me/suggestions', 'get'>;
/** A suggested player: `source` (`platform`: a platform friend who plays the game, `friendsOfFriends`, `recentPlayer`), `mutualFriends`, `playedAt?`. */
export type Suggestion = SuggestionsPage['suggestions'][number];
export type SuggestionSource = Suggestion['source'];
/** A party listing's attributes: `mode`, `region`, `language`, `metadata` (at most 1 KiB as JSON). */
export type PartyListingInput = SocialBody<'/v1/parties/{id}/listing', 'put'>;
export type PartyListing = SocialResult<'/v1/parties/{id}/listing', 'put'>;
/** Filters `mode`, `region`, `language` (case-insensitive), and `limit` / `cursor` for pages. */
export type OpenPartiesQuery = QueryOf<SocialOp<'/v1/parties', 'get'>>;
/** One page of listed parties that would admit the caller, newest listing first. */
export type OpenPartiesPage = SocialResult<'/v1/parties', 'get'>;
/** A listed party: leader, size, `memberCount`, `freeSlots` and its listing's attributes. */
export type OpenParty = OpenPartiesPage['parties'][number];
