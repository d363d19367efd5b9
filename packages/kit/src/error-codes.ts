/**
 * Error codes as a list in code: each stable snake_case code with its HTTP status (and a description for
 * the docs) in one place. `defineErrorCodes` turns the list into a typed `fail(code, …)` that builds the
 * AppError with the listed status, named factories, and the OpenAPI error responses of a route, so a
 * route, its OpenAPI document and the service's doc cannot disagree about a code's status.
 *
 *   const errors = kitErrorCodes.extend({ game_not_found: { status: 404, description: 'No such game' } });
 *   throw errors.fail('game_not_found', 'No such game');          // AppError(404, 'game_not_found', …)
 *   const gameNotFound = errors.factory('game_not_found', 'No such game');
 *   schema: { response: { 200: Game, ...errors.responses('pascal', ['game_not_found', 'validation_failed']) } }
 */
import { Type, type TSchema } from 'typebox';
import { AppError } from './errors.js';
import { fieldName, type FieldCase } from './field-case.js';

/** A code's status, or its status and a one-line description (shown in OpenAPI). */
export type ErrorCodeSpec = number | { status: number; description?: string };
export type ErrorCodeList = Record<string, ErrorCodeSpec>;

export interface ErrorCodeEntry {
  code: string;
  status: number;
  description?: string;
}

export interface ErrorExtra {
  headers?: Record<string, string>;
  cause?: unknown;
}

export interface ErrorCodes<C extends string> {
  /** Every code, in the order listed. */
  readonly entries: readonly ErrorCodeEntry[];
  status(code: C): number;
  /** True when `code` is in this list (e.g. for a code read from elsewhere). */
  has(code: string): code is C;
  /** The AppError for `code`, with its listed status. */
  fail(code: C, message: string, details?: Record<string, unknown>, extra?: ErrorExtra): AppError;
  /** A factory for one code, with a default message. */
  factory(code: C, defaultMessage: string): (message?: string, details?: Record<string, unknown>) => AppError;
  /** This list plus more codes; a code listed again must keep its status. */
  extend<const L extends ErrorCodeList>(list: L): ErrorCodes<C | (keyof L & string)>;
  /**
   * Route response schemas for these codes (all when omitted), one per status: the service's error body
   * with `code` restricted to the codes of that status, and the codes with their descriptions as the
   * response's description.
   */
  responses(fieldCase: FieldCase, codes?: readonly C[]): Record<number, TSchema>;
}

const CODE_SHAPE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function entryOf(code: string, spec: ErrorCodeSpec): ErrorCodeEntry {
  const { status, description } = typeof spec === 'number' ? { status: spec, description: undefined } : spec;
  // Checked when the list is defined (at import): a bad list fails every test, not one request.
  if (!CODE_SHAPE.test(code)) throw new Error(`error code ${JSON.stringify(code)} is not snake_case`);
  if (!Number.isInteger(status) || status < 400 || status > 599) throw new Error(`error code ${code}: status ${status} is not a 4xx or 5xx`);
  return description === undefined ? { code, status } : { code, status, description };
}

function fromEntries<C extends string>(entries: readonly ErrorCodeEntry[]): ErrorCodes<C> {
  const byCode = new Map(entries.map((e) => [e.code, e]));
  const entryFor = (code: string): ErrorCodeEntry => {
    const entry = byCode.get(code);
    // Unreachable from typed code; a cast or a plain-JS caller gets a loud bug rather than a wrong status.
    if (!entry) throw new Error(`error code ${code} is not in the list`);
    return entry;
  };
  const status = (code: C) => entryFor(code).status;
  const fail = (code: C, message: string, details?: Record<string, unknown>, extra: ErrorExtra = {}) =>
    new AppError(entryFor(code).status, code, message, { details, ...extra });
  return {
    entries,
    status,
    has: (code: string): code is C => byCode.has(code),
    fail,
    factory: (code, defaultMessage) => {
      status(code); // refuses an unlisted code when the factory is made
      return (message = defaultMessage, details) => fail(code, message, details);
    },
    extend<const L extends ErrorCodeList>(list: L) {
      const added = Object.entries(list).map(([code, spec]) => entryOf(code, spec));
      for (const e of added) {
        const old = byCode.get(e.code);
        if (old && old.status !== e.status) throw new Error(`error code ${e.code} is listed with status ${old.status} and ${e.status}`);
      }
      const addedCodes = new Set(added.map((e) => e.code));
      return fromEntries<C | (keyof L & string)>([...entries.filter((e) => !addedCodes.has(e.code)), ...added]);
    },
    responses(fieldCase, codes) {
      return errorResponses(fieldCase, codes ? codes.map(entryFor) : entries);
    },
  };
}

