/**
 * Where the client keeps the session (tokens) and a guest's credentials between runs. Synchronous and
 * asynchronous stores both fit (localStorage, IndexedDB wrappers, a keychain, a file).
 */

export interface TokenStorage {
  /** The value under `key`, or null/undefined when there is none. */
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  /** Stores `value` under `key`. */
  set(key: string, value: string): void | Promise<void>;
  /** Deletes `key`. */
  remove(key: string): void | Promise<void>;
}

/** Kept in this object only: a page reload or a new process starts signed out. */
export function memoryStorage(): TokenStorage & { readonly size: number } {
  const map = new Map<string, string>();
  return {
    get: (key) => map.get(key) ?? null,
    set: (key, value) => void map.set(key, value),
    remove: (key) => void map.delete(key),
    get size() {
      return map.size;
    },
  };
}

/** The Web Storage interface (window.localStorage, sessionStorage). */
export interface WebStorageLike {
  /** The value under `key`, or null. */
  getItem(key: string): string | null;
  /** Stores `value` under `key`. */
  setItem(key: string, value: string): void;
  /** Deletes `key`. */
  removeItem(key: string): void;
}

/**
 * A Web Storage area, keys prefixed. Defaults to `globalThis.localStorage`. Anything in localStorage is
 * readable by every script of the origin: a page with untrusted scripts should keep tokens in memory.
 */
export function webStorage(area?: WebStorageLike, prefix = 'platform.'): TokenStorage {
  const store = area ?? (globalThis as { localStorage?: WebStorageLike }).localStorage;
  if (!store) throw new Error('webStorage: no storage area given and no globalThis.localStorage here');
  return {
    get: (key) => store.getItem(prefix + key),
    set: (key, value) => store.setItem(prefix + key, value),
    remove: (key) => store.removeItem(prefix + key),
  };
}

/** `webStorage(localStorage)`. */
export const localStorageStorage = (prefix?: string): TokenStorage => webStorage(undefined, prefix);

/** A JSON value under `key`; undefined when absent or unreadable. */
export async function readJson<T>(storage: TokenStorage, key: string): Promise<T | undefined> {
  const raw = await storage.get(key);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

export async function writeJson(storage: TokenStorage, key: string, value: unknown): Promise<void> {
  await storage.set(key, JSON.stringify(value));
}

export const STORAGE_KEYS = { session: 'session', guest: 'guest', device: 'device' } as const;
