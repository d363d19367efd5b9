/**
 * The text filter (docs/decisions/0021-text-filter.md): profanity in player text, found with `obscenity` (its
 * English dataset and recommended transformers: look-alike characters, leetspeak, repeated letters) plus a game's
 * own words. Deny words become extra patterns seen through the same transformers; allow words are whitelisted
 * terms (a match inside one is not a match). Compiling the English dataset takes milliseconds, so filters are
 * cached per game and settings version (`textFilters`): chat never builds one per message.
 */
import {
  DataSet,
  englishDataset,
  englishRecommendedBlacklistMatcherTransformers,
  englishRecommendedTransformers,
  englishRecommendedWhitelistMatcherTransformers,
  parseRawPattern,
  RegExpMatcher,
  SyntaxKind,
  type BlacklistedTerm,
  type MatchPayload,
  type Node,
  type ParsedPattern,
  type TransformerContainer,
} from 'obscenity';

export const TEXT_FILTER_MODES = ['off', 'mask', 'reject', 'flag'] as const;
/**
 * - `off`: no filtering.
 * - `mask`: matched spans become `*` (same length), stored and delivered so.
 * - `reject`: the text is refused (social: 400 `text_filtered`), nothing stored.
 * - `flag`: stored and delivered unchanged; a report is opened for moderators.
 */
export type TextFilterMode = (typeof TEXT_FILTER_MODES)[number];

/** Bounds of a game's word lists (the registry refuses more; docs/registry.md, "Text filter"). */
export const TEXT_FILTER_LIMITS = { maxWords: 1000, maxWordLength: 64 } as const;

/** A game's filter settings, as the registry keeps them and hands them to social with the game context. */
export interface TextFilterSettings {
  mode: TextFilterMode;
  allowList: readonly string[];
  denyList: readonly string[];
  /** Grows with every change of the settings: what the compiled filter is cached under. */
  version: number;
}

export const TEXT_FILTER_OFF: TextFilterSettings = { mode: 'off', allowList: [], denyList: [], version: 0 };

/** One match: the UTF-16 span [start, end) of the original text. */
export interface TextMatch {
  start: number;
  end: number;
}

export interface TextFilter {
  /** The matches in `text`, in order (none: the text is clean). */
  check(text: string): TextMatch[];
  /** `text` with every matched span replaced by `*`, one per UTF-16 unit (the length stays). */
  mask(text: string, matches?: readonly TextMatch[]): string;
}

/** Runs `text` through the transformers as the matcher does (for a word of a list, so it meets the input halfway). */
function transformed(text: string, transformers: readonly TransformerContainer[]): string {
  const stateful = transformers.map((t) => ('factory' in t ? t.factory() : undefined));
  let out = '';
  for (const ch of text) {
    let c: number | undefined = ch.codePointAt(0)!;
    for (let i = 0; i < transformers.length && c !== undefined; i++) {
      const t = transformers[i];
      c = 'factory' in t ? stateful[i]!.transform(c) : t.transform(c);
    }
    if (c !== undefined) out += String.fromCodePoint(c);
  }
  return out;
}

const REGEXP_SPECIAL = new Set('[.*+?^${}()|\\]');

/** A pattern node as regular-expression source, as obscenity compiles it (pattern/Util.js, not exported). */
function nodeSource(node: Node): string {
  if (node.kind === SyntaxKind.Literal) {
    return node.chars.map((c) => (REGEXP_SPECIAL.has(String.fromCodePoint(c)) ? '\\' : '') + String.fromCodePoint(c)).join('');
  }
  if (node.kind === SyntaxKind.Optional) return `(?:${nodeSource(node.childNode)})?`;
  return '.';
}
const patternSource = (p: ParsedPattern) => `${p.requireWordBoundaryAtStart ? '\\b' : ''}${p.nodes.map(nodeSource).join('')}${p.requireWordBoundaryAtEnd ? '\\b' : ''}`;

