export { migrateAuth, MIGRATIONS_DIR, HSTS, type AuthApp, type AuthDeps } from './app.js';
export { readAuthConfig, authVars, type AuthConfig } from './config.js';
export { authService, buildApp, startAuth, resolveMasterKey, openAuthStores, type RunningAuth } from './service.js';
export type { PlatformVerifiers, VerifiedPlatformIdentity } from './services/platform.js';
export { rotateSigningKey, advanceRotation, KEY_ROTATION_CHANNEL } from './services/keys.js';
export { DENY_SID, DENY_JTI, REVOCATION_CHANNEL, MAX_SIDS, type RevocationNotice, type RevocationReason } from './services/revocation.js';
export { createOutboxWorker, serviceToken, backoffSeconds, type OutboxWorker } from './services/outbox.js';
export { INTERNAL_KEY_HEADER, CLIENT_IP_HEADER } from './services/internal.js';
