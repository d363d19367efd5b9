-- Password reset, email verification and email change (docs/auth.md, "Email flows").
-- One row per token mailed; only the SHA-256 of the 256-bit token is stored. `email` is the address the
-- token was sent to: the identity's address (reset, verification) or the new address (email change).
CREATE TABLE email_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  purpose text NOT NULL CHECK (purpose IN ('password_reset', 'verify_email', 'email_change')),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  identity_id uuid NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
  email text NOT NULL,
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  CONSTRAINT email_tokens_hash UNIQUE (token_hash)
);
CREATE INDEX email_tokens_account ON email_tokens (account_id, purpose);
CREATE INDEX email_tokens_expires ON email_tokens (expires_at);

-- The audit events of these flows, beside those of 0003 (sanctions, role changes): the last migration that
-- redefines this constraint must list every event.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_event_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_event_check CHECK (event IN (
  'login', 'logout', 'refresh', 'link', 'unlink', 'lockout', 'delete', 'key_rotation',
  'sanction', 'sanction_lift', 'sanction_expiry', 'role_change',
  'password_reset', 'email_verified', 'email_change'
));
