// The text filter: obscenity's English dataset with its look-alike handling, a game's deny and allow words,
// masking, list bounds and the per-game cache.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSet, englishDataset } from 'obscenity';
import { compileTextFilter, normaliseWordList, textFilters, wordListProblem, TEXT_FILTER_LIMITS } from '../src/index.js';

describe('compileTextFilter', () => {
  const base = compileTextFilter();

  it('finds a dataset word written plainly, in capitals, in leetspeak and with look-alike characters', () => {
    for (const text of ['what the fuck', 'WHAT THE FUCK', 'what the fvck', 'what the f*ck is this'.replace('*', 'u'), 'sh1t happens', 'ｆｕｃｋ off', 'fuuuuuck']) {
      assert.ok(base.check(text).length > 0, text);
    }
  });

  it('leaves clean text alone', () => {
    assert.deepEqual(base.check('good game, well played'), []);
    assert.equal(base.mask('good game, well played'), 'good game, well played');
  });

  it('masks the matched span with as many * as it had characters', () => {
    const text = 'oh sh1t, really';
    const masked = base.mask(text);
    assert.equal(masked.length, text.length);
    assert.equal(masked, 'oh ****, really');
    const fancy = 'ｆｕｃｋ you';
    assert.equal(base.mask(fancy), '**** you');
  });

  it('catches a deny word with the same look-alike handling', () => {
    const f = compileTextFilter({ denyList: ['Griefer'] });
    for (const text of ['you griefer', 'GRIEFER!', 'gr1ef3r', 'grіefer' /* Cyrillic і */, 'griiiiefer']) {
      assert.ok(f.check(text).length > 0, text);
    }
    assert.equal(f.mask('stop it gr1ef3r'), 'stop it *******');
    assert.deepEqual(base.check('you griefer'), [], 'a deny word belongs to its filter only');
  });

  it('takes pattern syntax in a deny word literally', () => {
    const f = compileTextFilter({ denyList: ['[noob]', 'a|b', 'why?'] });
    assert.ok(f.check('you [noob]').length > 0);
    assert.deepEqual(f.check('noob'), []);
    assert.ok(f.check('a|b').length > 0);
    assert.deepEqual(f.check('ab'), []);
  });

  it('lets an allow word win over a dataset match inside it', () => {
    // The dataset finds "cock" in "cockpit": a flight game allows the word.
    const text = 'back to the Cockpit';
    assert.ok(base.check(text).length > 0);
    const f = compileTextFilter({ allowList: ['cockpit'] });
    assert.deepEqual(f.check(text), []);
    assert.equal(f.mask(text), text);
    assert.ok(f.check('what a cock').length > 0, 'the word alone is still found');
  });

  it('lets an allow word win over a deny word inside it', () => {
    const f = compileTextFilter({ denyList: ['camp'], allowList: ['campaign'] });
    assert.deepEqual(f.check('the campaign starts'), []);
    assert.ok(f.check('stop the camp').length > 0);
  });

  it('an allow word equal to a dataset word lets that word through', () => {
    const f = compileTextFilter({ allowList: ['damn', 'shit'] });
    assert.deepEqual(f.check('oh shit'), []);
  });
});

