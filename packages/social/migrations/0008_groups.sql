-- Groups (docs/social.md, "Groups"; decision 0027): clans and guilds per game. game_id is the game context the group
-- was created in ('' for none: the deployment's no-game space); a group is searched and joined only from its own game.
-- name_key: the trimmed name lowercased (unique per game, prefix search in byte order, hence COLLATE "C");
-- member_count is kept beside the rows so a join takes the last seat under the group's row lock.
CREATE TABLE groups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  game_id text NOT NULL DEFAULT '',
  name text NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  tag text NOT NULL,
  description text NOT NULL DEFAULT '',
  language text,
  avatar_url text,
  metadata jsonb,
  join_policy text NOT NULL CHECK (join_policy IN ('open', 'request', 'invite')),
  member_limit integer NOT NULL CHECK (member_limit >= 1),
  member_count integer NOT NULL DEFAULT 0,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT groups_name_unique UNIQUE (game_id, name_key)
);
CREATE INDEX groups_by_tag ON groups (game_id, upper(tag), name_key);

-- Roles a group defines beside the built-in owner (rank 100), admin (50) and member (0): ranks 1-49.
CREATE TABLE group_roles (
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  name text NOT NULL,
  rank integer NOT NULL CHECK (rank BETWEEN 1 AND 49),
  permissions text[] NOT NULL,
  PRIMARY KEY (group_id, name)
);

CREATE TABLE group_members (
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL,
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_by_user ON group_members (user_id);
CREATE INDEX group_members_page ON group_members (group_id, joined_at, user_id);

CREATE TABLE group_requests (
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_requests_by_user ON group_requests (user_id);

CREATE TABLE group_bans (
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_bans_by_user ON group_bans (user_id);

CREATE TABLE group_invites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  from_user uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  to_user uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT group_invites_one UNIQUE (group_id, to_user)
);
CREATE INDEX group_invites_to ON group_invites (to_user, created_at);
