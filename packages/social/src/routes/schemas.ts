/** TypeBox schemas shared by the route files. */
import { Type } from 'typebox';

export { Bag, JoinMetadata, PresenceStateSchema, RichPresenceInput } from '../services/input-schemas.js';

export const PublicIdParams = Type.Object({ publicId: Type.String({ minLength: 1, maxLength: 64 }) });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const TargetBody = Type.Object(
  { toHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), toPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

export const MemberTargetBody = Type.Object(
  { handle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), publicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

export const PartyVisibilitySchema = Type.Union([Type.Literal('Public'), Type.Literal('FriendsOnly'), Type.Literal('Private')]);

// ------------------------------------------------------------ responses
// Declared response shapes document the API and act as a whitelist: a field
// not declared here is never serialised.

const Str = Type.String();
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);
const FreeObject = Type.Object({}, { additionalProperties: true });

export const ProfileDto = Type.Object({
  displayName: Str,
  avatarUrl: Nullable(Str),
  status: Nullable(Str),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('friends'), Type.Literal('private')]),
  invisible: Type.Boolean(),
  searchable: Type.Boolean({ description: 'Found by name-prefix search and suggested to friends of friends' }),
});

export const MeResponse = Type.Object({ publicId: Str, handle: Str, discriminator: Str, fullHandle: Str, profile: ProfileDto });

export const UserSummary = Type.Object({ publicId: Str, fullHandle: Str, displayName: Str, avatarUrl: Type.Optional(Str) });

export const JoinMetadataDto = Type.Object({ lobbyId: Type.Optional(Str), bag: Type.Optional(FreeObject) });

export const RichPresenceDto = Type.Object({
  gameId: Type.Optional(Str),
  activity: Type.Optional(Str),
  partyId: Type.Optional(Str),
  joinable: Type.Boolean(),
  sessionHandle: Type.Optional(Str),
  extra: Type.Optional(FreeObject),
  join: Type.Optional(JoinMetadataDto),
  originGameId: Type.Optional(Str),
});

export const FriendSummary = Type.Object({
  publicId: Str,
  fullHandle: Str,
  displayName: Str,
  avatarUrl: Type.Optional(Str),
  status: Type.Optional(Str),
  presenceState: Type.Enum(['online', 'away', 'busy', 'dnd', 'offline']),
  muted: Type.Boolean(),
  richPresence: Type.Optional(RichPresenceDto),
  note: Type.Optional(Str),
  sameGame: Type.Boolean(),
  dmChannelId: Str,
});

export const RequestSummary = Type.Object({
  requestId: Str,
  publicId: Str,
  fullHandle: Str,
  direction: Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')]),
  state: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('declined')]),
});

export const PresenceResponse = Type.Object({
  publicId: Str,
  state: Type.Enum(['online', 'away', 'busy', 'dnd', 'invisible', 'offline']),
  richPresence: Type.Optional(RichPresenceDto),
});

export const NoteResponse = Type.Object({ subjectPublicId: Str, subjectFullHandle: Str, text: Str, updatedAt: Type.String({ format: 'date-time' }) });

export const PartyMemberDto = Type.Object({ publicId: Str, fullHandle: Str, displayName: Str, isLeader: Type.Boolean(), joinedAt: Type.String({ format: 'date-time' }) });

export const PartyDto = Type.Object({
  partyId: Str,
  leaderPublicId: Nullable(Str),
  maxSize: Type.Integer(),
  visibility: PartyVisibilitySchema,
  sessionHandle: Type.Optional(Str),
  members: Type.Array(PartyMemberDto),
  join: Type.Optional(JoinMetadataDto),
});

export const InviteDto = Type.Object({
  inviteId: Str,
  kind: Type.Union([Type.Literal('party'), Type.Literal('game')]),
  fromPublicId: Str,
  toPublicId: Str,
  targetId: Type.Optional(Str),
  targetHandle: Type.Optional(Str),
  state: Type.Enum(['pending', 'accepted', 'declined', 'expired', 'revoked']),
  expiresAt: Type.String({ format: 'date-time' }),
  join: Type.Optional(JoinMetadataDto),
});

export const JoinResultDto = Type.Object({
  kind: Type.Union([Type.Literal('party'), Type.Literal('game')]),
  partyId: Type.Optional(Str),
  inviteId: Type.Optional(Str),
  sessionHandle: Type.Optional(Str),
  join: Type.Optional(JoinMetadataDto),
});

export const LeaveResult = Type.Object({ state: Type.Literal('left'), partyId: Str, disbanded: Type.Boolean() });

export const ChatMessageDto = Type.Object({
  messageId: Str,
  channel: Type.Union([Type.Literal('dm'), Type.Literal('party'), Type.Literal('group')]),
  channelId: Str,
  fromPublicId: Str,
  body: Str,
  sentAt: Type.String({ format: 'date-time' }),
});

export const ChatHistory = Type.Object({ messages: Type.Array(ChatMessageDto) });

// ------------------------------------------------------------ notifications (services/notifications.ts)