export function defineErrorCodes<const L extends ErrorCodeList>(list: L): ErrorCodes<keyof L & string> {
  const entries = Object.entries(list).map(([code, spec]) => entryOf(code, spec));
  return fromEntries<keyof L & string>(entries);
}

/** OpenAPI response schemas, one per status, for a set of error codes. */
export function errorResponses(fieldCase: FieldCase, entries: readonly ErrorCodeEntry[]): Record<number, TSchema> {
  const f = (n: string) => fieldName(fieldCase, n);
  const byStatus = new Map<number, ErrorCodeEntry[]>();
  for (const e of entries) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  const out: Record<number, TSchema> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[status] = Type.Object(
      {
        [f('code')]: Type.Unsafe<string>({ type: 'string', enum: list.map((e) => e.code), description: 'Stable machine-readable error code' }),
        [f('message')]: Type.String({ description: 'Human-readable explanation' }),
        [f('requestId')]: Type.Optional(Type.String({ description: 'The request id (also in the x-request-id header)' })),
      },
      { additionalProperties: true, description: list.map((e) => (e.description ? `${e.code}: ${e.description}` : e.code)).join('; ') },
    );
  }
  return out;
}

/**
 * The codes the kit itself answers with, for every service: every service's list extends this one
 * (`kitErrorCodes.extend({...})`). Listed in docs/decisions/0008-error-codes.md.
 */
export const kitErrorCodes = defineErrorCodes({
  validation_failed: { status: 400, description: 'A request part does not match its schema; the field is named' },
  malformed_json: { status: 400, description: 'The body is empty or not JSON although Content-Type says JSON' },
  bad_request: { status: 400, description: 'The request is malformed at the HTTP level (e.g. a wrong Content-Length)' },
  invalid_character: { status: 400, description: 'Text holds NUL or an unpaired UTF-16 surrogate, which cannot be stored' },
  too_deep: { status: 400, description: 'JSON nested deeper than 32 levels' },
  invalid_token: { status: 401, description: 'The access token is missing, malformed, expired or not signed by a known key' },
  route_not_found: { status: 404, description: 'No route for this method and path' },
  payload_too_large: { status: 413, description: 'The body exceeds the size limit' },
  unsupported_media_type: { status: 415, description: 'The body is not application/json' },
  rate_limited: { status: 429, description: 'Too many requests from this caller; retry after Retry-After seconds' },
  internal_error: { status: 500, description: 'A bug: the request failed unexpectedly (logged with its request id)' },
  database_unavailable: { status: 503, description: 'The database cannot be reached; retry later' },
  state_unavailable: { status: 503, description: 'The shared state store (Redis) cannot be reached; retry later' },
  key_set_unavailable: { status: 503, description: 'The token key set cannot be fetched; retry later' },
});

/** The codes of a list, e.g. `ErrorCodeOf<typeof kitErrorCodes>`. */
export type ErrorCodeOf<E> = E extends ErrorCodes<infer C> ? C : never;
export type KitErrorCode = ErrorCodeOf<typeof kitErrorCodes>;
/** `kitErrorCodes.fail`: the AppError of one of the kit's own codes. */
export const kitError = kitErrorCodes.fail;
