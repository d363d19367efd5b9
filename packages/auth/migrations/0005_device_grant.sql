-- Device authorization grant (RFC 8628) and the player's own session list (docs/auth.md, "Device authorization").
-- One row per device authorization request: the device code and the user code are stored as SHA-256 only.
-- status: pending (waiting for the player), approved / denied (decided on the approval page), consumed (the
-- device received its tokens: the codes are spent). Rows are removed a day after they expired.
CREATE TABLE device_grants (
  id uuid PRIMARY KEY,
  device_code_hash text NOT NULL,
  user_code_hash text NOT NULL,
  client_id text NOT NULL,
  device_name text,
  platform text CHECK (platform IN ('ios', 'android', 'win', 'mac', 'linux', 'console', 'web')),
  fingerprint_hash text,
  ip_cidr text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
  account_id uuid REFERENCES accounts (id) ON DELETE CASCADE,
  session_id uuid,
  interval_seconds int NOT NULL,
  entries int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_polled_at timestamptz,
  decided_at timestamptz,
  CONSTRAINT device_grants_device_code UNIQUE (device_code_hash)
);
-- A user code names one pending request: a collision at creation is retried with a new code.
CREATE UNIQUE INDEX device_grants_pending_user_code ON device_grants (user_code_hash) WHERE status = 'pending';
CREATE INDEX device_grants_expires ON device_grants (expires_at);

-- Sessions opened by the device grant name the client and the device it called itself (shown in the session list).
ALTER TABLE sessions ADD COLUMN client_id text;
ALTER TABLE sessions ADD COLUMN device_name text;
