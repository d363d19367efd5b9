-- Users: one row per account seen by the social service. `id` is the internal
-- id (event channels, dm channel derivation); `account_id` is the token's sub
-- and never leaves the service; `public_id` is what clients see.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id text NOT NULL,
  public_id text NOT NULL,
  display_name text NOT NULL,
  name_key text NOT NULL,
  discriminator text NOT NULL,
  avatar_url text,
  status text,
  visibility text NOT NULL DEFAULT 'public',
  invisible boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_account_unique UNIQUE (account_id),
  CONSTRAINT users_public_unique UNIQUE (public_id),
  CONSTRAINT users_handle_unique UNIQUE (name_key, discriminator)
);
CREATE INDEX users_name_prefix ON users (name_key text_pattern_ops, discriminator);

-- Friendship rows exist in both directions so lookups need one index.
CREATE TABLE friendships (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  friend_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, friend_id)
);

-- Only pending requests are kept; accept, decline and cancel remove the row.
CREATE TABLE friend_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  from_user uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  to_user uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT friend_requests_pair_unique UNIQUE (from_user, to_user)
);
CREATE INDEX friend_requests_to ON friend_requests (to_user);

CREATE TABLE blocks (
  blocker uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  blocked uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (blocker, blocked)
);
CREATE INDEX blocks_blocked ON blocks (blocked);

CREATE TABLE mutes (
  muter uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  muted uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (muter, muted)
);

CREATE TABLE notes (
  author uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  subject uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  text text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (author, subject)
);

-- Reports outlive erasure, anonymised (reporter and target become NULL).
CREATE TABLE reports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  reporter uuid REFERENCES users(id) ON DELETE SET NULL,
  target uuid REFERENCES users(id) ON DELETE SET NULL,
  reason text NOT NULL,
  context text,
  game_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Deterministic dm channel ids, recorded when two users become friends so
-- history stays readable by both participants.
CREATE TABLE dm_channels (
  channel_id uuid PRIMARY KEY,
  user_low uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  user_high uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE
);

CREATE TABLE parties (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  leader uuid NOT NULL REFERENCES users(id),
  max_size int NOT NULL,
  visibility text NOT NULL,
  session_handle text,
  join_lobby_id text,
  join_bag jsonb,
  has_join boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One party per user at a time (the unique user_id).
CREATE TABLE party_members (
  party_id uuid NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  joined_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  seq serial NOT NULL,
  PRIMARY KEY (party_id, user_id),
  CONSTRAINT party_members_one_party UNIQUE (user_id)
);

CREATE TABLE invites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  from_user uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  to_user uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  party_id uuid REFERENCES parties(id) ON DELETE SET NULL,
  session_handle text,
  join_lobby_id text,
  join_bag jsonb,
  has_join boolean NOT NULL DEFAULT false,
  state text NOT NULL DEFAULT 'pending',
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invites_to ON invites (to_user, state);
CREATE INDEX invites_from ON invites (from_user, state);

CREATE TABLE chat_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  channel text NOT NULL,
  channel_id uuid NOT NULL,
  from_user uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  body text NOT NULL,
  sent_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Insertion order breaks ties between messages of the same instant.
  seq bigserial NOT NULL
);
CREATE INDEX chat_messages_channel ON chat_messages (channel, channel_id, sent_at DESC, seq DESC);
CREATE INDEX chat_messages_sent ON chat_messages (sent_at);
