// README.md, "Each service alone (production)": its sh block is parsed and the three services are started from
// exactly its lines, each as its own process (from the sources: `node --import tsx packages/<service>/src/main.ts`
// instead of dist/main.js; the registry through support/registry-on-port.ts, since its port is fixed at 3004).
// Substituted: `…` by generated secrets, `$REGISTRY_KEY`/`$SOCIAL_KEY` by random keys, /etc/platform/*.pem by
// certificates issued here by one CA, `<service>.internal:<port>` by 127.0.0.1 and a free port, DATABASE_URL and
// REDIS_URL by the test run's (dropped when unset: embedded stores). Added: free ports, DATA_DIR, HOST, a schema
// per service on PostgreSQL, auth's metrics listener (to see the outbox deliver). Then they must work together:
// a developer and a game at the registry, a guest at auth registered with the game through the registry, a social
// call with the guest's token, and auth's notice of the guest's logout delivered to social over TLS.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, freePort, ServiceNode, stopAll } from '@platform/cluster';
import { loadOrCreateLocalCa, loadOrCreateTls, type LocalCa } from '@platform/kit';
import { testDatabase, type TestDatabase } from '@platform/kit/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The first sh block after the "Each service alone (production)" heading. */
export function productionBlock(readme: string): string {
  const at = readme.indexOf('### Each service alone (production)');
  assert.ok(at >= 0, 'README.md has the "Each service alone (production)" section');
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(m, 'the section has an sh block');
  return m[1];
}

export interface Start {
  service: string;
  /** NAME=value pairs, in order, as written. */
  env: [string, string][];
}

/**
 * The block's commands: `export NAME=value …` lines (for every later command) and `NAME=value … node
 * packages/<service>/dist/main.js` lines (continued with a trailing backslash); comments skipped. Anything else
 * fails, so the README cannot drift into a form this test does not start.
 */
export function parseBlock(block: string): { exported: [string, string][]; starts: Start[] } {
  const lines = block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const exported: [string, string][] = [];
  const starts: Start[] = [];
  const assignment = (word: string): [string, string] => {
    const m = /^([A-Z][A-Z0-9_]*)=(\S*)$/.exec(word);
    assert.ok(m, `not a NAME=value assignment: ${word}`);
    return [m[1], m[2]];
  };
  for (const line of lines) {
    const words = line.split(/\s+/);
    if (words[0] === 'export') {
      exported.push(...words.slice(1).map(assignment));
      continue;
    }
    const node = words.indexOf('node');
    assert.ok(node > 0, `a line that starts no service: ${line}`);
    const entry = /^packages\/([a-z]+)\/dist\/main\.js$/.exec(words.slice(node + 1).join(' '));
    assert.ok(entry, `a service starts as node packages/<service>/dist/main.js: ${line}`);
    starts.push({ service: entry[1], env: words.slice(0, node).map(assignment) });
  }
  return { exported, starts };
}

type Answer = { status: number; body: any };

