/**
 * The one UUID shape every service accepts: 8-4-4-4-12 hex digits, either case, nothing around it (no
 * `urn:uuid:` prefix, no braces). Ids are checked before they reach SQL, where a malformed one would
 * make PostgreSQL fail the statement (22P02) instead of answering "not found".
 */
import { Type, type TStringOptions } from 'typebox';

/** Anchored, case-insensitive by its classes (no flag), so its source is also a valid JSON Schema `pattern`. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * A TypeBox string schema accepting exactly UUID_PATTERN. `format: 'uuid'` documents it in OpenAPI; the
 * pattern is what refuses (ajv-formats' uuid format alone would also take a `urn:uuid:` prefix).
 */
export function Uuid(options: TStringOptions = {}) {
  return Type.String({ format: 'uuid', pattern: UUID_PATTERN.source, ...options });
}
