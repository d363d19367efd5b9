/**
 * What a game and a player registration look like to callers, and the checks every game route shares (games.ts and
 * game-keys.ts both use them; their own module so neither imports the other both ways).
 */
import type { PlatformFriendsMode } from '@platform/kit';
import { UUID_PATTERN as UUID } from '@platform/kit';
import type { CrossGameVisibility, GameRow, GroupLimitsView } from '../queries/games.js';
import type { RegistrationRow } from '../queries/registrations.js';
import type { Caller } from './auth.js';
import { fail } from '../errors.js';

export interface GameView {
  GameId: string;
  DeveloperId: string;
  DisplayName: string;
  ApiKey: string;
  ClientKey: string;
  LaunchCommand: string | null;
  Settings: Record<string, unknown>;
  CrossGameVisibility: CrossGameVisibility;
  /** The social features refused to guests in this game; null: the deployment's list (SOCIAL_GUEST_RESTRICTED). */
  GuestRestricted: string[] | null;
  /** Limits of social's groups in this game; null: the deployment's. */
  GroupLimits: GroupLimitsView | null;
  /** What social does with a player's platform friends in this game. */
  PlatformFriends: PlatformFriendsMode;
  CreatedAt: string;
  UpdatedAt: string;
}

export interface UserRegistrationView {
  Id: string;
  UserId: string;
  GameId: string;
  DisplayName: string | null;
  RegisteredAt: string;
}

export const gameView = (g: GameRow): GameView => ({
  GameId: g.id,
  DeveloperId: g.developer_id,
  DisplayName: g.display_name,
  ApiKey: g.api_key,
  ClientKey: g.client_key,
  LaunchCommand: g.launch_command,
  Settings: g.settings,
  CrossGameVisibility: g.cross_game_visibility,
  GuestRestricted: g.guest_restricted,
  GroupLimits: g.group_limits,
  PlatformFriends: g.platform_friends,
  CreatedAt: new Date(g.created_at).toISOString(),
  UpdatedAt: new Date(g.updated_at).toISOString(),
});

export const registrationView = (r: RegistrationRow): UserRegistrationView => ({
  Id: r.id,
  UserId: r.user_id,
  GameId: r.game_id,
  DisplayName: r.display_name,
  RegisteredAt: new Date(r.registered_at).toISOString(),
});

export const gameNotFound = () => fail('game_not_found', 'No such game');

/** The owner filter of a caller: a super-admin sees every game. */
export const ownerOf = (caller: Caller): string | null => (caller.role === 'super-admin' ? null : caller.id);

/** Another developer's game, a missing one and a malformed id all look the same: 404. */
export function checkGameId(gameId: string): void {
  if (!UUID.test(gameId)) throw gameNotFound();
}
