/**
 * Every error code the registry answers with, and its HTTP status: the one list the services throw from
 * (`registryErrors.fail`), the routes document (`registryErrors.responses`) and docs/registry.md lists
 * (a test compares them). The kit's own codes (validation_failed, route_not_found, …) are included.
 */
import { kitErrorCodes, type ErrorCodeOf } from '@platform/kit';

export const registryErrors = kitErrorCodes.extend({
  weak_password: { status: 400, description: 'Password length out of bounds' },
  settings_too_large: { status: 400, description: 'Settings above 16 KiB serialised' },
  invalid_version: { status: 400, description: 'Version is not SemVer 2.0.0 or is too long' },
  wasm_required: { status: 400, description: 'A wasm build without WasmBase64' },
  native_has_no_wasm: { status: 400, description: 'A native build with WasmBase64' },
  invalid_base64: { status: 400, description: 'WasmBase64 is not canonical padded base64' },
  invalid_wasm: { status: 400, description: 'Not a well-formed or valid wasm module' },
  module_limits: { status: 400, description: 'The module exceeds the admission limits' },
  imports_not_allowed: { status: 400, description: 'The module imports outside the allowlist' },
  invalid_combination: { status: 400, description: 'register-user with a field combination that is not accepted' },
  invalid_player_identity: { status: 400, description: 'The auth service refused the player identity' },
  provider_not_configured: { status: 400, description: 'The platform provider is not configured on the auth service' },
  unauthorized: { status: 401, description: 'Missing, malformed, forged or expired developer bearer token' },
  invalid_credentials: { status: 401, description: 'Wrong email or password' },
  mfa_required: { status: 401, description: 'A correct password of a developer with a second factor: finish at POST /developers/login/mfa with MfaToken and a code or a passkey (Factors lists what the developer has)' },
  invalid_mfa_code: { status: 401, description: 'The authenticator code or recovery code is wrong or used already, or the MfaToken is not valid' },
  invalid_passkey: {
    status: 401,
    description: 'A passkey ceremony failed: its challenge unknown, expired, spent or of another purpose or developer; the credential unknown here; a wrong signature, origin, relying party, user handle, no user verification, a counter gone backwards',
  },
  invalid_api_key: { status: 401, description: 'Unknown game API key or wrong secret' },
  invalid_client_key: { status: 401, description: 'Unknown or replaced client key' },
  invalid_ticket: { status: 401, description: 'The platform ticket could not be verified' },
  forbidden: { status: 403, description: 'Only the super-admin may do this' },
  recent_sign_in_required: { status: 403, description: 'Adding a passkey or an authenticator, or removing a passkey, needs a sign-in within REGISTRY_RECENT_SIGN_IN_SECONDS (`MaxAgeSeconds`): sign in again, then retry' },
  second_factor_required: { status: 403, description: 'The super-admin rights need a confirmed authenticator (REGISTRY_SECOND_FACTOR_ROLES)' },
  account_disabled: { status: 403, description: 'The player account is locked or banned' },
  game_not_found: { status: 404, description: 'No such game, or another developer’s' },
  developer_not_found: { status: 404, description: 'No developer has this id (the super-admin’s factor reset)' },
  user_not_found: { status: 404, description: 'No platform account has this UserId' },
  totp_not_enabled: { status: 404, description: 'The developer has no confirmed authenticator' },
  passkey_not_found: { status: 404, description: 'Removing a passkey that is not one of the developer’s (unknown, another developer’s, not a uuid)' },
  email_taken: { status: 409, description: 'An account with this email exists' },
  totp_enabled: { status: 409, description: 'The developer has a confirmed authenticator already (remove it first)' },
  totp_not_pending: { status: 409, description: 'No authenticator is waiting for confirmation (start with POST /developers/me/mfa/totp)' },
  passkey_exists: { status: 409, description: 'This authenticator’s passkey is registered already' },
  passkey_limit: { status: 409, description: 'The developer has the most passkeys allowed (10); remove one first' },
  version_exists: { status: 409, description: 'This module Version exists for the game' },
  conflict: { status: 409, description: 'The auth service reported a conflict' },
  module_too_large: { status: 413, description: 'The decoded module is above the size limit' },
  account_locked: { status: 423, description: 'The player credential is locked after wrong passwords, or the developer’s second factor after five wrong codes' },
  auth_unavailable: { status: 503, description: 'The auth service cannot be reached' },
  passkeys_unavailable: { status: 503, description: 'No relying party: REGISTRY_PUBLIC_URL is on an IP address and REGISTRY_WEBAUTHN_RP_ID is unset' },
  console_unavailable: { status: 503, description: "The console's files are not in REGISTRY_CONSOLE_DIR (not built)" },
});

export type RegistryErrorCode = ErrorCodeOf<typeof registryErrors>;
export const fail = registryErrors.fail;
