-- Finding people to play with (docs/social.md, "Recent players", "Suggestions", "Search", "Open parties"; decision 0029).

-- A match roster a game server posted: match_id is the server's id (or one made here), unique per game.
CREATE TABLE matches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  game_id text NOT NULL,
  match_id text NOT NULL,
  ended_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT matches_id_per_game UNIQUE (game_id, match_id)
);
CREATE INDEX matches_by_end ON matches (ended_at);

CREATE TABLE match_players (
  match uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (match, user_id)
);
CREATE INDEX match_players_by_user ON match_players (user_id);

-- One row per (player, other player, game): the latest match they played together; the newest
-- Social:RecentPlayers:Max per player and game are kept, none past the retention.
CREATE TABLE recent_players (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  other_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  game_id text NOT NULL,
  match uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
  played_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, game_id, other_id)
);
CREATE INDEX recent_players_page ON recent_players (user_id, game_id, played_at DESC, other_id);
CREATE INDEX recent_players_by_other ON recent_players (other_id);

-- A declined friend request, kept for Social:Suggestions:DeclineDays so the requester is not suggested it again.
CREATE TABLE friend_declines (
  decliner uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  requester uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  declined_at timestamptz NOT NULL,
  PRIMARY KEY (decliner, requester)
);
CREATE INDEX friend_declines_by_requester ON friend_declines (requester);

-- The games a player was seen in (a request with that game context), for search in the caller's game.
CREATE TABLE user_games (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  game_id text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (game_id, user_id)
);
CREATE INDEX user_games_by_user ON user_games (user_id);

-- Whether name-prefix search and friend-of-friend suggestions may show the player (exact Name#1234 still finds them).
ALTER TABLE users ADD COLUMN searchable boolean NOT NULL DEFAULT true;

-- A party listed in its game: found by GET /v1/parties while it admits (not full, not Private); gone with the party.
CREATE TABLE party_listings (
  party_id uuid PRIMARY KEY REFERENCES parties (id) ON DELETE CASCADE,
  game_id text NOT NULL,
  mode text,
  region text,
  language text,
  metadata jsonb,
  listed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX party_listings_page ON party_listings (game_id, listed_at DESC, party_id);

-- Suggestions read a player's most recent friendships (200 of the caller's, 200 of each of those): an index scan
-- each, so the read is bounded by 200 × 200 rows whatever Social:Friends:Max is.
CREATE INDEX friendships_recent ON friendships (user_id, created_at DESC);
