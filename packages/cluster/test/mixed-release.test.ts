/**
 * A rolling upgrade in progress (docs/deployment.md, "Rolling upgrades"; docs/decisions/0020-versioned-messages.md):
 * a social node process of the previous release (its sources taken from git history, PREVIOUS_RELEASE) and one of
 * this release, on one schema and one Redis. Friend requests, presence and profile changes made through either node
 * reach the sockets held by the other: the fan-out messages of each release are read by the other. Skipped where
 * the history lacks the commit (a shallow clone), the shared stores are not set, or PostgreSQL is reached only through a
 * transaction pooler (that release predates it). Plain Redis only (that release predates Redis Cluster).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectSocket } from './support.js';
import type { StateStore } from '@platform/kit';
import { onSuiteStores, REPO_ROOT, ServiceNode, skipWithoutSharedStores, startSocialCluster, freePort, baseEnv, type SocialCluster } from '../src/index.js';

/** The release before this one (update at each release, with packages/e2e/test/fixtures/wire/previous.json). */
const PREVIOUS_RELEASE = '955e5901a04d4d655b89294e7f6979f65d0cec53';

function hasCommit(commit: string): boolean {
  try {
    execFileSync('git', ['-C', REPO_ROOT, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The previous release's kit and social sources in `dir`, over this checkout's node_modules (its own @platform). */
function previousTree(dir: string): string {
  mkdirSync(dir, { recursive: true });
  execSync(`git -C ${JSON.stringify(REPO_ROOT)} archive ${PREVIOUS_RELEASE} packages/kit packages/social | tar -x -C ${JSON.stringify(dir)}`);
  const modules = path.join(dir, 'node_modules');
  mkdirSync(path.join(modules, '@platform'), { recursive: true });
  for (const entry of readdirSync(path.join(REPO_ROOT, 'node_modules'))) {
    if (entry !== '@platform') symlinkSync(path.join(REPO_ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  for (const pkg of ['kit', 'social']) symlinkSync(path.join(dir, 'packages', pkg), path.join(modules, '@platform', pkg));
  return path.join(dir, 'packages/social/src/main.ts');
}

const skip =
  skipWithoutSharedStores() ||
  (hasCommit(PREVIOUS_RELEASE) ? false : `the previous release ${PREVIOUS_RELEASE.slice(0, 7)} is not in this clone's history`) ||
  // That release predates the transaction-pooler support (DATABASE_POOLER): it runs on PostgreSQL directly, which CI
  // names DATABASE_DIRECT_URL while DATABASE_URL is its PgBouncer.
  (process.env.DATABASE_POOLER === 'transaction' && !process.env.DATABASE_DIRECT_URL ? 'the previous release does not run behind a transaction pooler, and DATABASE_DIRECT_URL is not set' : false);

/** The PostgreSQL both releases reach: straight, past CI's pooler (the schema is the same database's). */
const straight = (url: string) => (process.env.DATABASE_POOLER === 'transaction' && process.env.DATABASE_DIRECT_URL ? process.env.DATABASE_DIRECT_URL : url);

const connect = connectSocket;

describe('a rolling upgrade in progress: a node of the previous release and one of this release', { skip }, () => {
  let current: SocialCluster;
  let previous: ServiceNode;
  /** The fan-out channel as both nodes publish on it. */
  let bus: StateStore;
  const fanout: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'mixed-release-'));

  onSuiteStores('cl_mixed', 9, {
    async start(suite) {
      const entry = previousTree(path.join(dir, 'tree'));
      // The previous release first (its migrations), then this one, as an upgrade does.
      current = await startSocialCluster({ nodes: 1, ...suite, databaseUrl: straight(suite.databaseUrl) });
      const port = await freePort();
      previous = new ServiceNode({
        name: 'social-previous',
        entry,
        port,
        protocol: 'http',
        env: {
          ...baseEnv(),
          DATA_DIR: path.join(dir, 'previous-data'),
          DATABASE_URL: straight(suite.databaseUrl),
          ...suite.redis,
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          SOCIAL__LISTEN__PORT: String(port),
          SOCIAL__TLS__MODE: 'http',
          SOCIAL__AUTH__APIKEY: current.apiKey,
          SOCIAL__DATABASE__SCHEMA: suite.schema,
        },
      });
      await previous.start();
      bus = await suite.openState();
      await bus.subscribe('social:fanout', (raw) => fanout.push(raw));
    },
    async stop() {
      await bus?.close();
      await previous?.stop();
      await current?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });

  it('presence, profile and user events cross between the releases both ways', async () => {
    const ada = current.headers(randomUUID(), 'adamix');
    const bob = current.headers(randomUUID(), 'bobmix');
    const onNew = current.client(0);
    const post = (url: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${previous.url}${url}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const adaMe = (await onNew.get('/v1/me', { headers: ada })).body;
    const bobMe = (await onNew.get('/v1/me', { headers: bob })).body;
    // Ada's socket on this release's node, Bob's on the previous release's.
    const adaSock = await connect(`ws://127.0.0.1:${current.nodes[0].port}/v1/ws`, ada);
    const bobSock = await connect(`ws://127.0.0.1:${previous.port}/v1/ws`, bob);
    try {
      // A user-channel event from the previous node to this one, and back.
      assert.equal((await post('/v1/friends/requests', { toPublicId: adaMe.publicId }, bob)).status, 201);
      await adaSock.next('friendRequestReceived', (d) => d.publicId === bobMe.publicId);
      assert.equal((await onNew.post(`/v1/friends/requests/${bobMe.publicId}/accept`, undefined, { headers: ada })).status, 200);
      await bobSock.next('friendRequestAccepted', (d) => d.publicId === adaMe.publicId);
      // Presence fan-out: this release → the previous one, and the previous one → this one.
      assert.equal((await onNew.post('/v1/presence', { state: 'busy' }, { headers: ada })).status, 200);
      await bobSock.next('friendPresenceChanged', (d) => d.publicId === adaMe.publicId && d.state === 'busy');
      assert.equal((await post('/v1/presence', { state: 'away' }, bob)).status, 200);
      await adaSock.next('friendPresenceChanged', (d) => d.publicId === bobMe.publicId && d.state === 'away');
      // The presence record each wrote is read by the other (GET /v1/friends through the other node).
      const bobsFriends = (await (await fetch(`${previous.url}/v1/friends`, { headers: bob })).json()) as { publicId: string; presenceState: string }[];
      assert.equal(bobsFriends.find((f) => f.publicId === adaMe.publicId)?.presenceState, 'busy');
      const adasFriends = (await onNew.get('/v1/friends', { headers: ada })).body as { publicId: string; presenceState: string }[];
      assert.equal(adasFriends.find((f) => f.publicId === bobMe.publicId)?.presenceState, 'away');
      // Profile fan-out (groups) both ways.
      assert.equal((await onNew.post('/v1/me/name', { displayName: 'Ada New' }, { headers: ada })).status, 200);
      await bobSock.next('friendProfileChanged', (d) => d.displayName === 'Ada New');
      assert.equal((await post('/v1/me/name', { displayName: 'Bob Old' }, bob)).status, 200);
      await adaSock.next('friendProfileChanged', (d) => d.displayName === 'Bob Old');
      // Both formats really were on the bus: the previous release's without `v`, this release's with it.
      const presence = fanout.filter((m) => m.includes('"friendPresenceChanged"'));
      assert.ok(presence.some((m) => !m.includes('"v":')) && presence.some((m) => m.includes('"v":1')), presence.join('\n'));
    } finally {
      adaSock.close();
      bobSock.close();
    }
  });
});
