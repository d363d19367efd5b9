/**
 * Baseline of the refresh figure: the service's refresh SQL (REFRESH_ROTATE_SQL:
 * conditional UPDATE of the presented token, INSERT of its successor and of the
 * audit row, one statement) run directly through `pg`, same pool size and
 * concurrency, prepared once per connection as the kit does, each worker
 * chaining its own tokens. Argument: { url, schema, poolSize, connections, durationSec, tokens }.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { REFRESH_ROTATE_SQL } from '../../packages/auth/src/queries/tokens.js';

const a = JSON.parse(process.argv[2]) as { url: string; schema: string; poolSize: number; connections: number; durationSec: number; tokens: string[] };
const pool = new pg.Pool({ connectionString: a.url, max: a.poolSize, options: `-c search_path=${a.schema}` });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function rotate(token: string): Promise<string> {
  const next = randomBytes(32).toString('base64url');
  const r = await pool.query({ name: 'refresh_rotate', text: REFRESH_ROTATE_SQL, values: [sha(token), randomUUID(), sha(next), 30 * 86_400_000, '127.0.0.1', 'bench'] });
  if (!r.rowCount) throw new Error('token not accepted');
  return next;
}

const end = Date.now() + a.durationSec * 1000;
let done = 0;
const latencies: number[] = [];
await Promise.all(
  a.tokens.slice(0, a.connections).map(async (t) => {
    let token = t;
    while (Date.now() < end) {
      const t0 = performance.now();
      token = await rotate(token);
      latencies.push(performance.now() - t0);
      done++;
    }
  }),
);
await pool.end();
latencies.sort((x, y) => x - y);
console.log(JSON.stringify({ rps: done / a.durationSec, requests: done, p50: latencies[Math.floor(latencies.length * 0.5)], p99: latencies[Math.floor(latencies.length * 0.99)] }));