function call(url: string, method: string, opts: { ca?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = mod.request(
      u,
      {
        method,
        ca: opts.ca,
        agent: false,
        headers: {
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: the text */
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('README: each service alone (production)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readme-production-'));
  const nodes: ServiceNode[] = [];
  const schemas: TestDatabase[] = [];
  let ca: LocalCa;
  let ports: Record<string, number>;
  let metricsPort: number;
  let envs: Record<string, Record<string, string>>;
  const url = (service: string) => `${service === 'registry' ? 'http' : 'https'}://127.0.0.1:${ports[service]}`;

  before(async () => {
    const { exported, starts } = parseBlock(productionBlock(readFileSync(path.join(root, 'README.md'), 'utf8')));
    assert.deepEqual(
      starts.map((s) => s.service),
      ['auth', 'registry', 'social'],
    );
    ports = { auth: await freePort(), registry: await freePort(), social: await freePort() };
    metricsPort = await freePort();
    ca = await loadOrCreateLocalCa(path.join(dir, 'ca'), 'README test CA');
    const shell: Record<string, string> = { REGISTRY_KEY: randomBytes(18).toString('base64url'), SOCIAL_KEY: randomBytes(18).toString('base64url') };
    const pems = path.join(dir, 'etc-platform');
    mkdirSync(pems, { recursive: true });

    /** /etc/platform/<name>-ca.pem: the CA; <name>.pem and <name>-key.pem: a certificate the CA issued for <name>. */
    const pem = async (file: string): Promise<string> => {
      const target = path.join(pems, file);
      const ofCa = /^[a-z]+-ca\.pem$/.exec(file);
      if (ofCa) {
        copyFileSync(ca.certPath, target);
        return target;
      }
      const m = /^([a-z]+)(-key)?\.pem$/.exec(file);
      assert.ok(m, `a certificate file this test can make: ${file}`);
      const tls = await loadOrCreateTls({ dir: path.join(dir, 'issued', m[1]), ca, commonName: `${m[1]}.internal` });
      writeFileSync(target, m[2] ? tls.key : tls.cert);
      return target;
    };
    const value = async (name: string, raw: string): Promise<string> => {
      let v = raw.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, n: string) => {
        assert.ok(shell[n], `a shell variable the test sets: $${n}`);
        return shell[n];
      });
      v = v.replace(/…/g, () => (name.endsWith('_MASTER_KEY') ? randomBytes(32).toString('hex') : randomBytes(18).toString('base64url')));
      v = v.replace(/([a-z]+)\.internal:\d+/g, (_, host: string) => {
        assert.ok(ports[host], `a service host: ${host}.internal`);
        return `127.0.0.1:${ports[host]}`;
      });
      const file = /^\/etc\/platform\/(.+)$/.exec(v);
      return file ? pem(file[1]) : v;
    };

    // The shared settings: the test run's PostgreSQL and Redis, or none (embedded stores).
    const shared: Record<string, string> = {};
    for (const [name, raw] of exported) {
      if (name === 'DATABASE_URL' || name === 'REDIS_URL') {
        if (process.env[name]) shared[name] = process.env[name]!;
        continue;
      }
      shared[name] = await value(name, raw);
    }
    if (shared.DATABASE_URL) {
      for (const svc of ['auth', 'registry', 'social']) schemas.push(await testDatabase(svc));
      // The run's PostgreSQL may be a PgBouncer in transaction mode (CI): the services are told so.
      if (process.env.DATABASE_POOLER) shared.DATABASE_POOLER = process.env.DATABASE_POOLER;
    }
    const added: Record<string, Record<string, string>> = {
      auth: { AUTH_PORT: String(ports.auth), AUTH_METRICS_PORT: String(metricsPort) },
      registry: { E2E_REGISTRY_PORT: String(ports.registry) },
      social: { SOCIAL_PORT: String(ports.social) },
    };
    envs = {};
    for (const [i, start] of starts.entries()) {
      const own: Record<string, string> = {};
      for (const [name, raw] of start.env) own[name] = await value(name, raw);
      envs[start.service] = {
        PATH: process.env.PATH ?? '',
        DATA_DIR: path.join(dir, 'data', start.service), // each its own, as on separate machines
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ...(schemas.length ? { [`${start.service.toUpperCase()}_DB_SCHEMA`]: schemas[i].schema } : {}),
        ...shared,
        ...own,
        ...added[start.service],
      };
    }
    for (const service of ['auth', 'registry', 'social']) {
      nodes.push(
        new ServiceNode({
          name: service,
          entry: service === 'registry' ? 'packages/e2e/test/support/registry-on-port.ts' : `packages/${service}/src/main.ts`,
          env: envs[service],
          port: ports[service],
          protocol: service === 'registry' ? 'http' : 'https',
          ca: ca.cert,
          startTimeoutMs: 25_000,
        }),
      );
    }
    await Promise.all(nodes.map((n) => n.start()));
  });

  after(async () => {
    await stopAll(nodes);
    for (const s of schemas) await s.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names every setting the services need to work together', () => {
    // What the README must give each service (checked here as well as by the start below).
    for (const [service, names] of Object.entries({
      auth: ['AUTH_MASTER_KEY', 'AUTH_TLS_CERT_FILE', 'AUTH_TLS_KEY_FILE', 'AUTH_INTERNAL_KEYS', 'AUTH_OUTBOX_TARGETS', 'AUTH_OUTBOX_CA_FILE', 'AUTH_ISSUER'],
      registry: ['REGISTRY_MASTER_KEY', 'REGISTRY_ADMIN_PASSWORD', 'REGISTRY_AUTH_URL', 'REGISTRY_AUTH_CA_FILE', 'REGISTRY_AUTH_INTERNAL_KEY'],
      social: ['SOCIAL_TLS_CERT_FILE', 'SOCIAL_TLS_KEY_FILE', 'SOCIAL_AUTH_JWKS_URL', 'SOCIAL_AUTH_CA_FILE', 'SOCIAL_AUTH_ISSUER', 'SOCIAL_AUTH_INTERNAL_KEY', 'SOCIAL_REGISTRY_URL'],
    })) {
      for (const name of names) assert.ok(envs[service][name], `${service}: ${name}`);
    }
    assert.equal(envs.social.SOCIAL_AUTH_ISSUER, envs.auth.AUTH_ISSUER, "social checks the issuer auth signs with");
    assert.ok(envs.auth.AUTH_INTERNAL_KEYS.includes(`registry:${envs.registry.REGISTRY_AUTH_INTERNAL_KEY}`));
    assert.ok(envs.auth.AUTH_INTERNAL_KEYS.includes(`social:${envs.social.SOCIAL_AUTH_INTERNAL_KEY}`));
    assert.ok(envs.auth.CORS_ALLOWED_ORIGINS, 'browser origins are named');
  });

  it('work together: developer and game, guest, registration through the registry, social, and auth notices reaching social over TLS', async () => {
    const dev = await call(`${url('registry')}/developers/register`, 'POST', {
      body: { Email: `dev.${randomBytes(4).toString('hex')}@readme.test`, Password: 'a long passphrase', DisplayName: 'Studio' },
    });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));
    const game = await call(`${url('registry')}/games`, 'POST', { token: dev.body.Token, body: { DisplayName: 'Space Race' } });
    assert.equal(game.status, 201, JSON.stringify(game.body));
    const keys = { key: game.body.Game.ApiKey as string, secret: game.body.ApiSecret as string };

    // auth's certificate, issued for the README's /etc/platform/auth.pem.
    const guest = await call(`${url('auth')}/guest`, 'POST', { ca: ca.cert, body: { device_fingerprint: `readme-${randomBytes(6).toString('hex')}` } });
    assert.equal(guest.status, 200, JSON.stringify(guest.body));
    const token = guest.body.access_token as string;

    // registry → auth: REGISTRY_AUTH_URL, REGISTRY_AUTH_CA_FILE, REGISTRY_AUTH_INTERNAL_KEY.
    const registered = await call(`${url('registry')}/games/register-user`, 'POST', {
      headers: { 'x-platform-api-key': keys.key, 'x-platform-api-secret': keys.secret },
      body: { UserId: guest.body.account_id, DisplayName: 'Ada' },
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));

    // social: the token checked against auth's key set (SOCIAL_AUTH_JWKS_URL, CA, issuer), the game against the registry.
    const gameHeaders = { 'x-platform-game-key': keys.key, 'x-platform-game-secret': keys.secret };
    const named = await call(`${url('social')}/v1/me/name`, 'POST', { ca: ca.cert, token, headers: gameHeaders, body: { displayName: 'Ada' } });
    assert.equal(named.status, 200, JSON.stringify(named.body));

    // auth → social: the logout's revocation notice, POSTed to AUTH_OUTBOX_TARGETS trusting AUTH_OUTBOX_CA_FILE.
    const out = await call(`${url('auth')}/logout`, 'POST', { ca: ca.cert, token });
    assert.equal(out.status, 204, JSON.stringify(out.body));
    await eventually(
      async () => (await call(`${url('social')}/v1/friends`, 'GET', { ca: ca.cert, token, headers: gameHeaders })).status === 401,
      10_000,
      'social refuses the logged-out token',
    );
    const metrics = async () => String((await call(`http://127.0.0.1:${metricsPort}/metrics`, 'GET')).body);
    const delivered = await eventually(
      async () => {
        const text = await metrics();
        const sent = Number(/auth_outbox_delivery_attempts_total\{[^}]*result="delivered"[^}]*\}\s+(\d+)/.exec(text)?.[1] ?? 0);
        const pending = Number(/auth_outbox_pending_deliveries(?:\{[^}]*\})?\s+(\d+)/.exec(text)?.[1] ?? -1);
        return sent >= 1 && pending === 0 ? sent : 0;
      },
      10_000,
      "auth's outbox delivered every notice to social",
    );
    assert.ok(delivered >= 1);
  });
});