/**
 * Whether `text` may hold a match: every blacklisted pattern in one regular expression, run once over the text
 * seen through the matcher's transformers. obscenity's matcher runs one `matchAll` per pattern (200+ with a deny
 * list) and costs ~100 µs a chat line; the screen costs ~8 µs, and most lines are clean, so the matcher runs only
 * when the screen finds something (it then decides, whitelist included). A screen may say yes where the matcher
 * finds nothing (a whitelisted term); it never says no where the matcher finds a match (kit test).
 */
function screenOf(terms: readonly BlacklistedTerm[], transformers: readonly TransformerContainer[]): (text: string) => boolean {
  const any = new RegExp(terms.map((t) => patternSource(t.pattern)).join('|'), 's');
  let see = seen.get(transformers);
  if (!see) seen.set(transformers, (see = seenThrough(transformers)));
  return (text) => any.test(see(text));
}

/** One per transformer list (every game's filter uses the same), so the per-code-point memory is shared. */
const seen = new WeakMap<readonly TransformerContainer[], (text: string) => string>();

/**
 * `transformed`, faster for many texts: the leading simple (stateless) transformers are pure functions of one code
 * point, so their chain is remembered per code point (bounded); the rest run per character as the matcher runs them.
 */
function seenThrough(transformers: readonly TransformerContainer[]): (text: string) => string {
  const lead = transformers.findIndex((t) => 'factory' in t);
  const simple = (lead < 0 ? transformers : transformers.slice(0, lead)) as Extract<TransformerContainer, { transform: unknown }>[];
  const rest = lead < 0 ? [] : transformers.slice(lead);
  const memo = new Map<number, number>();
  const NONE = -1;
  // ASCII, most of any chat line, from a table; other code points through the memory.
  const ascii = Int32Array.from({ length: 128 }, (_, c) => {
    let t: number | undefined = c;
    for (let i = 0; i < simple.length && t !== undefined; i++) t = simple[i].transform(t);
    return t ?? NONE;
  });
  const viaSimple = (c: number): number => {
    if (c < 128) return ascii[c];
    let r = memo.get(c);
    if (r === undefined) {
      let t: number | undefined = c;
      for (let i = 0; i < simple.length && t !== undefined; i++) t = simple[i].transform(t);
      r = t ?? NONE;
      if (memo.size < 65_536) memo.set(c, r);
    }
    return r;
  };
  return (text) => {
    const stateful = rest.map((t) => ('factory' in t ? t.factory() : undefined));
    const out: number[] = [];
    for (const ch of text) {
      let c: number | undefined = viaSimple(ch.codePointAt(0)!);
      if (c === NONE) continue;
      for (let i = 0; i < rest.length && c !== undefined; i++) {
        const t = rest[i];
        c = 'factory' in t ? stateful[i]!.transform(c) : t.transform(c);
      }
      if (c !== undefined) out.push(c);
    }
    return String.fromCodePoint(...out);
  };
}

/** A word as an obscenity pattern that matches only itself: the pattern syntax characters escaped. */
const literalPattern = (word: string) => parseRawPattern(word.replace(/[[\]?|\\]/g, (c) => `\\${c}`));

/** Trims, lower-cases, collapses spaces and drops blanks and duplicates. */
export function normaliseWordList(words: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const w of words) {
    const n = w.trim().replace(/\s+/g, ' ').toLowerCase();
    if (n) seen.add(n);
  }
  return [...seen];
}

/** The reason a word list is refused (undefined: it is acceptable): size, length, control characters. */
export function wordListProblem(words: readonly string[]): string | undefined {
  if (words.length > TEXT_FILTER_LIMITS.maxWords) return `at most ${TEXT_FILTER_LIMITS.maxWords} words`;
  for (const w of words) {
    if ([...w].length > TEXT_FILTER_LIMITS.maxWordLength) return `words of at most ${TEXT_FILTER_LIMITS.maxWordLength} characters`;
    // NUL, C0/C1 controls, line and paragraph separators: a word is one line of visible text.
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(w)) return 'no control characters';
  }
  return undefined;
}

