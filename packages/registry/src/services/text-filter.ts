/**
 * A game's text filter settings (docs/registry.md, "Text filter"): its developers read and replace them; social
 * gets them with the game context (validate-key, validate-client-key) and, on a change, in the
 * `text_filter_changed` notice, so sockets already open filter with the new settings at once.
 */
import { normaliseWordList, wordListProblem, type TextFilterMode } from '@platform/kit';
import type { Context } from '../context.js';
import { textFilterQueries, type TextFilterColumns } from '../queries/games.js';
import { fail } from '../errors.js';
import type { Caller } from './auth.js';
import { checkGameId, gameNotFound, ownerOf } from './game-views.js';
import { textFilterOf } from './game-keys.js';

export interface TextFilterView {
  Mode: TextFilterMode;
  AllowList: string[];
  DenyList: string[];
  Version: number;
}

const view = (row: TextFilterColumns): TextFilterView => ({
  Mode: row.text_filter_mode,
  AllowList: row.text_filter_allow,
  DenyList: row.text_filter_deny,
  Version: row.text_filter_version,
});

export async function getTextFilter(ctx: Context, caller: Caller, gameId: string): Promise<TextFilterView> {
  checkGameId(gameId);
  const row = await textFilterQueries(ctx.db).textFilter(gameId, ownerOf(caller));
  if (!row) throw gameNotFound();
  return view(row);
}

/** A word list as stored: normalised (trimmed, lower-cased, no duplicates), refused when out of bounds. */
function wordList(field: 'AllowList' | 'DenyList', words: string[]): string[] {
  const problem = wordListProblem(words);
  if (problem) throw fail('validation_failed', `${field} takes ${problem}`, { Field: field });
  return normaliseWordList(words);
}

export async function setTextFilter(ctx: Context, caller: Caller, gameId: string, input: { mode: TextFilterMode; allowList: string[]; denyList: string[] }): Promise<TextFilterView> {
  checkGameId(gameId);
  const allowList = wordList('AllowList', input.allowList);
  const denyList = wordList('DenyList', input.denyList);
  const row = await textFilterQueries(ctx.db).setTextFilter(gameId, ownerOf(caller), { mode: input.mode, allowList, denyList });
  if (!row) throw gameNotFound();
  await ctx.notices.announce({ change: 'text_filter_changed', gameId: row.id, apiKey: row.api_key, clientKey: row.client_key, textFilter: textFilterOf(row) });
  return view(row);
}
