/**
 * Baseline of the refresh figure: the service's refresh transaction (conditional
 * UPDATE of the presented token, INSERT of the next one, INSERT of the audit
 * row) run directly through `pg`, same pool size and concurrency, each worker
 * chaining its own tokens. Argument: { url, schema, poolSize, connections, durationSec, tokens }.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';

const a = JSON.parse(process.argv[2]) as { url: string; schema: string; poolSize: number; connections: number; durationSec: number; tokens: string[] };
const pool = new pg.Pool({ connectionString: a.url, max: a.poolSize, options: `-c search_path=${a.schema}` });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function rotate(token: string): Promise<string> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const r = await c.query(
      `UPDATE refresh_tokens rt SET used = true
       FROM sessions s, accounts a
       WHERE rt.token_hash = $1 AND rt.used = false AND rt.expires_at > now()
         AND s.id = rt.session_id AND s.revoked_at IS NULL AND s.expires_at > now()
         AND a.id = s.account_id AND a.status = 'active'
       RETURNING rt.id, rt.session_id, s.account_id, s.expires_at AS session_expires_at, s.auth_method, a.roles, a.home_region`,
      [sha(token)],
    );
    if (!r.rowCount) throw new Error('token not accepted');
    const row = r.rows[0];
    const next = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Math.min(Date.now() + 30 * 86_400_000, new Date(row.session_expires_at).getTime()));
    await c.query(`INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      randomUUID(),
      row.session_id,
      sha(next),
      row.id,
      expiresAt,
    ]);
    await c.query('INSERT INTO audit_log (account_id, event, ip, node_id, detail) VALUES ($1, $2, $3, $4, $5)', [
      row.account_id,
      'refresh',
      '127.0.0.1',
      'bench',
      JSON.stringify({ session_id: row.session_id }),
    ]);
    await c.query('COMMIT');
    return next;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
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
