/**
 * Versioned messages (docs/decisions/0020-versioned-messages.md): every message that crosses nodes or outlives
 * one (a bus message on the state store, a replay-log entry, an outbox notice) is read and written through a
 * `WireKind` defined here, so that during a rolling upgrade the nodes of two releases read each other.
 *
 * - A message carries its version as `v`, the object's first member (a positive integer). A message without `v`
 *   is version 1: what every release wrote before the rule.
 * - A kind reads the versions listed in `read` (the current one and at most the one before it) and ignores
 *   fields it does not know; a version it does not read is refused as `unknown_version` (never guessed at).
 * - A kind writes version `writes`, which the previous release must read: a release that adds a version reads it
 *   but goes on writing the older one; the release after writes the new one and stops reading the oldest.
 *
 * Nothing here knows a channel or a store: the kinds live with the code that owns the message's shape.
 */

/** The member that carries a message's version. */
export const VERSION_FIELD = 'v';

type Obj = Record<string, unknown>;

export type WireRead<T> = { ok: true; value: T; version: number } | { ok: false; reason: 'unreadable' | 'unknown_version'; version?: number; error: string };

export interface WireSpec<T> {
  /** For logs and metrics: `<owner>.<message>`, e.g. `social.fanout`. */
  name: string;
  /**
   * The readers, by version: the message (its members, `v` included; for a `plainV1` kind's version 1, `{text}`)
   * to the value, or undefined when it is not one. A reader picks the members it knows and ignores the others.
   */
  read: Readonly<Record<number, (m: Obj) => T | undefined>>;
  /** The version this release writes: one the previous release reads. Absent: the kind is only read here. */
  writes?: number;
  /** The writer of version `writes`: the value to the message's members (the kit puts `v` first). */
  write?: (value: T) => Obj;
  /**
   * Version 1 of the kind is plain text, not a JSON object (a cache key on a channel): a text that is not a JSON
   * object carrying `v` is version 1, handed to its reader as `{text}`, and version 1 is written as `write(v).text`.
   */
  plainV1?: boolean;
  /**
   * Version 1 is written without `v`: the previous release's reader refuses members it does not know (a strict
   * HTTP schema). Readers still take `v: 1`.
   */
  bareV1?: boolean;
}

export interface WireKind<T> {
  readonly name: string;
  /** The newest version read here. */
  readonly current: number;
  /** The versions read here (the current one and at most the one before). */
  readonly reads: readonly number[];
  /** The version written here (undefined: read only). */
  readonly writes: number | undefined;
  /** A message text. */
  decode(raw: string): WireRead<T>;
  /** A message already parsed (an HTTP body). */
  decodeObject(m: unknown): WireRead<T>;
  /** The message text of version `writes`. */
  encode(value: T): string;
  /** The message object of version `writes` (`v` first unless version 1 is written bare). */
  encodeObject(value: T): Obj;
}

const isObject = (m: unknown): m is Obj => m !== null && typeof m === 'object' && !Array.isArray(m);

/** A message's version: its `v` (a positive integer), 1 when absent, undefined when malformed. */
export function versionOf(m: Obj): number | undefined {
  const v = m[VERSION_FIELD];
  if (v === undefined) return 1;
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

/** Puts the version first (the hub finds a node's own echo by the message's last member, `origin`). */
export const withVersion = (version: number, body: Obj): Obj => {
  const { [VERSION_FIELD]: _ignored, ...rest } = body;
  return { [VERSION_FIELD]: version, ...rest };
};

export function defineWire<T>(spec: WireSpec<T>): WireKind<T> {
  const reads = Object.keys(spec.read)
    .map(Number)
    .sort((a, b) => a - b);
  const current = reads[reads.length - 1];
  if (!reads.length || reads.some((v) => !Number.isInteger(v) || v < 1)) throw new Error(`${spec.name}: readers are listed by version (1, 2, ...)`);
  if (reads.length > 2 || (reads.length === 2 && reads[0] !== current - 1)) throw new Error(`${spec.name}: a release reads its current version and the one before, no more`);
  if (spec.writes !== undefined && (!reads.includes(spec.writes) || !spec.write)) throw new Error(`${spec.name}: the version written (${spec.writes}) is one read here, with a writer`);

  const readObject = (m: Obj, version: number): WireRead<T> => {
    const reader = spec.read[version];
    if (!reader) {
      return { ok: false, reason: 'unknown_version', version, error: `${spec.name}: version ${version} is not read here (reads ${reads.join(', ')})` };
    }
    let value: T | undefined;
    try {
      value = reader(m);
    } catch (err) {
      return { ok: false, reason: 'unreadable', version, error: `${spec.name}: ${(err as Error).message}` };
    }
    return value === undefined ? { ok: false, reason: 'unreadable', version, error: `${spec.name}: not a version ${version} message` } : { ok: true, value, version };
  };

  const decodeObject = (m: unknown): WireRead<T> => {
    if (!isObject(m)) return { ok: false, reason: 'unreadable', error: `${spec.name}: not an object` };
    const version = versionOf(m);
    if (version === undefined) return { ok: false, reason: 'unreadable', error: `${spec.name}: malformed version` };
    return readObject(m, version);
  };

  const encodeObject = (value: T): Obj => {
    if (spec.writes === undefined || !spec.write) throw new Error(`${spec.name} is only read here`);
    const body = spec.write(value);
    return spec.writes === 1 && (spec.bareV1 || spec.plainV1) ? body : withVersion(spec.writes, body);
  };

  return {
    name: spec.name,
    current,
    reads,
    writes: spec.writes,
    decodeObject,
    decode(raw) {
      let m: unknown;
      try {
        m = JSON.parse(raw);
      } catch (err) {
        if (spec.plainV1) return readObject({ text: raw }, 1);
        return { ok: false, reason: 'unreadable', error: `${spec.name}: ${(err as Error).message}` };
      }
      // A plain-text version 1 may itself parse as JSON (a number, a string): only an object with `v` is newer.
      if (spec.plainV1 && !(isObject(m) && VERSION_FIELD in m)) return readObject({ text: raw }, 1);
      return decodeObject(m);
    },
    encodeObject,
    encode(value) {
      const body = encodeObject(value);
      if (spec.plainV1 && spec.writes === 1) {
        if (typeof body.text !== 'string') throw new Error(`${spec.name}: version 1 is written as {text}`);
        return body.text;
      }
      return JSON.stringify(body);
    },
  };
}
