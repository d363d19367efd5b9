/**
 * Delivery of the transactional outbox. Notices (account.deleted,
 * key_rotation) are written in the same transaction as the change they
 * announce; this worker, running on every node, fans each one out to the
 * configured targets (one outbox_deliveries row per target), claims due rows
 * with FOR UPDATE SKIP LOCKED under a lease (a node that dies mid-delivery
 * lets another retry after the lease), POSTs the notice and records the
 * acknowledgement (2xx) or schedules a retry with exponential backoff. A row
 * stays until its target acknowledges, so a crash between the write and the
 * delivery loses nothing; targets must be idempotent (the notice id is sent).
 */
import { randomUUID } from 'node:crypto';
import { requestJson, signAccessToken, type Database } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import type { KeyCache } from './keys.js';

/** How long a claimed delivery is reserved for the node that claimed it. */
const LEASE_SECONDS = 30;
const BATCH = 20;
const SERVICE_TOKEN_TTL_SECONDS = 60;

export interface OutboxLogger {
  warn(obj: object, msg: string): void;
  debug?(obj: object, msg: string): void;
}

export interface OutboxWorker {
  /** One pass: fan out, deliver what is due, close fully delivered notices. Returns deliveries acknowledged. */
  runOnce(): Promise<number>;
  /** Runs a pass soon (after a write that produced a notice). */
  kick(): void;
  start(): void;
  stop(): Promise<void>;
  /** Deletes notices every target acknowledged more than `days` ago (their delivery rows cascade). */
  purgeDelivered(days?: number): Promise<number>;
}

/** Exponential backoff: 1 s, 2 s, 4 s … capped; attempts counts the failed tries so far. */
export function backoffSeconds(attempts: number, maxSeconds: number): number {
  return Math.min(maxSeconds, 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}

/**
 * A short-lived access token with the `server` role, signed with the
 * current signing key: the callee verifies it offline against the key set
 * like any other token and requires the role.
 */
export async function serviceToken(config: AuthConfig, keys: KeyCache, service = 'auth', ttlSeconds = SERVICE_TOKEN_TTL_SECONDS): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return signAccessToken(config.tokenFormat, keys.signingKey(), config.issuer, config.audience, {
    sub: `service:${service}`,
    sid: randomUUID(),
    platform: 'server',
    roles: ['server'],
    region: config.defaultRegion,
    jti: randomUUID(),
    iat,
    exp: iat + ttlSeconds,
  });
}

export function createOutboxWorker(config: AuthConfig, db: Database, keys: KeyCache, log: OutboxLogger): OutboxWorker {
  const targets = config.outboxTargets;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  async function deliver(row: { outbox_id: string; target: string; attempts: number; payload: Record<string, unknown> }): Promise<boolean> {
    let error: string;
    try {
      const res = await requestJson('POST', row.target, {
        body: { id: row.outbox_id, ...row.payload },
        headers: { authorization: `Bearer ${await serviceToken(config, keys)}`, 'idempotency-key': row.outbox_id },
        ca: config.outboxCa,
        timeoutMs: 10_000,
      });
      if (res.status >= 200 && res.status < 300) {
        await db.query(`UPDATE outbox_deliveries SET delivered_at = now(), last_error = NULL WHERE outbox_id = $1 AND target = $2`, [
          row.outbox_id,
          row.target,
        ]);
        return true;
      }
      error = `HTTP ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
    } catch (err) {
      error = (err as Error).message.slice(0, 300);
    }
    const delay = backoffSeconds(row.attempts, config.outboxMaxBackoffSeconds);
    await db.query(
      `UPDATE outbox_deliveries SET next_attempt_at = now() + make_interval(secs => $3::int), last_error = $4 WHERE outbox_id = $1 AND target = $2`,
      [row.outbox_id, row.target, delay, error],
    );
    log.warn({ notice: row.outbox_id, target: row.target, attempts: row.attempts, retryInSeconds: delay, error }, 'outbox delivery failed; will retry');
    return false;
  }

  async function pass(): Promise<number> {
    if (!targets.length) return 0;
    // Fan out: every pending notice gets a delivery row per configured target (a target added later catches up).
    await db.query(
      `INSERT INTO outbox_deliveries (outbox_id, target)
       SELECT o.id, t.target FROM outbox o CROSS JOIN unnest($1::text[]) AS t(target)
       WHERE o.delivered_at IS NULL
       ON CONFLICT DO NOTHING`,
      [targets],
    );
    let acknowledged = 0;
    for (;;) {
      const claimed = await db.transaction(async (tx) =>
        (
          await tx.query<{ outbox_id: string; target: string; attempts: number; payload: Record<string, unknown> }>(
            `UPDATE outbox_deliveries d
                SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $3::int)
               FROM (SELECT outbox_id, target FROM outbox_deliveries
                      WHERE delivered_at IS NULL AND next_attempt_at <= now() AND target = ANY($1::text[])
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) due, outbox o
              WHERE d.outbox_id = due.outbox_id AND d.target = due.target AND o.id = d.outbox_id
          RETURNING d.outbox_id, d.target, d.attempts, o.payload`,
            [targets, BATCH, LEASE_SECONDS],
          )
        ).rows,
      );
      if (!claimed.length) break;
      const results = await Promise.all(claimed.map((row) => deliver(row)));
      acknowledged += results.filter(Boolean).length;
      if (results.some((ok) => !ok) || stopped) break;
    }
    // A notice is done once every configured target acknowledged it.
    await db.query(
      `UPDATE outbox o SET delivered_at = now(), attempts = (SELECT COALESCE(max(attempts), 0) FROM outbox_deliveries d WHERE d.outbox_id = o.id)
        WHERE o.delivered_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM unnest($1::text[]) AS t(target)
                           WHERE NOT EXISTS (SELECT 1 FROM outbox_deliveries d
                                              WHERE d.outbox_id = o.id AND d.target = t.target AND d.delivered_at IS NOT NULL))`,
      [targets],
    );
    return acknowledged;
  }

  const worker: OutboxWorker = {
    async runOnce() {
      if (running) {
        again = true;
        return running;
      }
      running = pass().finally(() => {
        running = undefined;
      });
      const n = await running;
      if (again && !stopped) {
        again = false;
        return n + (await worker.runOnce());
      }
      return n;
    },
    kick() {
      if (stopped || !targets.length) return;
      setImmediate(() => void worker.runOnce().catch((err) => log.warn({ err: (err as Error).message }, 'outbox pass failed')));
    },
    start() {
      if (!targets.length || timer) return;
      timer = setInterval(() => worker.kick(), config.outboxPollMs);
      timer.unref();
      worker.kick();
    },
    async purgeDelivered(days = 7) {
      const r = await db.query(`DELETE FROM outbox WHERE delivered_at < now() - make_interval(days => $1::int)`, [days]);
      return r.rowCount ?? 0;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running?.catch(() => {});
    },
  };
  return worker;
}
