-- Platform friends (docs/social.md, "Platform friends"; decision 0030): a player's platform friends (Steam friends)
-- who also play the game, imported per (player, game) at most once per Social:PlatformFriends:RefreshSeconds.

-- The import: one row per (player, game, friend); replaced at each refresh. befriended_at: the friendship the game's
-- `befriend` mode made (never made again for the pair, so a player who removes the friend is not re-befriended).
CREATE TABLE platform_friends (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  game_id text NOT NULL,
  friend_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider text NOT NULL,
  imported_at timestamptz NOT NULL,
  befriended_at timestamptz,
  PRIMARY KEY (user_id, game_id, friend_id)
);
CREATE INDEX platform_friends_by_friend ON platform_friends (friend_id, game_id);

-- When a (player, game) was last refreshed, so every node agrees on the interval; outcome of that refresh.
CREATE TABLE platform_friend_refreshes (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  game_id text NOT NULL,
  refreshed_at timestamptz NOT NULL,
  outcome text NOT NULL,
  PRIMARY KEY (user_id, game_id)
);
