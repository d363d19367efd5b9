/** @platform/client — the player SDK: sign-in and sessions (auth), the social API, the realtime socket. */
export { createClient, type ClientOptions, type PlatformClient } from './client.js';
export { GAME_GUEST_FEATURES, guestRestriction, PlatformError, type ErrorSource, type GameGuestFeature, type GuestFeature, type GuestRestriction } from './errors.js';
export { AuthApi, DEVICE_CODE_GRANT, type DevicePollOptions, type GuestCredentials, type GuestSignIn } from './auth.js';
export { browserPasskeys, type PasskeyAuthenticator, type PasskeyCredentialJSON, type PasskeyOptionsJSON } from './passkeys.js';
export { SocialApi } from './social.js';
export { SocialFindingApi } from './social-finding.js';
export {
  ModerationApi,
  type AccountLookup,
  type AccountSummary,
  type AppealDecision,
  type AppealQuery,
  type AppealStatus,
  type GroupStaffAction,
  type ReportActionInput,
  type ReportActionResult,
  type ReportMove,
  type ReportPage,
  type ReportQuery,
  type ReportState,
  type ReportView,
  type RoleList,
  type FactorReset,
  type Sanction,
  type SanctionInput,
  type StaffAppeal,
  type StaffGroupView,
} from './moderation.js';
export { Session, type SessionEvent, type SignOutReason, type StoredSession } from './session.js';
export { RealtimeClient, type RealtimeOptions, type ReconnectOptions, type SessionEndReason, type WebSocketConstructor, type WebSocketLike } from './realtime.js';
export { memoryStorage, webStorage, localStorageStorage, type TokenStorage, type WebStorageLike } from './storage.js';
export type { FetchLike, FetchInit, FetchResponse } from './http.js';
export { CLOSE_REASONS, closeReason, type ClientFrame, type CloseReason, type LifecycleEvents, type RealtimeEvents, type ServerEvents, type ServerEventType, type ServerFrame } from './events.js';
export type * from './types.js';