describe('the screen before the matcher', () => {
  /** The dataset's own words (each phrase's original word). */
  const datasetWords: string[] = [];
  new DataSet<{ originalWord?: string }>().addAll(englishDataset).removePhrasesIf((p) => {
    if (p.metadata?.originalWord) datasetWords.push(p.metadata.originalWord);
    return false;
  });
  const LEET: Record<string, string[]> = { a: ['4', '@'], e: ['3'], i: ['1', '!'], o: ['0'], s: ['5', '$'], t: ['7'], u: ['v'] };
  const CLEAN = ['good', 'game', 'cockpit', 'assassin', 'scunthorpe', 'class', 'analysis', 'therapist', 'shiitake', 'grape', 'bass', 'hello'];

  /** Texts with dataset and deny words in capitals, leetspeak, look-alikes, repeated letters and emoji around them. */
  function corpus(words: readonly string[]): string[] {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const vary = (w: string) =>
      [...w]
        .map((ch) => {
          const r = rnd(10);
          if (r === 0 && LEET[ch]) return LEET[ch][rnd(LEET[ch].length)];
          if (r === 1) return ch.toUpperCase();
          if (r === 2) return ch + ch + ch;
          if (r === 3 && /[a-z]/.test(ch)) return String.fromCodePoint(ch.codePointAt(0)! - 97 + 0xff41); // full width
          return ch;
        })
        .join('');
    const texts: string[] = [];
    for (const w of words) {
      texts.push(w, vary(w), `${CLEAN[rnd(CLEAN.length)]} ${vary(w)}! ${CLEAN[rnd(CLEAN.length)]} 🎮`, `${vary(w)}${CLEAN[rnd(CLEAN.length)]}`);
    }
    for (let i = 0; i < 300; i++) texts.push(Array.from({ length: 6 }, () => CLEAN[rnd(CLEAN.length)]).join(rnd(2) ? ' ' : ''));
    return texts;
  }

  it('finds exactly what the matcher alone finds, on dataset words, deny words and clean text', () => {
    assert.ok(datasetWords.length > 50, 'the dataset words were read');
    const lists = { denyList: ['Griefer', '[noob]', 'why?', 'l33t h4x'], allowList: ['cockpit', 'scunthorpe'] };
    const screened = compileTextFilter(lists);
    const matcherOnly = compileTextFilter(lists, { screen: false });
    let found = 0;
    for (const text of corpus([...datasetWords, ...lists.denyList])) {
      const expected = matcherOnly.check(text);
      assert.deepEqual(screened.check(text), expected, text);
      if (expected.length) found++;
    }
    assert.ok(found > datasetWords.length, `most varied words are found (${found})`);
  });
});

describe('word lists', () => {
  it('normalises: trimmed, lower-cased, spaces collapsed, blanks and duplicates dropped', () => {
    assert.deepEqual(normaliseWordList([' Foo ', 'foo', '', '  ', 'Bar  Baz']), ['foo', 'bar baz']);
  });

  it('refuses too many words, too long a word and control characters', () => {
    assert.equal(wordListProblem(['ok', 'fine']), undefined);
    assert.match(wordListProblem(Array.from({ length: TEXT_FILTER_LIMITS.maxWords + 1 }, (_, i) => `w${i}`))!, /at most/);
    assert.match(wordListProblem(['x'.repeat(TEXT_FILTER_LIMITS.maxWordLength + 1)])!, /characters/);
    assert.equal(wordListProblem(['é'.repeat(TEXT_FILTER_LIMITS.maxWordLength)]), undefined);
    for (const bad of ['a\u0000b', 'a\nb', 'a\tb', 'a\u0085b', 'a\u2028b']) assert.match(wordListProblem([bad])!, /control/, JSON.stringify(bad));
  });
});

describe('textFilters (per-game cache)', () => {
  it('builds once per settings version, again when it changes, never for mode off', () => {
    const filters = textFilters({ maxGames: 2 });
    const v1 = { mode: 'mask' as const, allowList: [], denyList: ['griefer'], version: 1 };
    const a = filters.forGame('g1', v1).filter;
    assert.ok(a);
    assert.equal(filters.forGame('g1', v1).filter, a);
    const b = filters.forGame('g1', { ...v1, denyList: ['camper'], version: 2 }).filter;
    assert.notEqual(b, a);
    assert.ok(b!.check('camper').length > 0);
    assert.deepEqual(b!.check('griefer'), []);
    assert.equal(filters.forGame('g2', { ...v1, mode: 'off' }).filter, undefined);
    filters.forGame('g2', v1);
    filters.forGame('g3', v1);
    assert.equal(filters.size, 2, 'bounded');
  });

  it('answers the newest settings: noted ones when newer than those a context carries', () => {
    const filters = textFilters();
    const carried = { mode: 'off' as const, allowList: [], denyList: [], version: 3 };
    filters.note('g1', { mode: 'reject', allowList: [], denyList: ['camper'], version: 4 });
    const r = filters.forGame('g1', carried);
    assert.equal(r.settings.mode, 'reject');
    assert.ok(r.filter!.check('camper').length > 0);
    filters.note('g1', { mode: 'mask', allowList: [], denyList: [], version: 2 });
    assert.equal(filters.settingsFor('g1', carried).mode, 'reject', 'an older note is ignored');
    assert.equal(filters.settingsFor('g1', { ...carried, version: 5 }).mode, 'off', 'a newer context wins');
  });
});
