import { fail } from '../errors.js';

/**
 * 401 for any ticket that fails a check; the message names the check, never
 * the ticket. No cause is attached: library errors carry the decoded claims
 * (personal data) and must not reach the logs.
 */
export const invalidTicket = (provider: string, reason: string) =>
  fail('invalid_ticket', `${provider} ticket rejected: ${reason}`);

/** 503 when the provider's key set cannot be fetched; clients retry. */
export const providerUnavailable = (provider: string, cause?: unknown) =>
  fail('provider_unavailable', `${provider} key set is unreachable; retry later`, undefined, { cause });

/** Longest ticket accepted before any parsing (ID tokens are ~1-2 KB, app tickets < 1 KB). */
export const MAX_TICKET_CHARS = 16_384;
