-- Delivery of outbox notices, one row per (notice, target): every subscriber
-- (social, later matchmaking) acknowledges on its own schedule.
CREATE TABLE outbox_deliveries (
  outbox_id uuid NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
  target text NOT NULL,
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  last_error text,
  PRIMARY KEY (outbox_id, target)
);
CREATE INDEX outbox_deliveries_due ON outbox_deliveries (next_attempt_at) WHERE delivered_at IS NULL;
