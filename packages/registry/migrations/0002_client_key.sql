-- The client key (docs/client-key.md): a per-game identifier a game client may ship. It names the game a
-- player's requests come from and authenticates nothing by itself. Games made before it get one here.
ALTER TABLE games ADD COLUMN client_key text;
UPDATE games SET client_key = 'ck_' || replace(gen_random_uuid()::text, '-', '') WHERE client_key IS NULL;
ALTER TABLE games ALTER COLUMN client_key SET NOT NULL;
CREATE UNIQUE INDEX games_client_key ON games (client_key);