const DateTime = Type.String({ format: 'date-time' });
const NotificationActor = Type.Object({ publicId: Str, fullHandle: Str }, { description: 'Who caused it (their handle as it is now)' });
const notificationFields = { notificationId: Type.String({ format: 'uuid' }), createdAt: DateTime, readAt: Type.Union([DateTime, Type.Null()]) };
const notification = <K extends string, D extends ReturnType<typeof Type.Object>>(kind: K, description: string, data: D) =>
  Type.Object({ ...notificationFields, kind: Type.Literal(kind), actor: NotificationActor, data }, { description });

/** One notification of the inbox; `kind` says which `data` it carries (docs/social.md, "Notifications"). */
export const NotificationDto = Type.Union([
  notification('friendRequestReceived', 'A friend request (accept or decline it with the actor’s publicId)', Type.Object({ requestId: Str })),
  notification('friendRequestAccepted', 'The actor accepted the reader’s friend request', Type.Object({ requestId: Str })),
  notification('partyInviteReceived', 'A party invite (join the party with the inviteId)', Type.Object({ inviteId: Str, partyId: Str, expiresAt: DateTime })),
  notification('gameInviteReceived', 'A game invite (accept it with the inviteId)', Type.Object({ inviteId: Str, sessionHandle: Type.Optional(Str), expiresAt: DateTime })),
  notification('partyKicked', 'The actor (the leader) removed the reader from the party', Type.Object({ partyId: Str })),
  notification('groupInviteReceived', 'A group invite (accept it with the inviteId)', Type.Object({ inviteId: Str, groupId: Str, expiresAt: DateTime })),
  notification('groupRequestAccepted', 'The actor accepted the reader’s request to join the group', Type.Object({ groupId: Str })),
  notification(
    'groupRemoved',
    'The actor (a member of higher rank) removed the reader from the group',
    Type.Object({ groupId: Str, reason: Type.Union([Type.Literal('kicked'), Type.Literal('banned')]) }),
  ),
  notification('groupRoleChanged', 'The actor gave the reader a role in the group (owner: the group was handed to them)', Type.Object({ groupId: Str, role: Str })),
  notification('groupDisbanded', 'The actor (the owner) disbanded a group of the reader', Type.Object({ groupId: Str, name: Str })),
  Type.Object(
    {
      ...notificationFields,
      kind: Type.Literal('moderationNotice'),
      data: Type.Object({ message: Str, title: Type.Optional(Str), reference: Type.Optional(Str) }),
    },
    { description: 'A notice of the platform’s moderation (no actor)' },
  ),
]);

export const PrivacyExport = Type.Object({
  user: Type.Object({ publicId: Str, handle: Str, discriminator: Str, fullHandle: Str, createdAt: Type.String({ format: 'date-time' }) }),
  profile: ProfileDto,
  friends: Type.Array(FriendSummary),
  blocked: Type.Array(UserSummary),
  muted: Type.Array(UserSummary),
  notes: Type.Array(NoteResponse),
  notifications: Type.Array(NotificationDto),
  groups: Type.Array(Type.Object({ groupId: Str, name: Str, tag: Str, role: Str, joinedAt: Str }), { description: 'The groups the player belongs to, in every game, with their role' }),
  messages: Type.Array(
    Type.Object({ messageId: Str, channel: Type.Union([Type.Literal('dm'), Type.Literal('party'), Type.Literal('group')]), channelId: Str, body: Str, sentAt: Str }),
    { description: 'The chat messages the player sent that are still kept (Social:Chat:RetentionDays), newest first: direct, party and group' },
  ),
  recentPlayers: Type.Array(Type.Object({ ...UserSummary.properties, gameId: Str, matchId: Str, playedAt: Str }), { description: 'The player’s recent players in every game' }),
  declinedRequests: Type.Array(Type.Object({ ...UserSummary.properties, declinedAt: Str }), { description: 'Friend requests the player declined (kept Social:Suggestions:DeclineDays)' }),
  platformFriends: Type.Array(
    Type.Object({ ...UserSummary.properties, gameId: Str, provider: Str, importedAt: Str, befriendedAt: Type.Optional(Str) }),
    { description: 'The player’s platform friends imported in each game (docs/social.md, "Platform friends"); befriendedAt: the friendship the game’s befriend mode made' },
  ),
  platformFriendRefreshes: Type.Array(Type.Object({ gameId: Str, refreshedAt: Str, outcome: Str }), { description: 'When the player’s platform friends were last fetched in each game, and how it went' }),
  partyId: Type.Optional(Str),
  partyListing: Type.Optional(Type.Object({ mode: Type.Union([Str, Type.Null()]), region: Type.Union([Str, Type.Null()]), language: Type.Union([Str, Type.Null()]), metadata: Type.Union([FreeObject, Type.Null()]), listedAt: Str }, { description: 'The listing of the player’s party, when listed' })),
});

export const DeletedResponse = Type.Object({ state: Type.Literal('deleted') });
export const ReportReceived = Type.Object({ status: Type.Literal('received') });
