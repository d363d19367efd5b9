/**
 * Sign-in flows, one module each: guests (sign-in-guest.ts), email and password (sign-in-email.ts),
 * platform tickets (sign-in-platform.ts); what they share is in sign-in-common.ts.
 */
import type { Database, LockoutHooks, StateStore } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import type { PlatformVerifiers } from './platform.js';
import { createEmailSignIn } from './sign-in-email.js';
import { createGuestSignIn } from './sign-in-guest.js';
import { createPlatformSignIn } from './sign-in-platform.js';
import type { TokenService } from './tokens.js';

export { DEVICE_PLATFORMS, type DeviceInput, type DevicePlatform, type SignInResult } from './sign-in-common.js';

/** `lockoutHooks`: the password lockout's events (metrics). */
export function createSignInService(config: AuthConfig, db: Database, tokens: TokenService, verifiers: PlatformVerifiers, state: StateStore, lockoutHooks?: LockoutHooks) {
  const deps = { config, db, tokens };
  return { ...createGuestSignIn(deps), ...createEmailSignIn(deps, state, lockoutHooks), ...createPlatformSignIn(deps, verifiers) };
}

export type SignInService = ReturnType<typeof createSignInService>;
