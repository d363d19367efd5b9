/**
 * Access tokens signed with the platform's own auth signing key, for tests that need a token auth would not
 * issue through its API: one that expires in seconds (auth's shortest lifetime is 5 minutes), to see a socket
 * closed at its token's expiry without waiting that long.
 */
import { randomUUID } from 'node:crypto';
import { signAccessToken } from '@platform/kit';
import { AUDIENCE, ISSUER, type Platform } from './platform.js';

export async function signTestAccessToken(platform: Platform, accountId: string, opts: { expiresInSeconds: number; sid?: string }): Promise<string> {
  const { config, keys } = platform.auth.app.auth;
  const now = Math.floor(Date.now() / 1000);
  return signAccessToken(config.tokenFormat, keys.signingKey(), ISSUER, AUDIENCE, {
    sub: accountId,
    sid: opts.sid ?? randomUUID(),
    platform: 'web',
    roles: ['player'],
    region: config.defaultRegion,
    jti: randomUUID(),
    iat: now,
    exp: now + opts.expiresInSeconds,
  });
}
