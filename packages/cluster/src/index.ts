/** @platform/cluster: run services as N node processes behind HAProxy, and break their stores on purpose. */
export { freePort, waitForPort, eventually, sleep } from './ports.js';
export { ServiceNode, stopAll, REPO_ROOT, type NodeSpec } from './node-process.js';
export { ClusterClient, RetryExhaustedError, type ClientOptions, type JsonResponse, type RequestOptions } from './client.js';
export { startAuthCluster, baseEnv, type AuthCluster, type AuthClusterOptions } from './auth-cluster.js';
export { startSocialCluster, type SocialCluster, type SocialClusterOptions } from './social-cluster.js';
export { startHaproxy, haproxyConfig, haproxyAvailable, type Haproxy, type Backend, type HaproxyConfigOptions } from './haproxy.js';
export { startPgBouncer, pgbouncerBinary, type PgBouncer, type PgBouncerOptions } from './pgbouncer.js';
export { startPrivatePostgres, startPrivateRedis, postgresBinDir, type PrivatePostgres, type PrivateRedis } from './private-stores.js';
export {
  sharedStores,
  skipWithoutSharedStores,
  uniqueSchema,
  redisDbUrl,
  flushRedisDb,
  schemaPool,
  poolerFor,
  type SchemaPool,
  dropSchema,
  claimSuiteStores,
  releaseSuiteStores,
  redisKinds,
  clusterIfAny,
  type SuiteStores,
  type SharedStores,
  type RedisKind,
} from './stores.js';
export { onSuiteStores } from './suite.js';
export { startPrivateRedisCluster, startPrivateSentinel, redisHaAvailable, type PrivateRedisCluster, type PrivateSentinel } from './private-redis.js';
export { runReconnectStorm, type Storm, type StormClientRecord, type StormOptions } from './reconnect-storm.js';
