/** What the host's tests share: the environment of a host on embedded storage. */
import type { Env } from '@platform/kit';
import { freePort } from '@platform/kit/testing';

/**
 * A host on embedded storage under `dir` (DATABASE_URL and REDIS_URL of the test run left out), listening on free
 * loopback ports, with cheap password hashing and the super-admin's password set; `extra` adds or overrides.
 */
export async function embeddedHostEnv(dir: string, adminPassword: string, extra: Env = {}) {
  const [authPort, socialPort, registryPort] = [await freePort(), await freePort(), await freePort()];
  const { DATABASE_URL: _d, REDIS_URL: _r, ...base } = process.env;
  const env: Env = {
    ...base,
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    AUTH_PORT: String(authPort),
    SOCIAL__LISTEN__PORT: String(socialPort),
    AUTH_PASSWORD_MEMORY_KIB: '1024',
    AUTH_PASSWORD_TIME_COST: '1',
    AUTH_MAIL_DEFER_MAX_MS: '0',
    REGISTRY_ADMIN_PASSWORD: adminPassword,
    ...extra,
  };
  return { env, authPort, socialPort, registryPort };
}
