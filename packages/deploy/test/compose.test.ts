// deploy/compose.yaml: each platform service runs its own entry from the one image, passes only settings a service
// reads, and its settings (the ${…} filled in, the certificates made by deploy/make-certs.sh) are a valid
// configuration of the service; the certificates carry the names the services call each other by.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { authVars, readAuthConfig } from '@platform/auth';
import { readRegistryConfig, registryVars } from '@platform/registry';
import { readSocialConfig, socialVars } from '@platform/social';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
type ComposeService = { image: string; command?: string[]; environment?: Record<string, string>; volumes?: string[] };
const compose = parse(readFileSync(path.join(root, 'deploy', 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const platform = Object.entries(compose.services).filter(([, s]) => s.image === 'game-platform');

describe('deploy/compose.yaml', () => {
  it('runs auth, registry and social from the one image, each by its own entry', () => {
    assert.deepEqual(platform.map(([name]) => name).sort(), ['auth', 'registry', 'social']);
    for (const [name, s] of platform) assert.deepEqual(s.command, ['node', `packages/${name}/dist/main.js`]);
  });

  it('passes only settings the service reads', () => {
    const known: Record<string, Set<string>> = {};
    for (const [name, spec] of [['auth', authVars], ['registry', registryVars], ['social', socialVars]] as const) {
      known[name] = new Set(Object.values(spec as Record<string, { name: string; aliases?: readonly string[] }>).flatMap((v) => [v.name, ...(v.aliases ?? [])]));
    }
    for (const [name, s] of platform) assert.deepEqual(Object.keys(s.environment!).filter((k) => !known[name].has(k)), [], name);
  });

  it('with the secrets set and the certificates made, each service’s settings are a valid configuration', () => {
    const certs = mkdtempSync(path.join(tmpdir(), 'compose-certs-'));
    execFileSync('bash', [path.join(root, 'deploy', 'make-certs.sh'), certs]);
    // The names the services call each other by are in the certificates.
    for (const svc of ['auth', 'social']) {
      assert.match(new X509Certificate(readFileSync(path.join(certs, `${svc}.pem`))).subjectAltName ?? '', new RegExp(`DNS:${svc}\\b`));
    }
    const secrets: Record<string, string> = {
      POSTGRES_PASSWORD: 'a-database-password',
      AUTH_MASTER_KEY: randomBytes(32).toString('hex'),
      REGISTRY_MASTER_KEY: randomBytes(32).toString('hex'),
      REGISTRY_ADMIN_PASSWORD: 'a long admin passphrase 1',
      REGISTRY_KEY: 'registry-key-0123456789',
      SOCIAL_KEY: 'social-key-0123456789',
    };
    const fill = (env: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(env).map(([k, v]) => [
          k,
          v.replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_m, name: string) => secrets[name] ?? assert.fail(`${k}: \${${name}} is not set by this test`)).replace(/^\/etc\/platform\//, `${certs}/`),
        ]),
      );
    const env = Object.fromEntries(platform.map(([name, s]) => [name, fill(s.environment!)]));
    assert.doesNotThrow(() => readAuthConfig(env.auth));
    assert.doesNotThrow(() => readRegistryConfig(env.registry));
    assert.doesNotThrow(() => readSocialConfig(env.social));
    // The file settings name files the service's volumes provide.
    for (const [name, s] of platform) {
      const mounted = (s.volumes ?? []).map((v) => v.split(':')[1]);
      for (const [k, v] of Object.entries(s.environment!)) {
        if (k.endsWith('_FILE')) assert.ok(mounted.some((m) => v.startsWith(`${m}/`)), `${name}: ${k} ${v} is on a mounted volume`);
      }
    }
  });
});
