-- A lock and a ban are kept apart (docs/auth.md, "Account status"): `locked_at` is set while an operator's lock is in
-- force, whatever else happens; bans are the `ban` sanctions. `status` stays the effective state every reader uses,
-- derived from both: banned while a ban is active, else locked while locked_at is set, else active (deleted wins).
-- So ending a ban of an account locked before the ban leaves it locked.
ALTER TABLE accounts ADD COLUMN locked_at timestamptz;
UPDATE accounts SET locked_at = updated_at WHERE status = 'locked';
