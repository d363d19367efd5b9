/**
 * A connection to one Redis (or a primary behind Sentinel) that ended without the store closing it is connected
 * again. ioredis ends a Sentinel-mode connection for good when its failover detector (told `+switch-master`) cuts
 * short a reconnection already under way: the connector's connect() rejects, the status becomes `end` and no retry
 * follows. Seen in the failover test: a social node's subscription connection never came back, so events published
 * after the promotion never reached its sockets and no `resync` told them. The commands' connection can end the same
 * way, and a node would then answer 503 for its lifetime.
 */
import type { Redis } from 'ioredis';

/** Connects `connection` again after an `end` the store did not ask for (100 ms, growing to 1 s); returns stop(). */
export function reviveOnEnd(connection: Redis): () => void {
  let stopped = false;
  let attempts = 0;
  let timer: NodeJS.Timeout | undefined;
  const again = () => {
    if (stopped || connection.status !== 'end') return;
    timer = setTimeout(() => {
      if (stopped || connection.status !== 'end') return;
      // A refused attempt ends the connection again, which schedules the next one.
      connection.connect().catch(() => {});
    }, Math.min(++attempts * 100, 1000));
  };
  connection.on('end', again);
  connection.on('ready', () => (attempts = 0));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
