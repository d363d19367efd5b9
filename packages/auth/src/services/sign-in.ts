/**
 * Sign-in flows, one module each: guests (sign-in-guest.ts), email and password (sign-in-email.ts),
 * platform tickets (sign-in-platform.ts); what they share is in sign-in-common.ts. Each is a ctx-first function.
 */
export { DEVICE_PLATFORMS, type DeviceInput, type DevicePlatform, type SignInResult } from './sign-in-common.js';
export { createGuest, restoreGuest } from './sign-in-guest.js';
export { loginWithEmail, registerWithEmail } from './sign-in-email.js';
export { platformSignIn } from './sign-in-platform.js';
