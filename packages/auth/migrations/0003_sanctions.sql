-- Sanctions (docs/auth.md, "Sanctions"): a ban of the account, a chat mute, or a feature a studio names
-- (AUTH_SANCTION_FEATURES). Active while not lifted and not past expires_at (NULL: permanent); ended_at is
-- set when it stopped being active and that was announced (lift, or the expiry sweeper).
CREATE TABLE sanctions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  type text NOT NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- the moderator's account id, or service:<name> for a server-role token
  created_by text NOT NULL,
  expires_at timestamptz,
  lifted_at timestamptz,
  lifted_by text,
  lift_reason text,
  ended_at timestamptz
);
CREATE INDEX sanctions_account ON sanctions (account_id, created_at DESC);
CREATE INDEX sanctions_due ON sanctions (expires_at) WHERE ended_at IS NULL AND expires_at IS NOT NULL;

-- Accounts banned before sanctions existed keep their ban as a permanent sanction (a ban is a sanction now).
INSERT INTO sanctions (account_id, type, reason, created_by, created_at)
  SELECT id, 'ban', 'Banned before sanctions were recorded', 'migration', updated_at FROM accounts WHERE status = 'banned';

-- New audit events: sanctions set, lifted and expired, and role changes. A later migration that changes this
-- list must keep these.
ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_event_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_event_check CHECK (event IN (
  'login', 'logout', 'refresh', 'link', 'unlink', 'lockout', 'delete', 'key_rotation',
  'sanction', 'sanction_lift', 'sanction_expiry', 'role_change'));
