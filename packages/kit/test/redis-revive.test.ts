// A Redis connection that ioredis ends on its own (its connector's connect() rejected mid-reconnection, as its
// Sentinel failover detector makes it do) is connected again, its subscriptions with it (state/redis-revive.ts).
// The end is brought about the way the failover detector brings it: the connector is disconnected while a
// reconnection is under way. Runs on the shared Redis (REDIS_URL); skipped without it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { reviveOnEnd } from '../src/state/redis-revive.js';

const url = process.env.REDIS_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A subscribed connection, and a way to make ioredis end it while it reconnects (no retry follows). */
async function subscribed(channel: string, received: string[]) {
  const conn = new Redis(url!, { lazyConnect: true, retryStrategy: (n) => Math.min(n * 50, 500), maxRetriesPerRequest: null });
  conn.on('error', () => {});
  conn.on('message', (_c, m) => received.push(m));
  await conn.connect();
  await conn.subscribe(channel);
  const endWhileReconnecting = async () => {
    const ended = new Promise<void>((resolve) => conn.once('end', () => resolve()));
    // The connector is told to disconnect as its next connection starts: its connect() rejects, as after +switch-master.
    conn.once('connecting', () => (conn as unknown as { connector: { disconnect(): void } }).connector.disconnect());
    conn.stream.destroy();
    await ended;
  };
  return { conn, endWhileReconnecting };
}

async function deliveredWithin(publisher: Redis, channel: string, received: string[], ms: number): Promise<boolean> {
  const body = randomUUID();
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) {
    await publisher.publish(channel, body);
    if (received.includes(body)) return true;
  }
  return false;
}

describe('a Redis connection ended by ioredis itself', { skip: url ? false : 'REDIS_URL is not set' }, () => {
  const closers: (() => void)[] = [];
  after(() => closers.forEach((c) => c()));
  const publisher = () => {
    const p = new Redis(url!);
    closers.push(() => p.disconnect());
    return p;
  };

  it('stays ended without reviveOnEnd: the fault the revival mends', async () => {
    const channel = `revive-${randomUUID()}`;
    const received: string[] = [];
    const { conn, endWhileReconnecting } = await subscribed(channel, received);
    closers.push(() => conn.disconnect());
    await endWhileReconnecting();
    assert.equal(await deliveredWithin(publisher(), channel, received, 1500), false, 'ioredis did not reconnect by itself');
    assert.equal(conn.status, 'end');
  });

  it('is connected again with its subscriptions, and stops being revived once stopped', async () => {
    const channel = `revive-${randomUUID()}`;
    const received: string[] = [];
    const { conn, endWhileReconnecting } = await subscribed(channel, received);
    const stop = reviveOnEnd(conn);
    closers.push(() => (stop(), conn.disconnect()));
    const pub = publisher();
    await endWhileReconnecting();
    assert.equal(await deliveredWithin(pub, channel, received, 10_000), true, 'the subscription is back');
    assert.equal(conn.status, 'ready');
    // Twice: the revival does not spend itself.
    await endWhileReconnecting();
    assert.equal(await deliveredWithin(pub, channel, received, 10_000), true, 'back again after a second end');
    stop();
    await endWhileReconnecting();
    await sleep(1500);
    assert.equal(conn.status, 'end', 'a stopped revival leaves the connection ended (the store is closing)');
  });
});
