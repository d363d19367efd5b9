-- Repeated reports (docs/social.md, "Reports"): a reporter's new report about a target they already reported
-- within Social:Reports:MergeHours, while that report is still open (received, in_review), is merged into it:
-- `repeat_count` grows and `repeats` keeps the newest of their reasons and contexts (at most 20), instead of
-- a new row. The lookup goes by reporter and target, newest first.
ALTER TABLE reports ADD COLUMN repeat_count integer NOT NULL DEFAULT 0;
ALTER TABLE reports ADD COLUMN repeats jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE reports ADD COLUMN last_reported_at timestamptz;
CREATE INDEX reports_by_reporter_target ON reports (reporter, target, created_at DESC);
