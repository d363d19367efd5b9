/**
 * Every error code the auth service answers with, and its HTTP status: the one list routes, services and
 * providers throw from (`authErrors.fail` and the factories below) and docs/auth.md lists (a test compares
 * them). The kit's own codes (validation_failed, invalid_token, route_not_found, …) are included.
 */
import { kitErrorCodes, type ErrorCodeOf } from '@platform/kit';

export const authErrors = kitErrorCodes.extend({
  weak_password: { status: 400, description: 'The password breaks the policy (`reason` says how)' },
  unknown_sanction_type: { status: 400, description: 'Not ban, chat or a feature named in AUTH_SANCTION_FEATURES' },
  unknown_provider: { status: 400, description: 'No such platform provider' },
  provider_not_configured: { status: 400, description: 'The platform provider is not configured on this platform' },
  mfa_required: { status: 401, description: 'A correct password of an account with a second factor: finish at POST /login/mfa with `mfa_token` and a code' },
  invalid_mfa_code: { status: 401, description: 'The authenticator code or recovery code is wrong, used already, or the mfa_token is not valid' },
  invalid_passkey: { status: 401, description: 'The passkey ceremony failed: its challenge is unknown, expired or used, the credential is not one this platform knows, or the signature, origin or relying party is wrong' },
  invalid_appeal_token: { status: 401, description: 'The appeal token (from a banned sign-in) is unknown, tampered with or expired' },
  invalid_email_token: { status: 400, description: 'The password-reset or email token is unknown (or not for this endpoint)' },
  unauthenticated: { status: 401, description: 'No Bearer token (or, for logout, neither token)' },
  invalid_credentials: { status: 401, description: 'Wrong password, unknown email, wrong guest id or secret' },
  invalid_ticket: { status: 401, description: 'The platform ticket was rejected' },
  invalid_refresh_token: { status: 401, description: 'The refresh token is unknown or expired, or its session was revoked' },
  token_reused: { status: 401, description: 'The refresh token was used twice: the session is terminated' },
  internal_key_required: { status: 401, description: 'An internal endpoint without X-Internal-Key (or an accepted client certificate)' },
  invalid_internal_key: { status: 401, description: 'The internal key is not valid' },
  account_disabled: { status: 403, description: 'The account is locked (after a correct credential)' },
  account_banned: { status: 403, description: 'The account is banned (after a correct credential); `details` has the ban\'s reason and expires_at' },
  forbidden: { status: 403, description: 'The admin role is required (admin endpoints, and sanctioning a moderator or admin)' },
  moderator_required: { status: 403, description: 'The moderator or admin role (or a server-role token) is required' },
  guest_restricted: { status: 403, description: 'A guest account may not use this feature until it upgrades (`feature`, and `unlocks`: what upgrading unlocks)' },
  recent_sign_in_required: { status: 403, description: 'Adding a passkey or an authenticator, or removing a passkey, needs a sign-in within AUTH_RECENT_SIGN_IN_SECONDS (`max_age_seconds`): sign in again, then retry' },
  guest_creation_refused: { status: 403, description: 'Guest creation from this device or network is refused (sign in with an account instead)' },
  email_not_verified: { status: 403, description: 'AUTH_EMAIL_VERIFICATION=required and the email is not verified yet (after a correct password)' },
  account_not_found: { status: 404, description: 'No such account (or it is deleted)' },
  sanction_not_found: { status: 404, description: 'No such sanction' },
  appeal_not_found: { status: 404, description: 'No such appeal' },
  totp_not_enabled: { status: 404, description: 'The account has no confirmed authenticator' },
  passkey_not_found: { status: 404, description: 'The account has no passkey with this id' },
  identity_not_found: { status: 404, description: 'The account has no such identity' },
  email_taken: { status: 409, description: 'An account with this email exists' },
  identity_linked_elsewhere: { status: 409, description: 'The platform identity belongs to another account' },
  sanction_not_active: { status: 409, description: 'The sanction was lifted or has expired already' },
  totp_enabled: { status: 409, description: 'The account has a confirmed authenticator already (remove it first)' },
  totp_not_pending: { status: 409, description: 'No authenticator is waiting for confirmation (start with POST /account/mfa/totp)' },
  passkey_exists: { status: 409, description: 'This authenticator\'s credential is registered already' },
  passkey_limit: { status: 409, description: 'The account has the most passkeys it may have (remove one first)' },
  appeal_exists: { status: 409, description: 'The sanction was appealed already (one appeal per sanction)' },
  appeal_decided: { status: 409, description: 'The appeal was decided already (decisions are final)' },
  invalid_shortening: { status: 409, description: 'A shortened end must be in the future and earlier than the sanction\'s end' },
  last_credential: { status: 409, description: 'An account must keep at least one way to sign in' },
  idempotency_key_reused: { status: 409, description: 'The guest Idempotency-Key was used by another device' },
  email_unchanged: { status: 409, description: 'The new email is the current one' },
  email_token_used: { status: 410, description: 'The password-reset or email token was used already' },
  email_token_expired: { status: 410, description: 'The password-reset or email token has expired' },
  account_locked: { status: 423, description: 'This source is locked out of the credential after wrong passwords' },
  rate_limited: { status: 429, description: 'A sliding-window rate limit is exceeded (Retry-After)' },
  // The player's sessions and the device authorization grant (RFC 8628); the OAuth codes are RFC 6749 / 8628's own.
  session_not_found: { status: 404, description: 'The account has no live session with this id' },
  user_code_not_found: { status: 404, description: 'No pending device request has this user code (unknown, expired, decided, or entered too often)' },
  invalid_request: { status: 400, description: 'OAuth: a required parameter is missing or repeated, or a value is malformed' },
  invalid_client: { status: 401, description: 'OAuth: the client_id is missing, malformed or not accepted' },
  invalid_grant: { status: 400, description: 'OAuth: the device code or refresh token is unknown, spent, revoked or issued to another client' },
  unsupported_grant_type: { status: 400, description: 'OAuth: a grant_type other than device_code and refresh_token' },
  authorization_pending: { status: 400, description: 'OAuth device grant: the player has not decided yet; poll again after the interval' },
  slow_down: { status: 400, description: 'OAuth device grant: polled before the interval; the interval grows by 5 s' },
  access_denied: { status: 400, description: 'OAuth device grant: the player denied the request' },
  expired_token: { status: 400, description: 'OAuth device grant: the device code expired; start again' },
  conflict_retry: { status: 503, description: 'A concurrent first sign-in won the race; retry' },
  passkeys_unavailable: { status: 503, description: 'Passkeys are off on this deployment (no relying party: AUTH_WEBAUTHN_RP_ID, or AUTH_PUBLIC_URL on a host name)' },
  provider_unavailable: { status: 503, description: 'The provider key set cannot be fetched; retry later' },
});

export type AuthErrorCode = ErrorCodeOf<typeof authErrors>;
export const fail = authErrors.fail;

/** The access token's account is gone or not active (the token outlived it). */
export const accountInactive = authErrors.factory('invalid_token', 'The account is not active');
export const accountNotFound = authErrors.factory('account_not_found', 'No such account');
export const adminRequired = authErrors.factory('forbidden', 'The admin role is required');
export const moderatorRequired = authErrors.factory('moderator_required', 'The moderator or admin role is required');
export const sanctionNotFound = authErrors.factory('sanction_not_found', 'No such sanction');
