/**
 * The registry's notice that a game's credentials changed (docs/registry.md, "Credential notices"): published on
 * the state-store channel GAME_CREDENTIALS_CHANNEL after the change is committed, read by every service that
 * caches game credentials (social's tenancy). Here, not in either service, so neither imports the other.
 */
import { sha256Hex } from './crypto.js';
import { TEXT_FILTER_MODES, type TextFilterMode, type TextFilterSettings } from './text-filter.js';
import { defineWire } from './wire.js';

export const GAME_CREDENTIALS_CHANNEL = 'registry:game-credentials';

/**
 * - `secret_replaced`: POST /games/{id}/regenerate-key; the previous ApiSecret is refused from now on.
 * - `client_key_replaced`: POST /games/{id}/regenerate-client-key; the previous ClientKey is refused.
 * - `game_deleted`: DELETE /games/{id}; every credential of the game is refused.
 * - `visibility_changed`: PATCH of CrossGameVisibility or GuestRestricted; every credential still works, cached game
 *   contexts are stale.
 * - `text_filter_changed`: PUT /games/{id}/text-filter; as visibility_changed (the game context carries the filter).
 *   A release that does not know it ignores it and sees the change when its cache entry lapses.
 */
export const GAME_CREDENTIAL_CHANGES = ['secret_replaced', 'client_key_replaced', 'game_deleted', 'visibility_changed', 'text_filter_changed'] as const;
export type GameCredentialChange = (typeof GAME_CREDENTIAL_CHANGES)[number];

export interface GameCredentialsNotice {
  change: GameCredentialChange;
  gameId: string;
  /** The game's ApiKey (public; a regenerate-key keeps it). */
  apiKey: string;
  /**
   * secret_replaced: the SHA-256 (hex) of the replaced secret, i.e. the digest the registry stored. That secret is
   * refused from now on, so its digest opens nothing; it tells exactly which sockets used it (`gameSecretDigest`).
   */
  revokedSecretDigest?: string;
  /** client_key_replaced: the replaced client key; game_deleted: the game's client key (public by design). */
  clientKey?: string;
  /** text_filter_changed: the game's new filter, so sockets opened before the change filter with it at once. */
  textFilter?: TextFilterSettings;
  /** When the registry committed the change (ISO 8601). */
  at: string;
}

/** A credential a game context was established with: the key and secret of a game server, or a client key. */
export type GameCredentialRef =
  | { gameId: string; kind: 'pair'; apiKey: string; secretDigest: string }
  | { gameId: string; kind: 'client'; clientKey: string };

/** The digest of an ApiSecret, as the registry stores it and as revocation notices name it. */
export const gameSecretDigest = (secret: string): string => sha256Hex(secret);

/** Whether the notice makes this credential invalid (a visibility change invalidates none). */
export function revokesCredential(notice: GameCredentialsNotice, cred: GameCredentialRef): boolean {
  if (cred.gameId !== notice.gameId) return false;
  switch (notice.change) {
    case 'game_deleted':
      return true;
    case 'secret_replaced':
      return cred.kind === 'pair' && cred.apiKey === notice.apiKey && cred.secretDigest === notice.revokedSecretDigest;
    case 'client_key_replaced':
      return cred.kind === 'client' && cred.clientKey === notice.clientKey;
    default:
      return false;
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** A text filter in a notice, or undefined when it is not a well-formed one. */
export function readTextFilterSettings(v: unknown): TextFilterSettings | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const f = v as Record<string, unknown>;
  const words = (l: unknown) => Array.isArray(l) && l.every((w) => typeof w === 'string');
  if (!(TEXT_FILTER_MODES as readonly unknown[]).includes(f.mode) || !words(f.allowList) || !words(f.denyList)) return undefined;
  if (typeof f.version !== 'number' || !Number.isSafeInteger(f.version)) return undefined;
  return { mode: f.mode as TextFilterMode, allowList: f.allowList as string[], denyList: f.denyList as string[], version: f.version };
}

/**
 * The channel message (docs/decisions/0020-versioned-messages.md): version 1 is the notice's members (`v` first since
 * this release; the readers of the release before take the members they know). A newer change kind is not read.
 */
export const GAME_CREDENTIALS_WIRE = defineWire<GameCredentialsNotice>({
  name: 'registry.gameCredentials',
  read: {
    1: (m) => {
      if (!(GAME_CREDENTIAL_CHANGES as readonly unknown[]).includes(m.change)) return undefined;
      if (!isString(m.gameId) || !isString(m.apiKey) || !isString(m.at)) return undefined;
      if (m.change === 'secret_replaced' && !isString(m.revokedSecretDigest)) return undefined;
      if (m.change === 'client_key_replaced' && !isString(m.clientKey)) return undefined;
      const textFilter = readTextFilterSettings(m.textFilter);
      if (m.change === 'text_filter_changed' && !textFilter) return undefined;
      return {
        change: m.change as GameCredentialChange,
        gameId: m.gameId,
        apiKey: m.apiKey,
        ...(isString(m.revokedSecretDigest) ? { revokedSecretDigest: m.revokedSecretDigest } : {}),
        ...(isString(m.clientKey) ? { clientKey: m.clientKey } : {}),
        ...(textFilter ? { textFilter } : {}),
        at: m.at,
      };
    },
  },
  writes: 1,
  write: (n) => ({ ...n }),
});

export const encodeGameCredentialsNotice = (notice: GameCredentialsNotice): string => GAME_CREDENTIALS_WIRE.encode(notice);

/** The notice in a channel message, or undefined when it is not one (a newer change kind is not one either). */
export function parseGameCredentialsNotice(raw: string): GameCredentialsNotice | undefined {
  const read = GAME_CREDENTIALS_WIRE.decode(raw);
  return read.ok ? read.value : undefined;
}
