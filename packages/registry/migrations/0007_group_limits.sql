-- A game's group limits (docs/registry.md, "Group limits"): the limits its developers set for social's groups, as the
-- API shows them ({PerPlayer?, CreatedPerDay?, DefaultMemberLimit?, MaxMemberLimit?}). NULL, or a limit left out:
-- the deployment's SOCIAL_GROUPS_* setting applies.
ALTER TABLE games ADD COLUMN group_limits jsonb;
