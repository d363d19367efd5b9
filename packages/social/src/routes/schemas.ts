/** TypeBox schemas shared by the route files. */
import { Type } from 'typebox';

export const PublicIdParams = Type.Object({ publicId: Type.String({ minLength: 1, maxLength: 64 }) });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const Bag = Type.Record(Type.String(), Type.Unknown());

export const JoinMetadata = Type.Object(
  { lobbyId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), bag: Type.Optional(Bag) },
  { additionalProperties: false },
);

export const TargetBody = Type.Object(
  { toHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), toPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

export const MemberTargetBody = Type.Object(
  { handle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), publicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

export const PresenceStateSchema = Type.Union(
  ['online', 'away', 'busy', 'dnd', 'invisible', 'Online', 'Away', 'Busy', 'DnD', 'Dnd', 'Invisible'].map((s) => Type.Literal(s)),
);

export const RichPresenceInput = Type.Object(
  {
    gameId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    activity: Type.Optional(Type.String({ maxLength: 128 })),
    partyId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    joinable: Type.Optional(Type.Boolean()),
    sessionHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    extra: Type.Optional(Bag),
    join: Type.Optional(JoinMetadata),
  },
  { additionalProperties: false },
);

export const PartyVisibilitySchema = Type.Union([Type.Literal('Public'), Type.Literal('FriendsOnly'), Type.Literal('Private')]);
