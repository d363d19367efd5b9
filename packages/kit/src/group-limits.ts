/**
 * A game's group limits (docs/registry.md, "Group limits"; docs/social.md, "Groups"): set by the game's developers
 * in the registry, carried to social in the game context (validate-key's `GroupLimits`). A limit left out, or the
 * whole object null, is the deployment's (`SOCIAL_GROUPS_*`). The deployment's `SOCIAL_GROUPS_MAX_MEMBER_LIMIT`
 * stays a ceiling: a game's member limits are capped by it (the operator sizes the machines for it).
 */
export interface GroupLimits {
  /** Groups a player may belong to in the game (1: one clan per player). */
  perPlayer?: number;
  /** Groups a player may create in the game per 24 hours (0: players create none). */
  createdPerDay?: number;
  /** The member limit of a group made without one. */
  defaultMemberLimit?: number;
  /** The highest member limit a group of the game may have. */
  maxMemberLimit?: number;
}

/** Each limit's bounds, inclusive; the registry's schema and social's reader both use these. */
export const GROUP_LIMIT_BOUNDS: { readonly [K in keyof Required<GroupLimits>]: readonly [min: number, max: number] } = {
  perPlayer: [1, 100],
  createdPerDay: [0, 1000],
  defaultMemberLimit: [2, 5000],
  maxMemberLimit: [2, 5000],
};

/** The wire name of each limit (the registry's PascalCase). */
export const GROUP_LIMIT_FIELDS = { perPlayer: 'PerPlayer', createdPerDay: 'CreatedPerDay', defaultMemberLimit: 'DefaultMemberLimit', maxMemberLimit: 'MaxMemberLimit' } as const;

/**
 * The limits of a registry answer's `GroupLimits` (PascalCase): null for none (also from a registry of the release
 * before, which sends nothing); a field out of bounds or of the wrong type is left out (the deployment's applies).
 */
export function readGroupLimits(v: unknown): GroupLimits | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: GroupLimits = {};
  for (const [key, wire] of Object.entries(GROUP_LIMIT_FIELDS) as [keyof GroupLimits, string][]) {
    const n = (v as Record<string, unknown>)[wire];
    const [min, max] = GROUP_LIMIT_BOUNDS[key];
    if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) out[key] = n;
  }
  return out;
}
