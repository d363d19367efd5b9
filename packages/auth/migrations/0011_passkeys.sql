-- Passkeys (docs/auth.md, "Passkeys"; decision 0025): WebAuthn credentials of player accounts, a sign-in method and
-- a second factor. credential_id: the authenticator's id (base64url, unique across accounts: a discoverable
-- assertion names only it); public_key: the COSE key; counter: the signature counter (0 for authenticators that keep
-- none; a counter that goes backwards is refused as a cloned authenticator).
CREATE TABLE passkeys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  credential_id text NOT NULL,
  public_key bytea NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT passkeys_credential_id UNIQUE (credential_id)
);
CREATE INDEX passkeys_account ON passkeys (account_id, created_at);

-- contract: the audit event list is replaced by a superset of itself (the previous release writes none of the new
-- events, and every event it writes stays allowed). passkey_rejected: an assertion of a known credential that failed
-- verification (a counter gone backwards: a cloned authenticator), kept apart from ordinary sign-in failures.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_event_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_event_check CHECK (event IN (
  'login', 'logout', 'refresh', 'link', 'unlink', 'lockout', 'delete', 'key_rotation',
  'sanction', 'sanction_lift', 'sanction_expiry', 'role_change',
  'password_reset', 'email_verified', 'email_change',
  'appeal', 'appeal_decision',
  'factor_added', 'factor_removed',
  'passkey_rejected'
));
