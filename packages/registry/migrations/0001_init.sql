-- Developer accounts. Emails are stored lower-cased; the unique index on
-- lower(email) makes duplicate registration race-safe.
CREATE TABLE developers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  display_name text NOT NULL,
  password_hash text NOT NULL,
  role text NOT NULL DEFAULT 'developer' CHECK (role IN ('super-admin', 'developer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX developers_email_key ON developers (lower(email));
-- At most one super-admin, whatever happens concurrently.
CREATE UNIQUE INDEX developers_one_super_admin ON developers (role) WHERE role = 'super-admin';

-- Token-signing keys, private half encrypted with the master key.
CREATE TABLE signing_keys (
  purpose text PRIMARY KEY,
  kid text NOT NULL,
  public_key text NOT NULL,
  private_key_enc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE games (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  developer_id uuid NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
  display_name text NOT NULL,
  launch_command text,
  api_key text NOT NULL,
  api_secret_hash text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}',
  cross_game_visibility text NOT NULL DEFAULT 'isolated' CHECK (cross_game_visibility IN ('isolated', 'summary', 'full')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX games_api_key ON games (api_key);
CREATE INDEX games_developer ON games (developer_id, created_at);

CREATE TABLE module_builds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  game_id uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  packaging text NOT NULL CHECK (packaging IN ('wasm', 'native')),
  version text NOT NULL,
  size_bytes int NOT NULL,
  sha256 text,
  admitted boolean NOT NULL,
  schedulable boolean NOT NULL,
  imports jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX module_builds_game_version ON module_builds (game_id, version);
CREATE INDEX module_builds_sha256 ON module_builds (sha256);

-- Filled by /games/register-user (a later delivery).
CREATE TABLE user_registrations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  game_id uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  user_id text NOT NULL,
  display_name text,
  registered_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_registrations_game_user ON user_registrations (game_id, user_id);
CREATE INDEX user_registrations_registered ON user_registrations (registered_at);
