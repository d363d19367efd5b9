-- Random secrets the service makes once and every node shares (kit serviceSecret): `cursors` seals the paging
-- cursors (notifications, the moderation queue; docs/social.md, "Cursors"). Deleting a row rotates it: the
-- cursors sealed with it are refused (400 invalid_cursor) and clients start from the first page.
CREATE TABLE service_secrets (
  name text PRIMARY KEY,
  secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
