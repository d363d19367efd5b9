-- The notification inbox (docs/social.md, "Notifications"): what was addressed to a user, kept whether or
-- not they were online. `actor_id` is who caused it (NULL for moderation notices); an erased actor's
-- notifications go with them (cascade), as do the recipient's own. `data` holds the ids the client needs to
-- act (requestId, inviteId, partyId …), never a user's name: the actor's handle is read at listing time.
-- `seq` orders the inbox (newest first) and is the position a cursor names. `source_id` is a server caller's
-- id for a notice (moderation), so a redelivery stores nothing new.
CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL,
  actor_id uuid REFERENCES users(id) ON DELETE CASCADE,
  data jsonb NOT NULL,
  source_id text,
  created_at timestamptz NOT NULL,
  read_at timestamptz,
  seq bigserial NOT NULL
);
CREATE INDEX notifications_inbox ON notifications (user_id, seq DESC);
CREATE INDEX notifications_unread ON notifications (user_id, seq DESC) WHERE read_at IS NULL;
CREATE INDEX notifications_actor ON notifications (actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX notifications_created ON notifications (created_at);
CREATE UNIQUE INDEX notifications_source ON notifications (user_id, source_id) WHERE source_id IS NOT NULL;
