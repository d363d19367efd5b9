-- The guest abuse score (docs/auth.md, "Guest abuse score"; docs/decisions/0022-guest-safety.md): one row per subject
-- and signal, its value decayed to `as_of` (value · 2^(-elapsed / half-life) on read and on each new event, so a
-- row is one number however many events it counts). Subjects: a guest account (its id), a device (the hash of its
-- fingerprint, as devices.fingerprint_hash) and a network (the /24 or /64 of sessions.ip_cidr). Staff read the
-- rows as the score's reasons; the player never does.
CREATE TABLE guest_signals (
  subject_kind text NOT NULL CHECK (subject_kind IN ('account', 'device', 'network')),
  subject text NOT NULL,
  signal text NOT NULL,
  value double precision NOT NULL,
  events integer NOT NULL DEFAULT 1,
  as_of timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subject_kind, subject, signal)
);
-- The purge drops rows decayed to nothing.
CREATE INDEX guest_signals_as_of ON guest_signals (as_of);
