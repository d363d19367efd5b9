-- Who acted, beside whose account an audit entry is about (docs/auth.md, "Audit"): the authenticated caller's
-- subject (an account id, or service:<name>), `cli` for the grant-role command, NULL when no one signed in acted
-- (a sign-in attempt, the sanction sweeper). The player's export names no actor other than the player: an entry
-- whose actor is someone else keeps its event, time and what changed, never that actor's id or address.
ALTER TABLE audit_log ADD COLUMN actor text;
-- Entries written before this column: the staff member was recorded as detail.by (an account id, admin or cli).
UPDATE audit_log SET actor = detail->>'by' WHERE detail ? 'by' AND detail->>'by' <> 'owner';
