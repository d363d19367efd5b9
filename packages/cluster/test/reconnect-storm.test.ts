/**
 * A reconnect storm (issue 29 item 2; docs/social-realtime.md, "Reconnect storms"): 300 SDK clients on one social
 * node process; the node restarts; every client comes back to it at once with the SDK's backoff and jitter. The node
 * sheds what it cannot authenticate now (a bound of 16 set here: 503 server_busy, Retry-After) and the SDK retries.
 * Every client is set up again with `caughtUp` or `resync`, none is refused but by the documented codes, and the
 * events published to them while the node was down arrive through the replay. The 5,000-socket figure is a bench
 * (`npm run bench -- storm`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { scrapeMetrics } from '@platform/kit/testing';
import {
  eventually,
  onSuiteStores,
  runReconnectStorm,
  skipWithoutSharedStores,
  startSocialCluster,
  type SocialCluster,
  type Storm,
} from '../src/index.js';

const skip = skipWithoutSharedStores();
const CLIENTS = 300;

/** Close codes a reconnecting client may see: the drain (1001), the node gone (1006), refusals a retry mends (4503). */
const EXPECTED_CLOSES = /^(1001:\w+|1006:\w+|4503:(server_busy|shutting_down))$/;

describe('reconnect storm: a social node restarts under 300 SDK clients', { skip }, () => {
  let cluster: SocialCluster;
  onSuiteStores('cl_storm', 8, {
    async start(suite) {
      cluster = await startSocialCluster({
        nodes: 2,
        ...suite,
        metrics: true,
        env: { SOCIAL_REALTIME_MAX_PENDING_UPGRADES: '16', SOCIAL_REALTIME_MAX_SOCKETS_PER_ADDRESS: '5000' },
      });
    },
    async stop() {
      await cluster?.close();
    },
  });

  it('every client resumes (caughtUp), only documented refusals, events missed while the node was down replayed once', async () => {
    const ids = Array.from({ length: CLIENTS }, () => randomUUID());
    const other = cluster.client(1);
    const publicIds: string[] = [];
    for (const id of ids) publicIds.push((await other.get('/v1/me', { headers: cluster.headers(id) })).body.publicId);
    const url = `ws://127.0.0.1:${cluster.nodes[0]!.port}/v1/ws`;
    let storm: Storm | undefined;
    try {
      storm = await runReconnectStorm({ url, apiKey: cluster.apiKey, userIds: ids, reconnect: { initialDelayMs: 250, maxDelayMs: 3000 } });
      const s = storm;
      await eventually(async () => s.records.every((r) => r.setups.length >= 1) || undefined, 30_000, 'every client set up once');

      // The node restarts (SIGTERM: every socket closed 1001). While it is down, 20 clients get a friend request
      // through the other node: their resume replays it.
      await cluster.nodes[0]!.stop();
      const closesBefore = s.records.map((r) => r.closes.length);
      const asker = randomUUID();
      await other.get('/v1/me', { headers: cluster.headers(asker) });
      for (const pid of publicIds.slice(0, 20)) {
        const r = await other.post('/v1/friends/requests', { toPublicId: pid }, { headers: cluster.headers(asker) });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
      const restartedAt = Date.now();
      await cluster.nodes[0]!.start();
      const tookMs = await s.allSetUpAfter(restartedAt, 90_000);

      const closes = s.records.flatMap((r) => r.closes);
      const unexpected = closes.filter((c) => !EXPECTED_CLOSES.test(c));
      assert.deepEqual(unexpected, [], 'only the drain, the node being gone, and retryable refusals');
      // Each connection after the restart resumed and caught up (nothing it missed is older than the log keeps), and
      // the requests sent while the node was down arrived once, through the replay.
      for (const r of s.records) assert.equal(r.setups.at(-1), 'caughtUp:true', `${r.userId}: ${r.setups.join(' ')}`);
      for (const r of s.records.slice(0, 20)) assert.equal((r.events.get('friendRequestReceived') ?? []).length, 1, `${r.userId}: the request sent while the node was down`);
      // The shed upgrades of the restarted node are counted; the sockets are all back.
      const m = await scrapeMetrics(cluster.metricsUrls[0]!);
      assert.equal(m.value('social_ws_open_sockets'), CLIENTS);
      const shed = m.value('social_ws_upgrades_shed_total') ?? 0;
      const busySinceRestart = s.records.reduce((n, r, i) => n + r.closes.slice(closesBefore[i]).filter((c) => c === '4503:server_busy').length, 0);
      assert.equal(shed, busySinceRestart, 'every shed upgrade is one refusal a client saw, and counted once');
      console.log(`reconnect storm: ${CLIENTS} clients set up again ${tookMs} ms after the restart began; ${shed} upgrades shed by the restarted node`);
    } finally {
      storm?.closeAll();
    }
  });
});
