/**
 * Changes to the account's sign-in factors need a recent sign-in (docs/auth.md, "Recent sign-in"): an access token
 * taken from a long-lived session (a refresh token kept for weeks) cannot add the taker's passkey or authenticator,
 * nor remove the owner's passkey. "Recent" is the session's own start, by the database's clock, so every node agrees.
 */
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { signedInWithin } from '../queries/sessions.js';

export async function assertRecentSignIn(ctx: AuthContext, accountId: string, sessionId: string | undefined): Promise<void> {
  const seconds = ctx.config.recentSignInSeconds;
  if (sessionId && (await signedInWithin(ctx.db, accountId, sessionId, seconds))) return;
  throw fail('recent_sign_in_required', `Sign in again first: changing the account’s sign-in factors needs a sign-in within the last ${Math.round(seconds / 60)} minutes`, {
    max_age_seconds: seconds,
  });
}
