/**
 * Client frames: flat JSON objects with a `type`. Validated strictly (unknown
 * fields, wrong types and missing fields are `bad_frame`), with the same
 * schemas as the HTTP bodies where they overlap.
 */
import { Ajv } from 'ajv';
import { checkJsonInput } from '@platform/kit';
import { Type } from 'typebox';
import { PresenceStateSchema, RichPresenceInput } from '../services/input-schemas.js';
import type { RichPresence } from '../services/presence.js';

export const CLIENT_FRAME_TYPES = ['heartbeat', 'presenceUpdate', 'chatSend', 'authenticate'] as const;
export type ClientFrameType = (typeof CLIENT_FRAME_TYPES)[number];

const HeartbeatFrame = Type.Object({ type: Type.Literal('heartbeat') }, { additionalProperties: false });

const PresenceUpdateFrame = Type.Object(
  {
    type: Type.Literal('presenceUpdate'),
    state: Type.Optional(PresenceStateSchema),
    richPresence: Type.Optional(Type.Union([RichPresenceInput, Type.Null()])),
  },
  { additionalProperties: false },
);

const ChatSendFrame = Type.Object(
  {
    type: Type.Literal('chatSend'),
    channel: Type.Union([Type.Literal('party'), Type.Literal('dm'), Type.Literal('group')]),
    channelId: Type.String({ minLength: 1, maxLength: 64 }),
    body: Type.String(),
  },
  { additionalProperties: false },
);

/** A new access token for the socket's account (re-authentication, token-expiry.ts). */
const AuthenticateFrame = Type.Object(
  {
    type: Type.Literal('authenticate'),
    token: Type.String({ minLength: 1, maxLength: 8192 }),
  },
  { additionalProperties: false },
);

export type ClientFrame =
  | { type: 'heartbeat' }
  | { type: 'presenceUpdate'; state?: string; richPresence?: RichPresence | null }
  | { type: 'chatSend'; channel: 'party' | 'dm' | 'group'; channelId: string; body: string }
  | { type: 'authenticate'; token: string };

const ajv = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false, strict: false });
const validators = {
  heartbeat: ajv.compile(HeartbeatFrame as object),
  presenceUpdate: ajv.compile(PresenceUpdateFrame as object),
  chatSend: ajv.compile(ChatSendFrame as object),
  authenticate: ajv.compile(AuthenticateFrame as object),
};

export class FrameError extends Error {
  constructor(
    readonly code: 'bad_frame' | 'unknown_type',
    message: string,
  ) {
    super(message);
  }
}

/** Parses and validates one text frame; throws FrameError. */
export function parseClientFrame(text: string): ClientFrame {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new FrameError('bad_frame', 'The frame is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new FrameError('bad_frame', 'A frame is a JSON object with a type');
  // The HTTP rule (kit createService): no text PostgreSQL cannot store, no nesting deeper than MAX_JSON_DEPTH.
  const problem = checkJsonInput(raw);
  if (problem) throw new FrameError('bad_frame', `${problem.message}${problem.field ? ` (field ${problem.field})` : ''}`);
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string') throw new FrameError('bad_frame', 'The frame has no string type');
  if (!(CLIENT_FRAME_TYPES as readonly string[]).includes(type)) throw new FrameError('unknown_type', `Unknown frame type ${JSON.stringify(type.slice(0, 64))}`);
  const validate = validators[type as ClientFrameType];
  if (!validate(raw)) {
    const e = validate.errors?.[0];
    const where = [e?.instancePath.replace(/^\//, '').replace(/\//g, '.'), (e?.params as { missingProperty?: string; additionalProperty?: string })?.missingProperty ?? (e?.params as { additionalProperty?: string })?.additionalProperty]
      .filter(Boolean)
      .join('.');
    throw new FrameError('bad_frame', `Invalid ${type} frame${where ? ` (field ${where})` : ''}: ${e?.message ?? 'invalid'}`);
  }
  return raw as ClientFrame;
}
