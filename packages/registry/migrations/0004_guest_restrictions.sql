-- A game's guest restrictions (docs/decisions/0022-guest-safety.md): the social features (kit GUEST_FEATURES) refused
-- to guest accounts playing this game, in place of the deployment's SOCIAL_GUEST_RESTRICTED. NULL: the deployment's
-- list applies; an empty array: nothing is restricted in this game.
ALTER TABLE games ADD COLUMN guest_restricted text[];
