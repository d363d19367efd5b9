/**
 * The contract between the auth service and the external platform ticket
 * verifiers (implemented in src/providers). Injected into buildApp, so the
 * service runs (and is tested) without them: absent verifiers make every
 * provider answer 400 provider_not_configured.
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

export const noPlatformVerifiers: PlatformVerifiers = {
  async verify(provider) {
    throw new Error(`provider ${provider} is not configured`);
  },
  configured: () => [],
};
