-- Auth service schema. Field names and enums follow the specification.
CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  display_name text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'locked', 'banned', 'deleted')),
  roles text[] NOT NULL DEFAULT ARRAY['player']::text[],
  home_region text NOT NULL DEFAULT '',
  is_guest boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  -- set when the personal data of a deleted account has been purged
  purged_at timestamptz
);
CREATE INDEX accounts_deleted ON accounts (deleted_at) WHERE status = 'deleted' AND purged_at IS NULL;

CREATE TABLE identities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider text NOT NULL,
  -- email identities: lower(email); guest identities: the account id
  provider_user_id text NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  linked_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz,
  CONSTRAINT identities_provider_user UNIQUE (provider, provider_user_id)
);
CREATE INDEX identities_account ON identities (account_id);

CREATE TABLE credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  identity_id uuid NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('password', 'guest_secret')),
  secret_hash text NOT NULL,
  failed_attempts int NOT NULL DEFAULT 0,
  locked_until timestamptz,
  rotated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT credentials_identity_type UNIQUE (identity_id, type)
);

CREATE TABLE devices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid REFERENCES accounts (id) ON DELETE SET NULL,
  platform text NOT NULL CHECK (platform IN ('ios', 'android', 'win', 'mac', 'linux', 'console', 'web')),
  fingerprint_hash text NOT NULL,
  push_handle text,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT devices_fingerprint UNIQUE (fingerprint_hash)
);
CREATE INDEX devices_account ON devices (account_id);

CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  device_id uuid REFERENCES devices (id) ON DELETE SET NULL,
  auth_method text NOT NULL,
  ip_cidr text,
  region text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sessions_account ON sessions (account_id);

CREATE TABLE refresh_tokens (
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  token_hash text NOT NULL,
  prev_token_id uuid,
  used boolean NOT NULL DEFAULT false,
  issued_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT refresh_tokens_hash UNIQUE (token_hash)
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

CREATE TABLE audit_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid,
  event text NOT NULL CHECK (event IN ('login', 'logout', 'refresh', 'link', 'unlink', 'lockout', 'delete', 'key_rotation')),
  ip text,
  node_id text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account ON audit_log (account_id, at);

-- Ed25519 signing keys; the private key is AES-256-GCM encrypted with AUTH_MASTER_KEY (aad = kid).
-- published: served in the JWKS, not signing (before activation, or after it was superseded
-- until retire_at); active: the one signing key; retired: gone from the JWKS.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  public_key text NOT NULL,
  private_key_enc text NOT NULL,
  state text NOT NULL CHECK (state IN ('published', 'active', 'retired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  activate_at timestamptz,
  activated_at timestamptz,
  retire_at timestamptz,
  retired_at timestamptz
);
-- At most one signing key: makes the first start race-safe across nodes.
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((true)) WHERE state = 'active';

-- Idempotent guest creation: a client-chosen Idempotency-Key (hashed) maps to the guest it created.
CREATE TABLE guest_idempotency (
  key_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  device_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Transactional outbox: notices written in the same transaction as the change they announce.
CREATE TABLE outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  topic text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at) WHERE delivered_at IS NULL;
