/**
 * The game's text filter on player text (docs/social.md, "Text filter"; docs/decisions/0021-text-filter.md): chat
 * messages (dm and party), display names and status texts, filtered with the settings of the game the author
 * writes from (their request's or socket's game context; none: no filter). The compiled filter comes from the
 * node's cache (kit textFilters), so a message costs one match, not a build.
 */
import { TEXT_FILTER_OFF, type TextFilterMode } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { fileFilterReport, type FilteredText } from './filter-reports.js';

/** What was filtered: the text to store (masked or as written), and whether a report is due (mode flag). */
export interface FilterOutcome {
  text: string;
  /** Mode flag found something: the caller stores and delivers the text, then calls `reportFlagged`. */
  flagged: boolean;
}

/** Player text a game's filter applies to. */
export type FilteredField = 'body' | 'displayName' | 'status' | 'name' | 'tag' | 'description';

const refused = (field: FilteredField) => socialError('text_filtered', `The game's text filter refused ${field}`, { field });

/** The game's mode and compiled filter as of now (the newest settings this node heard of). */
function filterOf(ctx: Ctx, game: GameContext) {
  if (!game.gameId) return undefined;
  const { settings, filter } = ctx.textFilters.forGame(game.gameId, game.textFilter ?? TEXT_FILTER_OFF);
  return filter ? { mode: settings.mode as Exclude<TextFilterMode, 'off'>, filter } : undefined;
}

/**
 * `text` through the game's filter: unchanged when clean (or no filter); `mask`: matches become `*` (a display
 * name, whose characters cannot include `*`, is refused instead); `reject`: 400 `text_filtered`; `flag`: unchanged,
 * `flagged` set.
 */
export function filterText(ctx: Ctx, game: GameContext, field: FilteredField, text: string): FilterOutcome {
  const f = filterOf(ctx, game);
  if (!f) return { text, flagged: false };
  const matches = f.filter.check(text);
  if (!matches.length) return { text, flagged: false };
  ctx.metrics.textFiltered(f.mode);
  switch (f.mode) {
    case 'mask':
      // A display name or a group tag cannot hold `*`: refused rather than masked.
      if (field === 'displayName' || field === 'tag') throw refused(field);
      return { text: f.filter.mask(text, matches), flagged: false };
    case 'reject':
      throw refused(field);
    case 'flag':
      return { text, flagged: true };
  }
}

/** Opens the report of a flagged text for moderators (a system report: no player reporter). */
export async function reportFlagged(ctx: Ctx, game: GameContext, author: UserRow, what: FilteredText): Promise<void> {
  await fileFilterReport(ctx, game, author, what);
}
