/**
 * Verification of external platform tickets for `POST /platform`. One
 * verifier per configured provider; `verify` maps every failure to a stable
 * AppError (400 unknown_provider / provider_not_configured, 401
 * invalid_ticket, 503 provider_unavailable). Decisions: docs/auth-providers.md.
 */
import { ConfigError } from '@platform/kit';
import { fail } from '../errors.js';
import type { PlatformProvidersConfig } from './config.js';
import { createOidcVerifier } from './oidc.js';
import { createSteamTicketVerifier } from './steam.js';
import { PLATFORM_PROVIDERS, type PlatformProvider, type PlatformVerifiers, type TicketVerifier } from './types.js';

export { PLATFORM_PROVIDERS } from './types.js';
export type { PlatformProvider, VerifiedPlatformIdentity, PlatformVerifiers } from './types.js';
export { platformProviderVars, parseKeySetUrl, DEFAULT_STORE_A_MAX_TICKET_AGE_SECONDS } from './config.js';
export type { PlatformProvidersConfig, StoreAConfig, OidcProviderConfig } from './config.js';
export { ID_TOKEN_ALGORITHMS, CLOCK_TOLERANCE_SECONDS } from './oidc.js';

export interface PlatformVerifierOptions {
  /** Key-set fetch timeout in ms (default 5000). */
  keySetTimeoutMs?: number;
  /** Clock for ticket ages (tests). */
  now?: () => number;
}

export const isPlatformProvider = (p: string): p is PlatformProvider => (PLATFORM_PROVIDERS as readonly string[]).includes(p);

export function createPlatformVerifiers(config: PlatformProvidersConfig, options: PlatformVerifierOptions = {}): PlatformVerifiers {
  const verifiers = new Map<PlatformProvider, TicketVerifier>();
  const oidcOptions = { keySetTimeoutMs: options.keySetTimeoutMs };
  if (config.storeA) {
    if (config.storeA.encryptionKey.length !== 32) throw new ConfigError(['AUTH_STORE_A_ENCRYPTION_KEY: must be 32 bytes']);
    verifiers.set('store_a', createSteamTicketVerifier(config.storeA, options.now));
  }
  if (config.storeB) verifiers.set('store_b', createOidcVerifier('store_b', config.storeB, 'raw-if-given', oidcOptions));
  if (config.idpA) verifiers.set('idp_a', createOidcVerifier('idp_a', config.idpA, 'raw-if-given', oidcOptions));
  if (config.idpB) verifiers.set('idp_b', createOidcVerifier('idp_b', config.idpB, 'sha256-required', oidcOptions));

  return {
    async verify(provider, ticket, opts = {}) {
      if (!isPlatformProvider(provider)) {
        throw fail('unknown_provider', `Unknown provider; expected one of ${PLATFORM_PROVIDERS.join(', ')}`);
      }
      const verifier = verifiers.get(provider);
      if (!verifier) throw fail('provider_not_configured', `Provider ${provider} is not configured on this server`);
      return verifier(typeof ticket === 'string' ? ticket : '', { nonce: opts.nonce });
    },
    configured: () => PLATFORM_PROVIDERS.filter((p) => verifiers.has(p)),
  };
}
