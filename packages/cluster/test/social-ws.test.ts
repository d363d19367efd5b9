/**
 * The social WebSocket across node processes: an event caused through one
 * node reaches a socket held by the other (Redis pub/sub), directly and
 * through HAProxy's TLS frontend (wss → ws upgrade through the balancer).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectSocket } from './support.js';
import { loadOrCreateTls } from '@platform/kit';
import {
  eventually,
  haproxyAvailable,
  skipWithoutSharedStores,
  startHaproxy,
  startSocialCluster,
  ClusterClient,
  type Haproxy,
  type SocialCluster,
  onSuiteStores,
  redisKinds,
} from '../src/index.js';

const skip = skipWithoutSharedStores() || ((await haproxyAvailable()) ? false : 'haproxy is not installed');

const connect = connectSocket;

for (const kind of redisKinds()) describe(`social WebSocket across node processes (${kind})`, { skip }, () => {
  let cluster: SocialCluster;
  let lb: Haproxy;
  let ca: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'social-ws-'));

  onSuiteStores('cl_social_ws', 15, {
    async start(suite) {
      cluster = await startSocialCluster({ nodes: 2, ...suite });
      const tls = await loadOrCreateTls({ dir });
      ca = tls.cert;
      lb = await startHaproxy({
        backends: cluster.nodes.map((n) => ({ name: n.name, host: '127.0.0.1', port: n.port })),
        backendTls: false,
        tls: { cert: tls.cert, key: readFileSync(path.join(dir, 'tls-key.pem'), 'utf8') },
        checkIntervalMs: 500,
      });
      await eventually(async () => Object.values(await lb.states()).every((s) => s === 'UP'), 10_000, 'social nodes UP');
    },
    async stop() {
      await lb?.stop();
      await cluster?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  }, kind);

  it('delivers to a socket on node 1 the friend request made through node 2', async () => {
    const alice = cluster.headers(randomUUID(), 'alicews');
    const bob = cluster.headers(randomUUID(), 'bobws');
    const [n1, n2] = [cluster.client(0), cluster.client(1)];
    const aliceMe = (await n1.get('/v1/me', { headers: alice })).body;
    const bobMe = (await n2.get('/v1/me', { headers: bob })).body;
    const socket = await connect(`ws://127.0.0.1:${cluster.nodes[0].port}/v1/ws`, alice);
    try {
      const r = await n2.post('/v1/friends/requests', { toPublicId: aliceMe.publicId }, { headers: bob });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const f = await socket.next('friendRequestReceived');
      assert.equal(JSON.stringify(f.data).includes(bobMe.publicId), true, JSON.stringify(f.data));
    } finally {
      socket.close();
    }
  });

  it('works through HAProxy: wss upgrade at the balancer, the event from whichever node handles the REST call', async () => {
    const carol = cluster.headers(randomUUID(), 'carolws');
    const dave = cluster.headers(randomUUID(), 'davews');
    const viaLb = new ClusterClient({ baseUrl: lb.url, ca });
    try {
      const carolMe = (await viaLb.get('/v1/me', { headers: carol })).body;
      const daveMe = (await viaLb.get('/v1/me', { headers: dave })).body;
      const socket = await connect(`${lb.url.replace('https:', 'wss:')}/v1/ws`, carol, ca);
      try {
        assert.equal((await viaLb.post('/v1/friends/requests', { toPublicId: daveMe.publicId }, { headers: carol })).status, 201);
        // Several REST calls alternate over both nodes (round robin); each event reaches the one socket.
        const accept = await viaLb.post(`/v1/friends/requests/${carolMe.publicId}/accept`, undefined, { headers: dave });
        assert.equal(accept.status, 200, JSON.stringify(accept.body));
        await socket.next('friendRequestAccepted');
        for (const state of ['busy', 'away', 'dnd'] as const) {
          assert.equal((await viaLb.post('/v1/presence', { state }, { headers: dave })).status, 200);
          await socket.next('friendPresenceChanged', (d) => d.state === state);
        }
      } finally {
        socket.close();
      }
    } finally {
      viaLb.close();
    }
  });
});
