/** Each service's JSON has one field-name case (registry PascalCase, auth snake_case, social camelCase). */
export type FieldCase = 'pascal' | 'camel' | 'snake';

const ucFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const toSnake = (s: string) => s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

/** Renames a camelCase key to the service's case. */
export function fieldName(fieldCase: FieldCase, camel: string): string {
  return fieldCase === 'pascal' ? ucFirst(camel) : fieldCase === 'snake' ? toSnake(camel) : camel;
}
