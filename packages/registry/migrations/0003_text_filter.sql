-- The text filter (docs/registry.md, "Text filter"; docs/decisions/0021-text-filter.md): a game's mode and its own
-- allow and deny words, handed to social with the game context. Games made before it keep `off` (their players'
-- chat does not change under them); games made from now on start with `mask`. `text_filter_version` grows with
-- every change: social caches the compiled filter under it.
ALTER TABLE games ADD COLUMN text_filter_mode text NOT NULL DEFAULT 'off' CHECK (text_filter_mode IN ('off', 'mask', 'reject', 'flag'));
ALTER TABLE games ALTER COLUMN text_filter_mode SET DEFAULT 'mask';
ALTER TABLE games ADD COLUMN text_filter_allow jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE games ADD COLUMN text_filter_deny jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE games ADD COLUMN text_filter_version integer NOT NULL DEFAULT 1;
