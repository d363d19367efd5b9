/** The one error type of the SDK: every refused call, network failure and session end arrives as a PlatformError. */

export type ErrorSource = 'auth' | 'social' | 'realtime' | 'client';

export interface PlatformErrorInit {
  status: number;
  code: string;
  message: string;
  source: ErrorSource;
  requestId?: string;
  retryAfter?: number;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** Every failure of the SDK: an error answer from a service, a refused socket frame, no answer at all, or a misuse. */
export class PlatformError extends Error {
  /** The HTTP status; 0 when no answer arrived (network, TLS, timeout) or the error is the client's own. */
  readonly status: number;
  /** The service's error code (`rate_limited`, `invalid_credentials` …), or the client's (`network_error`, `not_signed_in`). */
  readonly code: string;
  /** The service's request id, for support and logs. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again (Retry-After, or an error frame's retryAfterSeconds). */
  readonly retryAfter: number | undefined;
  /** The service that answered. */
  readonly source: ErrorSource;
  /** Other fields of the error body (`field`, `reason` …). */
  readonly details: Record<string, unknown>;

  constructor(init: PlatformErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PlatformError';
    this.status = init.status;
    this.code = init.code;
    this.source = init.source;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.details = init.details ?? {};
  }
}

/** Retry-After as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const KNOWN = new Set(['code', 'message', 'requestId', 'request_id']);

/** A PlatformError from an error answer: `{code, message, requestId}` (social) or `{code, message, request_id}` (auth). */
export function errorFromBody(source: ErrorSource, status: number, body: unknown, headers: { get(name: string): string | null }): PlatformError {
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const details: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) if (!KNOWN.has(k)) details[k] = v;
  return new PlatformError({
    status,
    source,
    code: str(b.code) ?? `http_${status}`,
    message: str(b.message) ?? `HTTP ${status}`,
    requestId: str(b.requestId) ?? str(b.request_id) ?? headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(headers.get('retry-after')),
    details,
  });
}

/**
 * A feature refused to guest accounts until they upgrade (docs/social.md, "Guest restrictions"; the platform's list is
 * the kit's GUEST_FEATURES): social's `friend_requests_over_limit`, `reports`, `party_chat`, `party_create`,
 * `group_create`, `group_chat`, auth's `change_email` and `passkeys`. A newer service may name one this SDK does not list: the type stays open.
 */
export type GuestFeature = GameGuestFeature | 'change_email' | 'passkeys' | (string & {});

/** The guest features a game may restrict (registry `GuestRestricted`): social's. */
export type GameGuestFeature = 'friend_requests_over_limit' | 'reports' | 'party_chat' | 'party_create' | 'group_chat' | 'group_create';

/**
 * The features a game may refuse to guests (registry `GuestRestricted`; social enforces them), each with what upgrading
 * unlocks: the same lines the services send. Auth's `change_email` is refused to every guest, not per game.
 */
export const GAME_GUEST_FEATURES: readonly { feature: GameGuestFeature; unlocks: string }[] = [
  { feature: 'friend_requests_over_limit', unlocks: 'Send more friend requests a day' },
  { feature: 'reports', unlocks: 'Report players to the moderators' },
  { feature: 'party_chat', unlocks: 'Chat with party members who are not your friends' },
  { feature: 'party_create', unlocks: 'Create parties' },
  { feature: 'group_chat', unlocks: 'Chat in groups' },
  { feature: 'group_create', unlocks: 'Create groups' },
];

/** What a 403 `guest_restricted` says: the feature refused, and what upgrading the account unlocks (a line to show). */
export interface GuestRestriction {
  feature: GuestFeature;
  unlocks: string;
}

/**
 * The guest restriction behind an error (403 `guest_restricted` over HTTP, or a socket's error frame), or undefined
 * for any other error. Show `unlocks` and offer the upgrade (`auth.link`); nothing else about the refusal is told.
 *
 *   try { await client.social.report({ targetPublicId, reason: 'spam' }); }
 *   catch (err) { const r = guestRestriction(err); if (r) showUpgrade(r.unlocks); else throw err; }
 */
export function guestRestriction(err: unknown): GuestRestriction | undefined {
  if (!(err instanceof PlatformError) || err.code !== 'guest_restricted') return undefined;
  const { feature, unlocks } = err.details;
  return typeof feature === 'string' && typeof unlocks === 'string' ? { feature, unlocks } : undefined;
}
