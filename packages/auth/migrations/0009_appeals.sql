-- Appeals (docs/auth.md, "Appeals"): a sanctioned player's one appeal per sanction, and the moderator's decision.
-- status: open until decided; upheld (the sanction stays), shortened (its end moved earlier), lifted.
CREATE TABLE appeals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sanction_id uuid NOT NULL UNIQUE REFERENCES sanctions (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  reason text NOT NULL,
  text text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'upheld', 'shortened', 'lifted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  -- the moderator's account id, or service:<name>; never shown to the player
  decided_by text,
  -- the answer the player reads (optional)
  response text,
  -- the sanction's end before and after a shortening
  previous_expires_at timestamptz,
  new_expires_at timestamptz
);
CREATE INDEX appeals_queue ON appeals (status, created_at, id);
CREATE INDEX appeals_account ON appeals (account_id, created_at DESC);

-- New audit events: an appeal filed and decided (the list keeps every earlier event).
-- contract: the audit event list is replaced by a superset of itself (the previous release writes none of the new events,
-- and every event it writes stays allowed).
ALTER TABLE audit_log DROP CONSTRAINT audit_log_event_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_event_check CHECK (event IN (
  'login', 'logout', 'refresh', 'link', 'unlink', 'lockout', 'delete', 'key_rotation',
  'sanction', 'sanction_lift', 'sanction_expiry', 'role_change',
  'password_reset', 'email_verified', 'email_change',
  'appeal', 'appeal_decision'
));
