/** Free TCP ports on the loopback interface (never fixed ports: tests run in parallel). */
import net from 'node:net';

export { freePort } from '@platform/kit/testing';

/** Resolves when something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort(port: number, timeoutMs: number, host = '127.0.0.1'): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ port, host });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value; throws the last error (or a timeout) after timeoutMs. */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs: number, what = 'condition', intervalMs = 100): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) {
      throw new Error(`${what} not reached within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    }
    await sleep(intervalMs);
  }
}
