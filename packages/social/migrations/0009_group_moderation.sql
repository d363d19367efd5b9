-- Staff actions on groups (docs/social.md, "Groups", moderation): every rename, cleared description and disband by a
-- moderator or admin, with the group as it was and became. group_id has no foreign key: the entry outlives a disbanded
-- group. moderator: the staff member's profile (NULL once erased).
CREATE TABLE group_moderation (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  group_id uuid NOT NULL,
  game_id text NOT NULL,
  action text NOT NULL CHECK (action IN ('rename', 'clear_description', 'disband')),
  moderator uuid REFERENCES users (id) ON DELETE SET NULL,
  reason text NOT NULL,
  before jsonb NOT NULL,
  after jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX group_moderation_by_group ON group_moderation (group_id, created_at);
