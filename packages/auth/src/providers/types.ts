export const PLATFORM_PROVIDERS = ['store_a', 'store_b', 'idp_a', 'idp_b'] as const;
export type PlatformProvider = (typeof PLATFORM_PROVIDERS)[number];

/** Who the provider vouches for, after every check passed. */
export interface VerifiedPlatformIdentity {
  provider: PlatformProvider;
  /** Steam id as a decimal string (store_a), or the token's `sub`. */
  providerUserId: string;
  email?: string;
  emailVerified?: boolean;
  displayName?: string;
}

export interface PlatformVerifiers {
  verify(provider: string, ticket: string, opts?: { nonce?: string }): Promise<VerifiedPlatformIdentity>;
  configured(): PlatformProvider[];
}

/** One provider's check of one ticket. */
export type TicketVerifier = (ticket: string, opts: { nonce?: string }) => Promise<VerifiedPlatformIdentity>;
