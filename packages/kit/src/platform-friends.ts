/**
 * A game's platform friends setting (docs/registry.md, "Platform friends"; docs/social.md, "Platform friends";
 * decision 0030): what social does with the platform friends (Steam's friend list) of a player who signed in with a
 * platform and also plays the game. Set by the game's developers in the registry, carried to social in the game
 * context (validate-key's `PlatformFriends`).
 * - `off`: nothing is imported;
 * - `suggest` (the default): they appear in the player's suggestions with `source: 'platform'`;
 * - `befriend`: they become friends at once, both ways (as AccelByte's platform sync does).
 */
export const PLATFORM_FRIENDS_MODES = ['off', 'suggest', 'befriend'] as const;
export type PlatformFriendsMode = (typeof PLATFORM_FRIENDS_MODES)[number];
export const DEFAULT_PLATFORM_FRIENDS: PlatformFriendsMode = 'suggest';

/** A registry answer's `PlatformFriends`: the default when absent (a registry of the release before) or unknown. */
export function readPlatformFriends(v: unknown): PlatformFriendsMode {
  return typeof v === 'string' && (PLATFORM_FRIENDS_MODES as readonly string[]).includes(v) ? (v as PlatformFriendsMode) : DEFAULT_PLATFORM_FRIENDS;
}
