/**
 * Delivery of the transactional outbox. Notices (account.deleted,
 * key_rotation) are written in the same transaction as the change they
 * announce; this worker, running on every node, fans each one out to the
 * configured targets (one outbox_deliveries row per target), claims due rows
 * (skipping those another node holds) under a lease (a node that dies
 * mid-delivery lets another retry after the lease), POSTs the notice (adapters/outbox-delivery.ts) and records the
 * acknowledgement (2xx) or schedules a retry with exponential backoff. A row
 * stays until its target acknowledges, so a crash between the write and the
 * delivery loses nothing; targets must be idempotent (the notice id is sent).
 */
import { randomUUID } from 'node:crypto';
import { AUTH_SERVICE_NAME, serviceSubject, signAccessToken, type Database } from '@platform/kit';
import { httpNoticeDelivery, type NoticeDelivery } from '../adapters/outbox-delivery.js';
import type { AuthConfig } from '../config.js';
import {
  claimDueDeliveries,
  closeDeliveredNotices,
  deleteDeliveredNotices,
  fanOutNotices,
  markDelivered,
  scheduleRetry,
  type ClaimedDelivery,
} from '../queries/outbox.js';
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
  /**
   * Runs a pass that starts after this call (so it carries the caller's committed notice) and waits for it,
   * at most `timeoutMs`: a revocation is acknowledged by the targets before its request answers, when they
   * answer in time. Never throws; a notice not acknowledged stays pending and is retried as usual.
   */
  deliverNow(timeoutMs: number): Promise<void>;
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
export async function serviceToken(config: AuthConfig, keys: KeyCache, service = AUTH_SERVICE_NAME, ttlSeconds = SERVICE_TOKEN_TTL_SECONDS, game?: string): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return signAccessToken(config.tokenFormat, keys.signingKey(), config.issuer, config.audience, {
    sub: serviceSubject(service),
    sid: randomUUID(),
    platform: 'server',
    roles: ['server'],
    region: config.defaultRegion,
    jti: randomUUID(),
    iat,
    exp: iat + ttlSeconds,
    ...(game ? { game } : {}),
  });
}

interface OutboxDeps {
  config: AuthConfig;
  db: Database;
  delivery: NoticeDelivery;
  log: OutboxLogger;
  /** Told the outcome of each delivery attempt (metrics). */
  onAttempt?: (delivered: boolean) => void;
}

/** Delivers one claimed row (adapters/outbox-delivery.ts); records the acknowledgement (2xx) or schedules the retry. */
async function deliver({ config, db, delivery, log }: OutboxDeps, row: ClaimedDelivery): Promise<boolean> {
  let error: string;
  try {
    const refused = await delivery.post(row.target, row.outbox_id, row.payload);
    if (refused === undefined) {
      await markDelivered(db, row.outbox_id, row.target);
      return true;
    }
    error = refused;
  } catch (err) {
    error = (err as Error).message.slice(0, 300);
  }
  const delay = backoffSeconds(row.attempts, config.outboxMaxBackoffSeconds);
  await scheduleRetry(db, row.outbox_id, row.target, delay, error);
  log.warn({ notice: row.outbox_id, target: row.target, attempts: row.attempts, retryInSeconds: delay, error }, 'outbox delivery failed; will retry');
  return false;
}

/** One pass: fan out, deliver due rows batch by batch until none is due (or one fails), close finished notices. */
async function pass(deps: OutboxDeps, stopped: () => boolean): Promise<number> {
  const { db } = deps;
  const targets = deps.config.outboxTargets;
  if (!targets.length) return 0;
  await fanOutNotices(db, targets);
  let acknowledged = 0;
  for (;;) {
    const claimed = await db.transaction((tx) => claimDueDeliveries(tx, targets, BATCH, LEASE_SECONDS));
    if (!claimed.length) break;
    const results = await Promise.all(claimed.map((row) => deliver(deps, row)));
    for (const ok of results) deps.onAttempt?.(ok);
    acknowledged += results.filter(Boolean).length;
    if (results.some((ok) => !ok) || stopped()) break;
  }
  await closeDeliveredNotices(db, targets);
  return acknowledged;
}

export function createOutboxWorker(config: AuthConfig, db: Database, keys: KeyCache, log: OutboxLogger, onAttempt?: (delivered: boolean) => void): OutboxWorker {
  const delivery = httpNoticeDelivery({ ca: config.outboxCa, token: () => serviceToken(config, keys) });
  const deps: OutboxDeps = { config, db, delivery, log, onAttempt };
  const targets = config.outboxTargets;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  const worker: OutboxWorker = {
    async runOnce() {
      if (running) {
        again = true;
        return running;
      }
      running = pass(deps, () => stopped).finally(() => {
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
    async deliverNow(timeoutMs) {
      if (stopped || !targets.length) return;
      if (timeoutMs <= 0) return worker.kick();
      const pass = (async () => {
        await running?.catch(() => {});
        await worker.runOnce();
      })().catch((err) => log.warn({ err: (err as Error).message }, 'outbox pass failed'));
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([pass, new Promise<void>((r) => (wait = setTimeout(r, timeoutMs)))]);
      clearTimeout(wait);
    },
    start() {
      if (!targets.length || timer) return;
      timer = setInterval(() => worker.kick(), config.outboxPollMs);
      timer.unref();
      worker.kick();
    },
    async purgeDelivered(days = 7) {
      return deleteDeliveredNotices(db, days);
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running?.catch(() => {});
    },
  };
  return worker;
}
