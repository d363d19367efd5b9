/** What every route plugin of the auth service receives. */
import type { FastifyRequest } from 'fastify';
import type { AccessClaims, Database, StateStore } from '@platform/kit';
import type { AuthConfig } from './config.js';
import type { AccountService } from './services/accounts.js';
import type { AuditContext } from './services/audit.js';
import type { DeviceGrantService } from './services/device-grants.js';
import type { OwnSessionService } from './services/sessions.js';
import type { EmailFlows } from './services/email.js';
import type { Mailer } from './adapters/mailer.js';
import type { KeyCache } from './services/keys.js';
import type { OutboxWorker } from './services/outbox.js';
import type { RateLimiter } from './services/rate-limit.js';
import type { Revoker } from './services/revocation.js';
import type { SanctionService } from './services/sanctions.js';
import type { SignInService } from './services/sign-in.js';
import type { TokenService } from './services/tokens.js';

export interface AuthContext {
  config: AuthConfig;
  db: Database;
  state: StateStore;
  keys: KeyCache;
  tokens: TokenService;
  /** Every revocation of sessions goes through it (services/revocation.ts). */
  revoker: Revoker;
  /** Bans, chat mutes and features: set, lifted, expired, announced (services/sanctions.ts). */
  sanctions: SanctionService;
  /** Guest, email and password, and platform-ticket sign-in. */
  signIn: SignInService;
  /** The signed-in account's own operations (and its summary for internal callers). */
  accounts: AccountService;
  limiter: RateLimiter;
  /** The player's own sessions: list, end one, end the others. */
  ownSessions: OwnSessionService;
  /** The device authorization grant (RFC 8628). */
  deviceGrants: DeviceGrantService;
  /** Per-address limits of the email flows (AUTH_RATE_EMAIL_WINDOW_SECONDS). */
  emailLimiter: RateLimiter;
  /** Mail delivery (SMTP or the local mailbox directory), off the request path. */
  mailer: Mailer;
  /** Password reset, email verification, email change. */
  emailFlows: EmailFlows;
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
