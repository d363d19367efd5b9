export { buildApp, migrateAuth, MIGRATIONS_DIR, HSTS, type AuthApp, type AuthDeps } from './app.js';
export { readAuthConfig, authVars, type AuthConfig } from './config.js';
export { startAuth, resolveMasterKey, openAuthStores } from './start.js';
export type { PlatformVerifiers, VerifiedPlatformIdentity } from './services/platform.js';
export { rotateSigningKey, advanceRotation, KEY_ROTATION_CHANNEL } from './services/keys.js';
export { DENY_SID, DENY_JTI } from './services/tokens.js';
export { createOutboxWorker, serviceToken, backoffSeconds, type OutboxWorker } from './services/outbox.js';
export { INTERNAL_KEY_HEADER, CLIENT_IP_HEADER } from './services/internal.js';
