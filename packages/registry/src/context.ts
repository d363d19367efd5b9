/**
 * What the registry's routes receive (one Context, built once by app.ts) and what building it needs. Its own
 * module: routes and services import the types from here, never from app.ts (which imports every route).
 */
import type { Database, StateStore } from '@platform/kit';
import type { DestinationStream } from 'pino';
import type { RegistryConfig } from './config.js';
import type { playerService } from './services/registrations.js';
import type { staffRoleService } from './services/staff-roles.js';
import type { Authenticator } from './services/auth.js';
import type { BlobStore } from './adapters/blob-store.js';
import type { developerService } from './services/developers.js';
import type { gameService } from './services/games.js';
import type { GameKeyService } from './services/game-keys.js';
import type { moduleService } from './services/modules.js';
import type { RegistryMetrics } from './services/metrics.js';

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

export interface Context {
  config: AppConfig;
  /** Shared state across nodes (sign-in limits). */
  state: StateStore;
  auth: Authenticator;
  developers: ReturnType<typeof developerService>;
  games: ReturnType<typeof gameService>;
  gameKeys: GameKeyService;
  modules: ReturnType<typeof moduleService>;
  players: ReturnType<typeof playerService>;
  staffRoles: ReturnType<typeof staffRoleService>;
  metrics: RegistryMetrics;
}
