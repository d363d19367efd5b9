/**
 * Input schemas that both entry points validate against: the HTTP routes (routes/schemas.ts re-exports them)
 * and the realtime layer's client frames. Below both, so neither imports the other.
 */
import { Type } from 'typebox';

export const Bag = Type.Record(Type.String(), Type.Unknown());

export const JoinMetadata = Type.Object(
  { lobbyId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), bag: Type.Optional(Bag) },
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
