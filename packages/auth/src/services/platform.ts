/**
 * The contract between the auth service and the external platform ticket
 * verifiers: defined once in src/providers, built from the configuration by
 * buildApp unless a test injects its own.
 */
export type { PlatformVerifiers, VerifiedPlatformIdentity } from '../providers/types.js';
