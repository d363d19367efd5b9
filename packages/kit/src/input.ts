/**
 * Input every service refuses before validation, because no schema can say it: text PostgreSQL cannot
 * store, and JSON nested deeper than any field needs (recursive code on it, Ajv's included, would run out
 * of stack). Used on every HTTP request (body, query string, path parameters) by createService, and on
 * WebSocket frames by the services that read them.
 */
import type { AppError } from './errors.js';
import { kitError } from './error-codes.js';
import { fieldClassName } from './logger.js';

/** Deepest nesting of objects and arrays accepted in one JSON value (the value itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * NUL (PostgreSQL's text and jsonb refuse it) and lone UTF-16 surrogates (they have no UTF-8 form: the
 * driver would store U+FFFD instead, silently changing the text). With the `u` flag a well-formed pair
 * is one code point and does not match.
 */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** True when PostgreSQL stores this string exactly as given. */
export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

export interface InputProblem {
  code: 'invalid_character' | 'too_deep';
  /** Dotted path of the offending value or key, e.g. `Settings.Mode` or `items.3`; empty for the whole value. */
  field: string;
  message: string;
}

/**
 * The first problem of a parsed JSON value (or a query/params object), or undefined. Keys are checked
 * like values. Stops at `maxDepth`, so a value nested 6,000 levels costs no more than one nested 33.
 */
export function checkJsonInput(value: unknown, maxDepth: number = MAX_JSON_DEPTH): InputProblem | undefined {
  const path: string[] = [];
  const field = (last?: string) => (last === undefined ? path : [...path, last]).join('.');
  const badText = (where: string): InputProblem => ({
    code: 'invalid_character',
    field: where,
    message: `${where ? `Field ${where}` : 'The value'} contains a character that cannot be stored (NUL or an unpaired UTF-16 surrogate)`,
  });
  const walk = (v: unknown, depth: number): InputProblem | undefined => {
    if (typeof v === 'string') return isStorableText(v) ? undefined : badText(field());
    if (v === null || typeof v !== 'object') return undefined;
    if (depth > maxDepth) return { code: 'too_deep', field: field(), message: `JSON is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(String(i));
        const p = walk(v[i], depth + 1);
        path.pop();
        if (p) return p;
      }
      return undefined;
    }
    for (const key of Object.keys(v)) {
      // The key itself is named escaped, so the field in the answer is printable.
      if (!isStorableText(key)) return { ...badText(field(JSON.stringify(key).slice(1, -1))), message: `A field name ${path.length ? `in ${field()} ` : ''}contains a character that cannot be stored (NUL or an unpaired UTF-16 surrogate)` };
      path.push(key);
      const p = walk((v as Record<string, unknown>)[key], depth + 1);
      path.pop();
      if (p) return p;
    }
    return undefined;
  };
  return walk(value, 1);
}

/** The problem as a 400 AppError, the field named under `fieldKey` (the service's case of `field`). */
export function inputError(problem: InputProblem, where: string, fieldKey = 'field'): AppError {
  const field = problem.field || where;
  return kitError(problem.code, `${where}: ${problem.message}`, { [fieldKey]: field });
}

/**
 * What another person must never be shown in a name: control characters (line breaks, tabs), format characters
 * (bidi overrides and isolates such as U+202E, zero-width spaces, the BOM) and line and paragraph separators
 * (U+2028, U+2029). The zero-width joiner is kept: emoji sequences need it.
 */
const CONTROLS = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
const FORMAT_BUT_ZWJ = /(?!\u200d)\p{Cf}/gu;

/**
 * Text as it is shown to another person: NFC-normalised, format characters removed, controls and separators
 * turned to spaces, runs of white space collapsed to one, trimmed (docs/decisions/0007-display-names.md).
 */
export function displayText(s: string): string {
  return s.normalize('NFC').replace(FORMAT_BUT_ZWJ, '').replace(CONTROLS, ' ').replace(/\s+/gu, ' ').trim();
}

/** displayText for a value that may be absent. */
export const displayTextOrNull = (s: string | null | undefined): string | null => (s === null || s === undefined ? null : displayText(s));

/** A field of the name class (display_name, DisplayName, device-name, name, partyName, title…), whatever its spelling. */
export function isNameField(key: string): boolean {
  const n = fieldClassName(key);
  return n.endsWith('name') || n === 'title';
}

/**
 * Every string under a name-class key, at any depth of a request body, made displayText in place (the body is the
 * request's own parsed copy), before the schema runs: a name that is only invisible characters then fails the
 * schema's minLength like an empty one.
 */
export function cleanNameFields(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) cleanNameFields(v, depth + 1);
    return;
  }
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (typeof v === 'string' && isNameField(key)) o[key] = displayText(v);
    else cleanNameFields(v, depth + 1);
  }
}
