-- Second factors (docs/auth.md, "Second factor (TOTP)"): one authenticator-app secret per account (RFC 6238),
-- encrypted at rest under the master key, pending until confirmed with a code; single-use recovery codes, stored as
-- hashes. last_step: the newest time step accepted (a code is never accepted twice); failures/locked_until: the
-- second factor's own lockout.
CREATE TABLE totp_factors (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  secret_enc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz,
  last_step bigint NOT NULL DEFAULT 0,
  failures integer NOT NULL DEFAULT 0,
  locked_until timestamptz
);

CREATE TABLE recovery_codes (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (account_id, code_hash)
);

-- contract: the audit event list is replaced by a superset of itself (the previous release writes none of the new events,
-- and every event it writes stays allowed).
ALTER TABLE audit_log DROP CONSTRAINT audit_log_event_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_event_check CHECK (event IN (
  'login', 'logout', 'refresh', 'link', 'unlink', 'lockout', 'delete', 'key_rotation',
  'sanction', 'sanction_lift', 'sanction_expiry', 'role_change',
  'password_reset', 'email_verified', 'email_change',
  'appeal', 'appeal_decision',
  'factor_added', 'factor_removed'
));
