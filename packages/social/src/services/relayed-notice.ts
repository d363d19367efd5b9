/**
 * A notice from auth that a social node relays to the other social nodes (revocations, sanctions): `{v?, origin,
 * notice}`, the notice in auth's own fields, version 1 (docs/decisions/0020-versioned-messages.md).
 */
import { defineWire } from '@platform/kit';

export type Relayed<T> = { origin: string | undefined; notice: T };

/** The wire of one relayed kind: `parse` reads auth's fields (undefined: not one), `fieldsOf` writes them back. */
export function relayedWire<T>(name: string, parse: (m: Record<string, unknown>) => T | undefined, fieldsOf: (notice: T) => Record<string, unknown>) {
  return defineWire<Relayed<T>>({
    name,
    read: {
      1: (m) => {
        const notice = m.notice && typeof m.notice === 'object' ? parse(m.notice as Record<string, unknown>) : undefined;
        return notice && { origin: typeof m.origin === 'string' ? m.origin : undefined, notice };
      },
    },
    writes: 1,
    write: (r) => ({ origin: r.origin, notice: fieldsOf(r.notice) }),
  });
}
