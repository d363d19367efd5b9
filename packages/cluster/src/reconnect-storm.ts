/**
 * Many SDK realtime clients (@platform/client's RealtimeClient: its backoff, jitter and resume) on social nodes
 * in server-to-server API-key mode: what a reconnect storm is made of (a node restarts and every socket it held
 * comes back at once). Used by the cluster test (packages/cluster/test/reconnect-storm.test.ts) and the bench
 * (`npm run bench -- storm`). Each client records what it went through: closes by code and error code, refusals,
 * and how each connection ended its setup (`caughtUp` or `resync`).
 */
import { WebSocket } from 'ws';
import { RealtimeClient, type ReconnectOptions } from '@platform/client';

export interface StormClientRecord {
  userId: string;
  client: RealtimeClient;
  /** `code:errorCode` of every close the client saw (refusals included: 4503:server_busy …). */
  closes: string[];
  /** `caughtUp:resumed` / `resync:reason`, in order: one per connection that was set up. */
  setups: string[];
  /** Frames of other types received, by type. */
  events: Map<string, unknown[]>;
  /** When the last setup (caughtUp or resync) arrived (ms since the epoch). */
  lastSetupAt: number;
}

export interface StormOptions {
  /** ws://host:port/v1/ws of the node (or the balancer). */
  url: string;
  apiKey: string;
  userIds: string[];
  reconnect?: ReconnectOptions;
  /** Clients started at once while opening (the rest wait for a free slot). Default 50. */
  openConcurrency?: number;
  /** TLS trust for wss:// (a balancer's certificate). */
  ca?: string;
}

export interface Storm {
  records: StormClientRecord[];
  /** Resolves once every client has a setup (caughtUp/resync) after `since` (ms since the epoch), or rejects at the timeout. */
  allSetUpAfter(since: number, timeoutMs: number): Promise<number>;
  closeAll(): void;
}

/** A WebSocket constructor for the SDK that opens with the API-key headers of one user (the SDK's token protocol is ignored). */
function apiKeySocket(headers: Record<string, string>, ca: string | undefined) {
  return class extends WebSocket {
    constructor(url: string) {
      super(url, { headers, ...(ca ? { ca } : {}) });
    }
  };
}

export async function runReconnectStorm(o: StormOptions): Promise<Storm> {
  const records: StormClientRecord[] = [];
  const setupTimes = new Map<StormClientRecord, number[]>();
  for (const userId of o.userIds) {
    const client = new RealtimeClient({
      socialUrl: o.url.replace(/^ws/, 'http').replace(/\/v1\/ws$/, ''),
      // API-key mode: the node authenticates the X-Api-Key + X-User-Id headers; the token is never read.
      token: async () => 'api-key-mode',
      WebSocket: apiKeySocket({ 'x-api-key': o.apiKey, 'x-user-id': userId }, o.ca),
      reconnect: o.reconnect ?? { initialDelayMs: 250, maxDelayMs: 4000 },
    });
    const rec: StormClientRecord = { userId, client, closes: [], setups: [], events: new Map(), lastSetupAt: 0 };
    setupTimes.set(rec, []);
    client.on('close', (c) => rec.closes.push(`${c.code}:${c.errorCode ?? c.reason}`));
    client.onFrame((type, data) => {
      if (type === 'caughtUp' || type === 'resync') {
        const d = data as { resumed?: boolean; reason?: string };
        rec.setups.push(type === 'caughtUp' ? `caughtUp:${d.resumed}` : `resync:${d.reason}`);
        rec.lastSetupAt = Date.now();
        setupTimes.get(rec)!.push(rec.lastSetupAt);
      } else if (type !== 'heartbeatAck') {
        const list = rec.events.get(type) ?? [];
        list.push(data);
        rec.events.set(type, list);
      }
    });
    records.push(rec);
  }
  // Opened a slice at a time: the storm is the reconnect, not the first connect.
  const concurrency = o.openConcurrency ?? 50;
  for (let i = 0; i < records.length; i += concurrency) {
    await Promise.all(records.slice(i, i + concurrency).map((r) => r.client.connect()));
  }
  return {
    records,
    async allSetUpAfter(since, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const missing = records.filter((r) => !setupTimes.get(r)!.some((t) => t >= since));
        if (!missing.length) return Math.max(...records.map((r) => setupTimes.get(r)!.find((t) => t >= since)!)) - since;
        if (Date.now() > deadline) {
          throw new Error(`${missing.length} of ${records.length} clients not set up again; e.g. ${missing[0]!.userId}: closes ${missing[0]!.closes.join(' ')}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    closeAll() {
      for (const r of records) r.client.close();
    },
  };
}
