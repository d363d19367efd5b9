-- A game's platform friends setting (docs/registry.md, "Platform friends"; decision 0030): what social does with the
-- platform friends of a player who also plays the game: 'off', 'suggest' (the default) or 'befriend'.
ALTER TABLE games ADD COLUMN platform_friends text NOT NULL DEFAULT 'suggest'
  CONSTRAINT games_platform_friends_mode CHECK (platform_friends IN ('off', 'suggest', 'befriend'));
