/**
 * Guest restrictions (docs/decisions/0022-guest-safety.md): the features a deployment or a game may refuse to
 * guest accounts (access tokens with `guest: true`) until they upgrade, each with the one line a player is told
 * it unlocks. One list for every service: social refuses its features, auth its own, both answer
 * 403 `guest_restricted` with `feature` and `unlocks`.
 */
export const GUEST_FEATURES = {
  /** Social: friend requests past SOCIAL_GUEST_FRIEND_REQUESTS_PER_DAY in a day. */
  friend_requests_over_limit: { service: 'social', unlocks: 'Send more friend requests a day' },
  /** Social: POST /v1/reports. */
  reports: { service: 'social', unlocks: 'Report players to the moderators' },
  /** Social: messages in party chat, where members need not be friends (direct messages are friends-only for everyone). */
  party_chat: { service: 'social', unlocks: 'Chat with party members who are not your friends' },
  /** Social: POST /v1/parties. */
  party_create: { service: 'social', unlocks: 'Create parties' },
  /** Social: messages in group chat, where members need not be friends. */
  group_chat: { service: 'social', unlocks: 'Chat in groups' },
  /** Social: POST /v1/groups. */
  group_create: { service: 'social', unlocks: 'Create groups' },
  /** Auth: POST /account/email (a guest has no address to change; told so by this code rather than identity_not_found). */
  change_email: { service: 'auth', unlocks: 'Set and change an email address' },
  /** Auth: POST /account/passkeys/registration/options (a guest's credential is its device; docs/decisions/0025-passkeys.md). */
  passkeys: { service: 'auth', unlocks: 'Sign in with passkeys' },
} as const satisfies Record<string, { service: 'social' | 'auth'; unlocks: string }>;

export type GuestFeature = keyof typeof GUEST_FEATURES;

export const GUEST_FEATURE_NAMES = Object.keys(GUEST_FEATURES) as GuestFeature[];

/** The features one service enforces. */
export const guestFeaturesOf = (service: 'social' | 'auth'): GuestFeature[] => GUEST_FEATURE_NAMES.filter((f) => GUEST_FEATURES[f].service === service);

export const isGuestFeature = (name: string): name is GuestFeature => Object.hasOwn(GUEST_FEATURES, name);

/**
 * A comma list of features (a setting's value): the known names, deduplicated, or the unknown ones as an error.
 * An empty string is the empty list (nothing restricted).
 */
export function parseGuestFeatures(value: string): { features: GuestFeature[] } | { unknown: string[] } {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isGuestFeature(n));
  if (unknown.length) return { unknown };
  return { features: [...new Set(names as GuestFeature[])] };
}

/** The body fields of a 403 guest_restricted (the same words in every service's field case). */
export const guestRestrictionDetails = (feature: GuestFeature) => ({ feature, unlocks: GUEST_FEATURES[feature].unlocks });