/** A filter of the English dataset plus these words (settings' mode is not its concern: the caller decides). */
export function compileTextFilter(
  lists: { allowList?: readonly string[]; denyList?: readonly string[] } = {},
  /** `screen: false`: every text goes to the matcher (the kit test compares the two). */
  opts: { screen?: boolean } = {},
): TextFilter {
  const dataset = new DataSet<{ originalWord?: string }>().addAll(englishDataset);
  for (const word of normaliseWordList(lists.denyList ?? [])) {
    const seen = transformed(word, englishRecommendedBlacklistMatcherTransformers);
    if (seen) dataset.addPhrase((phrase) => phrase.setMetadata({ originalWord: word }).addPattern(literalPattern(seen)));
  }
  const built = dataset.build();
  const allowed = normaliseWordList(lists.allowList ?? [])
    .map((w) => transformed(w, englishRecommendedWhitelistMatcherTransformers))
    .filter(Boolean);
  const matcher = new RegExpMatcher({ ...built, whitelistedTerms: [...(built.whitelistedTerms ?? []), ...allowed], ...englishRecommendedTransformers });
  const mayMatch = screenOf(built.blacklistedTerms, englishRecommendedBlacklistMatcherTransformers);
  const check = (text: string): TextMatch[] =>
    opts.screen === false || mayMatch(text) ? matcher.getAllMatches(text, true).map((m: MatchPayload) => ({ start: m.startIndex, end: m.endIndex + 1 })) : [];
  return {
    check,
    mask(text, matches = check(text)) {
      if (!matches.length) return text;
      const chars = text.split('');
      for (const m of matches) for (let i = m.start; i < m.end && i < chars.length; i++) chars[i] = '*';
      return chars.join('');
    },
  };
}

/**
 * Compiled filters per game, rebuilt only when the game's settings version changes; at most `maxGames` kept (the
 * oldest used goes first). A filter for settings with mode `off` is never built. `note` records settings newer
 * than a game context carries (the registry's text_filter_changed notice): `settingsFor` answers the newest of
 * the two, so a socket opened before a change filters with the new settings at once.
 */
export function textFilters(opts: { maxGames?: number } = {}) {
  const maxGames = opts.maxGames ?? 1000;
  const cache = new Map<string, { version: number; filter: TextFilter }>();
  const noted = new Map<string, TextFilterSettings>();
  const settingsFor = (gameId: string, carried: TextFilterSettings): TextFilterSettings => {
    const n = noted.get(gameId);
    return n && n.version > carried.version ? n : carried;
  };
  return {
    /** Records settings heard of (kept when newer than those recorded). */
    note(gameId: string, settings: TextFilterSettings): void {
      const n = noted.get(gameId);
      if (n && n.version >= settings.version) return;
      if (!n && noted.size >= maxGames * 10) noted.delete(noted.keys().next().value!);
      noted.set(gameId, settings);
    },
    settingsFor,
    /** The compiled filter of a game's newest settings (undefined when its mode is `off`) and those settings. */
    forGame(gameId: string, carried: TextFilterSettings): { settings: TextFilterSettings; filter?: TextFilter } {
      const settings = settingsFor(gameId, carried);
      if (settings.mode === 'off') return { settings };
      const hit = cache.get(gameId);
      if (hit && hit.version === settings.version) {
        // Most recently used last (Map keeps insertion order).
        cache.delete(gameId);
        cache.set(gameId, hit);
        return { settings, filter: hit.filter };
      }
      const filter = compileTextFilter(settings);
      cache.delete(gameId);
      if (cache.size >= maxGames) cache.delete(cache.keys().next().value!);
      cache.set(gameId, { version: settings.version, filter });
      return { settings, filter };
    },
    get size() {
      return cache.size;
    },
  };
}

export type TextFilters = ReturnType<typeof textFilters>;
