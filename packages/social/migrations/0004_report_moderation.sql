-- The moderation queue (docs/social.md, "Moderation queue"): each report moves received -> in_review ->
-- actioned | dismissed; every move is kept in `history` (state, moderator, when, note). `snapshot` is what the
-- target looked like when the report was filed (profile, and their last messages in the channel the report
-- names), so an edit or a deleted message cannot hide the evidence; it is cleared when the target is erased.
ALTER TABLE reports ADD COLUMN state text NOT NULL DEFAULT 'received';
ALTER TABLE reports ADD COLUMN snapshot jsonb;
ALTER TABLE reports ADD COLUMN history jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE reports ADD COLUMN updated_at timestamptz;
CREATE INDEX reports_queue ON reports (created_at DESC, id DESC);
CREATE INDEX reports_by_state ON reports (state, created_at DESC, id DESC);
CREATE INDEX reports_by_target ON reports (target, created_at DESC, id DESC);
