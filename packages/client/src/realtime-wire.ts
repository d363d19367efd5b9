/** What the realtime client reads off the wire: event ids, server frames, a refused handshake's error body. */
import type { ServerFrame } from './events.js';

/**
 * True when event id `a` (`<ms>-<n>`) comes after `b`; an id of another form (a server that no longer knows it
 * answers resync) is replaced by any id the server sends.
 */
export function laterId(a: string, b: string): boolean {
  const x = /^(\d+)-(\d+)$/.exec(a);
  const y = /^(\d+)-(\d+)$/.exec(b);
  if (!x || !y) return true;
  return Number(x[1]) > Number(y[1]) || (Number(x[1]) === Number(y[1]) && Number(x[2]) > Number(y[2]));
}

/** The `code` of a refused handshake's JSON error body; undefined when there is none. */
export function refusalCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { code?: unknown };
    return body && typeof body.code === 'string' ? body.code : undefined;
  } catch {
    return undefined;
  }
}

export function parseFrame(data: unknown): ServerFrame | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const f = JSON.parse(data) as { type?: unknown; data?: unknown };
    return f && typeof f.type === 'string' ? (f as ServerFrame) : undefined;
  } catch {
    return undefined;
  }
}
