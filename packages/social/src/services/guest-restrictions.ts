/**
 * Guest restrictions (docs/social.md, "Guest restrictions"; docs/decisions/0022-guest-safety.md): a guest account
 * (the verified token's `guest` claim) is refused the features the game restricts (registry GuestRestricted) or,
 * when the game sets none, the deployment (SOCIAL_GUEST_RESTRICTED): 403 guest_restricted naming the feature and
 * what upgrading unlocks. An API-key caller asserts a user, not a guest: never restricted.
 */
import { guestRestrictionDetails, type GuestFeature } from '@platform/kit';
import type { Ctx, GameContext } from '../context.js';
import type { Principal } from './auth.js';
import { rateLimited, socialError } from './errors.js';

/** Who acts and from which game, as far as guest restrictions go. */
export interface GuestCaller {
  principal: Pick<Principal, 'guest' | 'accountId'>;
  game: GameContext;
}

const MESSAGES: Record<GuestFeature, string> = {
  friend_requests_over_limit: 'Guest accounts send a limited number of friend requests a day; upgrade your account to send more',
  reports: 'Guest accounts cannot report players; upgrade your account to report',
  party_chat: 'Guest accounts cannot chat in parties; upgrade your account to chat',
  party_create: 'Guest accounts cannot create parties; upgrade your account to create one',
  group_create: 'Guest accounts cannot create groups; upgrade your account to create one',
  group_chat: 'Guest accounts cannot chat in groups; upgrade your account to chat',
  change_email: 'Guest accounts cannot change an email address; upgrade your account',
  passkeys: 'Guest accounts cannot add passkeys; upgrade your account',
};

/** The features restricted for guests in this game. */
export const restrictedFeatures = (ctx: Ctx, game: GameContext): readonly GuestFeature[] => game.guestRestricted ?? ctx.config.guestRestricted;

/** Whether this caller is a guest refused `feature` here. */
export const isRestricted = (ctx: Ctx, caller: GuestCaller | undefined, feature: GuestFeature): boolean =>
  caller?.principal.guest === true && restrictedFeatures(ctx, caller.game).includes(feature);

export const guestRestricted = (feature: GuestFeature) => socialError('guest_restricted', MESSAGES[feature], guestRestrictionDetails(feature));

/**
 * 403 guest_restricted when this caller is a guest refused `feature` here: by the game's (or the deployment's) list,
 * or by the guest's standing (auth's guest abuse score): at `refuse` every guest feature is refused as if listed, at
 * `slow` each is limited to Social:Guests:SlowActionsPerHour (429 rate_limited). The player's answer is the same as
 * a listed restriction's: it names what upgrading unlocks, never the score.
 */
export async function assertGuestAllowed(ctx: Ctx, caller: GuestCaller | undefined, feature: GuestFeature): Promise<void> {
  if (isRestricted(ctx, caller, feature)) throw guestRestricted(feature);
  await assertGuestStanding(ctx, caller, feature);
}

async function assertGuestStanding(ctx: Ctx, caller: GuestCaller | undefined, feature: GuestFeature): Promise<void> {
  if (caller?.principal.guest !== true) return;
  const standing = await ctx.authAdmin.guestStanding(caller.principal.accountId);
  if (standing === 'refuse') throw guestRestricted(feature);
  if (standing !== 'slow') return;
  const d = await ctx.state.hit(`limit:guest-slow:${feature}:${caller.principal.accountId}`, ctx.config.guestSlowActionsPerHour, 3_600_000);
  if (!d.allowed) {
    ctx.metrics.rateLimited('guest_slow');
    throw rateLimited('Too many of these for now; try again later, or upgrade your account', d.retryAfterMs);
  }
}

/**
 * friend_requests_over_limit: a guest's friend requests are counted per 24 hours (state store: every node agrees);
 * past SOCIAL_GUEST_FRIEND_REQUESTS_PER_DAY, 403 guest_restricted. Counted only while the feature is restricted.
 */
export async function limitGuestFriendRequests(ctx: Ctx, caller: GuestCaller | undefined, userId: string): Promise<void> {
  await assertGuestStanding(ctx, caller, 'friend_requests_over_limit');
  if (!isRestricted(ctx, caller, 'friend_requests_over_limit')) return;
  const d = await ctx.state.hit(`limit:guest-friend-requests:${userId}`, ctx.config.guestFriendRequestsPerDay, 86_400_000);
  if (!d.allowed) throw guestRestricted('friend_requests_over_limit');
}
