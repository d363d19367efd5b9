-- The realtime layer reads, per chat author, who muted them (party-channel mute filter).
CREATE INDEX IF NOT EXISTS mutes_muted ON mutes (muted);
