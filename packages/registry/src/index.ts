// The registry's package exports; the process entry is main.ts, its definition (build, start) service.ts.
export { adminPasswordBanner, type AppConfig, type AppDeps } from './app.js';
export { readRegistryConfig, registryVars, REGISTRY_PORT, DEFAULT_IMPORT_ALLOWLIST, type RegistryConfig } from './config.js';
export { FsBlobStore, type BlobStore } from './adapters/blob-store.js';
export { INVALIDATION_CHANNEL } from './services/api-key-cache.js';
export { MIGRATIONS_DIR, buildApp, loadOrCreateMasterKey, registryService, startRegistry, type RunningRegistry } from './service.js';
