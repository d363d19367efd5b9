/**
 * The contract between the auth service and the external platform ticket
 * verifiers (implemented in src/providers, built from the configuration by
 * buildApp unless a test injects its own).
 */
export interface VerifiedPlatformIdentity {
  provider: string;
  providerUserId: string;
  email?: string;
  emailVerified?: boolean;
  displayName?: string;
}

export interface PlatformVerifiers {
  /** Verifies a ticket; throws (AppError 401 preferably) when it is invalid. */
  verify(provider: string, ticket: string, opts?: { nonce?: string }): Promise<VerifiedPlatformIdentity>;
  /** The provider values that are configured. */
  configured(): string[];
}
