/**
 * What the registry's routes receive (one Context, built once by app.ts) and what building it needs. Its own
 * module: routes and services import the types from here, never from app.ts (which imports every route).
 */
import type { Database, StateStore } from '@platform/kit';
import type { DestinationStream } from 'pino';
import type { RegistryConfig } from './config.js';
import type { BlobStore } from './adapters/blob-store.js';
import type { AuthClientOptions } from './adapters/auth-client.js';
import type { ApiKeyCache } from './services/api-key-cache.js';
import type { GameNotices } from './services/game-notices.js';
import type { RegistryMetrics } from './services/metrics.js';
import type { TokenService } from './services/tokens.js';
import type { WasmImport } from './services/wasm.js';

export type AppConfig = Omit<RegistryConfig, 'masterKey'> & { masterKey: Buffer };

export interface AppDeps {
  db: Database;
  state: StateStore;
  /**
   * Where notices to the other services go (kit GAME_CREDENTIALS_CHANNEL): `state` by default, which in
   * production is the Redis every service shares; npm start on memory passes one store all services share.
   */
  bus?: StateStore;
  blobs: BlobStore;
  logStream?: DestinationStream;
  /** Milliseconds since the epoch; tests move it to mint expired tokens. */
  clock?: () => number;
  /** Where a generated super-admin password is shown, once (stderr by default). */
  announce?: (text: string) => void;
}

/**
 * The infrastructure and config every domain operation takes first (`registerDeveloper(ctx, …)`,
 * `getGame(ctx, caller, id)`: services/*.ts are ctx-first functions, docs/architecture.md). What is here is
 * infrastructure, config, or an object with state of its own; no domain operation lives on it.
 */
export interface Context {
  config: AppConfig;
  db: Database;
  /** Shared state across nodes (sign-in limits). */
  state: StateStore;
  /** Module bytes (adapters/blob-store.ts). */
  blobs: BlobStore;
  /** How to reach auth (adapters/auth-client.ts): register-user and staff roles. */
  authClient: AuthClientOptions;
  /** Developer tokens: the signing key loaded once at build. */
  tokens: TokenService;
  /** The validate-key cache, kept coherent across nodes (services/api-key-cache.ts). */
  keyCache: ApiKeyCache;
  /** Where credential changes are announced (cache invalidation, the other services). */
  notices: GameNotices;
  /** config.importAllowlist, compiled once. */
  importAllowed: (imp: WasmImport) => boolean;
  metrics: RegistryMetrics;
}
