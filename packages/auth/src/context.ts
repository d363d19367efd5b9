/**
 * What every route plugin of the auth service receives, and what every domain operation takes first
 * (`linkEmail(ctx, …)`, `refreshTokens(ctx, …)`: services/*.ts are ctx-first functions, docs/architecture.md).
 * Here: infrastructure, config, and objects with state of their own (key cache, revoker, outbox worker, limiters,
 * lockout, batchers, mailer) plus the request plumbing built with the app (authenticate, auditCtx …); no domain
 * operation lives on it.
 */
import type { FastifyRequest } from 'fastify';
import type { AccessClaims, App, createSourceLockout, Database, StateStore } from '@platform/kit';
import type { AuthConfig } from './config.js';
import type { AuditContext } from './services/audit.js';
import type { Mailer } from './adapters/mailer.js';
import type { KeyCache } from './services/keys.js';
import type { OutboxWorker } from './services/outbox.js';
import type { PlatformVerifiers } from './services/platform.js';
import type { RateLimiter } from './services/rate-limit.js';
import type { Revoker } from './services/revocation.js';
import type { GuestRow } from './queries/guests.js';
import type { RotatedRow, Rotation } from './queries/tokens.js';

/** Writes one guest sign-up, batched with those arriving together (services/sign-in-guest.ts, createGuestWriter). */
export type GuestWriter = (row: GuestRow) => Promise<void>;

/** Rotates one refresh token, batched with those arriving together. */
export type RefreshRotator = (r: Rotation) => Promise<RotatedRow | undefined>;

/** The kit's per-(source, credential) lockout. */
export type SourceLockout = ReturnType<typeof createSourceLockout>;

export interface AuthContext {
  config: AuthConfig;
  /** The app's logger (what is logged off a request: a notice not published on the bus). */
  log: App['log'];
  db: Database;
  state: StateStore;
  keys: KeyCache;
  /** External platform ticket verification (providers/). */
  verifiers: PlatformVerifiers;
  /** Concurrent refreshes, rotated by one statement (a batcher: services/tokens.ts, createRotator). */
  rotator: RefreshRotator;
  /** Every revocation of sessions goes through it (services/revocation.ts). */
  revoker: Revoker;
  /** Guest sign-ups arriving together, written by one statement (a batcher: services/sign-in-guest.ts). */
  guestWriter: GuestWriter;
  limiter: RateLimiter;
  /** Per-address limits of the email flows (AUTH_RATE_EMAIL_WINDOW_SECONDS). */
  emailLimiter: RateLimiter;
  /** Mail delivery (SMTP or the local mailbox directory), off the request path. */
  mailer: Mailer;
  /** The per-(source, credential) password lockout: /login and an email change's password (same state keys). */
  passwordLockout: SourceLockout;
  outbox: OutboxWorker;
  /** The calling service's name; 401 internal_key_required / invalid_internal_key otherwise. */
  requireInternalCaller(req: FastifyRequest): string;
  /** Verifies the Bearer token (signature, claims, deny set); 401 otherwise. */
  authenticate(req: FastifyRequest, opts?: { allowRevoked?: boolean }): Promise<AccessClaims & { revoked: boolean }>;
  /** Bearer claims when an Authorization header is present, else undefined. */
  optionalAuth(req: FastifyRequest): Promise<(AccessClaims & { revoked: boolean }) | undefined>;
  auditCtx(req: FastifyRequest): AuditContext;
  /** Reloads the key cache and advances due rotation steps. */
  refreshKeys(): Promise<void>;
}
