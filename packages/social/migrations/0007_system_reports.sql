-- System reports (docs/social.md, "Text filter"): a report the text filter opens in `flag` mode has no player
-- reporter (reporter stays NULL, as after an erasure) and says where it came from in `source`: `player` for every
-- report filed through POST /v1/reports (all reports before this one), `text_filter` for the filter's.
ALTER TABLE reports ADD COLUMN source text NOT NULL DEFAULT 'player' CHECK (source IN ('player', 'text_filter'));
