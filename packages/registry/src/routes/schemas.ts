/** TypeBox schemas shared by the registry's routes (PascalCase fields). */
import { Type } from 'typebox';
import { errorSchema, GROUP_LIMIT_BOUNDS, GROUP_LIMIT_FIELDS, GUEST_FEATURES, guestFeaturesOf } from '@platform/kit';

export const ErrorBody = errorSchema('pascal');

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
export const Role = Type.Union([Type.Literal('super-admin'), Type.Literal('developer')]);

export const CrossGameVisibility = Type.Union([Type.Literal('isolated'), Type.Literal('summary'), Type.Literal('full')], {
  description: 'How rich presence crosses game boundaries; the stricter of two games applies (isolated < summary < full)',
});

export const TextFilterMode = Type.Union([Type.Literal('off'), Type.Literal('mask'), Type.Literal('reject'), Type.Literal('flag')], {
  description: 'off: no filtering; mask: matches become * (same length); reject: refused with 400 text_filtered; flag: delivered and reported to moderators',
});

/** A word list of a text filter: at most 1000 words of at most 64 characters, no control characters. */
export const WordList = (description: string) => Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000, description });

export const TextFilterView = Type.Object({
  Mode: TextFilterMode,
  AllowList: WordList('Words never filtered (a match inside one is no match); stored trimmed, lower-cased, without duplicates'),
  DenyList: WordList('Words filtered besides the English dataset, with its look-alike handling; stored like AllowList'),
  Version: Type.Integer({ description: 'Grows with every change' }),
});

/** The game context the validation routes answer with: social filters player text with it. */
export const TextFilterContext = Type.Object({ Mode: TextFilterMode, AllowList: Type.Array(Type.String()), DenyList: Type.Array(Type.String()), Version: Type.Integer() });

/** The social guest features a game may restrict (kit GUEST_FEATURES; auth's own are not per game). */
const SocialGuestFeature = Type.Unsafe<string>({
  type: 'string',
  enum: guestFeaturesOf('social'),
  description: guestFeaturesOf('social').map((f) => `${f}: ${GUEST_FEATURES[f].unlocks}`).join('; '),
});

export const GuestRestricted = Type.Union([Type.Array(SocialGuestFeature, { maxItems: 16 }), Type.Null()], {
  description:
    'The features refused to guest accounts in this game until they upgrade (docs/social.md, "Guest restrictions"): null uses the deployment\'s SOCIAL_GUEST_RESTRICTED; [] restricts nothing',
});

const limit = (key: keyof typeof GROUP_LIMIT_BOUNDS, description: string) =>
  Type.Optional(Type.Integer({ minimum: GROUP_LIMIT_BOUNDS[key][0], maximum: GROUP_LIMIT_BOUNDS[key][1], description }));

/** The game's group limits (kit group-limits.ts holds the bounds social reads them with). */
export const GroupLimits = Type.Union(
  [
    Type.Object(
      {
        [GROUP_LIMIT_FIELDS.perPlayer]: limit('perPlayer', 'Groups a player may belong to in this game (1: one clan per player)'),
        [GROUP_LIMIT_FIELDS.createdPerDay]: limit('createdPerDay', 'Groups a player may create in this game per 24 hours (0: players create none)'),
        [GROUP_LIMIT_FIELDS.defaultMemberLimit]: limit('defaultMemberLimit', 'The member limit of a group made without one (at most MaxMemberLimit)'),
        [GROUP_LIMIT_FIELDS.maxMemberLimit]: limit('maxMemberLimit', "The highest member limit of a group; the deployment's SOCIAL_GROUPS_MAX_MEMBER_LIMIT caps it"),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: "Limits of social's groups in this game (docs/registry.md, \"Group limits\"): a limit left out, or null, is the deployment's SOCIAL_GROUPS_* setting" },
);

/** What social does with a player's platform friends in this game (kit platform-friends.ts). */
export const PlatformFriends = Type.Union(
  [Type.Literal('off'), Type.Literal('suggest'), Type.Literal('befriend')],
  {
    description:
      'What social does with the platform friends (Steam friends) of a player who also plays this game (docs/registry.md, "Platform friends"): ' +
      'off: nothing; suggest (the default): they appear in the player\'s suggestions (source platform); befriend: they become friends at once, both ways',
  },
);

export const Settings = Type.Object({}, { additionalProperties: true, description: 'Free-form JSON object, at most 16 KiB serialised' });

export const AuthResponse = Type.Object({ Token: Type.String(), DeveloperId: Uuid, Email: Type.String(), Role });

export const DeveloperView = Type.Object({ Id: Uuid, Email: Type.String(), DisplayName: Type.String(), Role, CreatedAt: Timestamp });

export const GameView = Type.Object({
  GameId: Uuid,
  DeveloperId: Uuid,
  DisplayName: Type.String(),
  ApiKey: Type.String({ description: 'Server-side identifier of the game; used with the API secret' }),
  ClientKey: Type.String({ description: 'Public per-game key a game client may ship (docs/client-key.md); names the game, authenticates nothing' }),
  LaunchCommand: Type.Union([Type.String(), Type.Null()]),
  Settings,
  CrossGameVisibility,
  GuestRestricted,
  GroupLimits,
  PlatformFriends,
  CreatedAt: Timestamp,
  UpdatedAt: Timestamp,
});

export const GameWithSecretView = Type.Object({ Game: GameView, ApiSecret: Type.String({ description: 'Shown only here; stored as a SHA-256 digest' }) });

export const UserRegistrationView = Type.Object({
  Id: Uuid,
  UserId: Type.String(),
  GameId: Uuid,
  DisplayName: Type.Union([Type.String(), Type.Null()]),
  RegisteredAt: Timestamp,
});

export const Packaging = Type.Union([Type.Literal('wasm'), Type.Literal('native')]);

export const ModuleBuildView = Type.Object({
  BuildId: Uuid,
  GameId: Uuid,
  Packaging,
  Version: Type.String(),
  SizeBytes: Type.Integer(),
  Sha256: Type.Union([Type.String(), Type.Null()]),
  Admitted: Type.Boolean(),
  Schedulable: Type.Boolean(),
  Imports: Type.Array(Type.String()),
  CreatedAt: Timestamp,
});

export const GameParams = Type.Object({ gameId: Type.String({ description: 'Game id (uuid); anything else is 404' }) });

export const bearer = [{ bearerAuth: [] }];
