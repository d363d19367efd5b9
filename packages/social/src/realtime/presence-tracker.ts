/**
 * Who is connected, across every node, in the state store:
 *
 * - `rt:sockets:<user>`: the user's socket ids (all nodes), each expiring after
 *   the presence TTL unless a heartbeat (or presenceUpdate) refreshes it;
 * - `rt:alive`: users with a refreshed registration, same expiry;
 * - `rt:tracked`: users announced online by this layer (long expiry), so the
 *   offline announcement happens once: whoever removes the user from this set
 *   (under the per-user lock `rt:user-lock:<user>`) sends friendPresenceChanged
 *   offline.
 *
 * Offline happens when the last socket of the user closes (any node) and no
 * socket of the user registers again within the presence grace
 * (Social:Presence:GraceMilliseconds: the closing node keeps the user in
 * `rt:alive` that long and settles them when it ends; a reconnect on any node
 * within it registers again, and friends hear nothing), or when the
 * registration or the presence entry lapses without a heartbeat. A sweeper
 * runs on every node; each round, the node that wins `rt:sweep-lock` compares
 * `rt:tracked` with `rt:alive` and settles the difference. No keyspace
 * notifications are needed.
 */
import { randomToken, type StateStore } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { clearPresence, heartbeat, notifyPresence, readPresence, setPresence } from '../services/presence.js';
import { groupedReads } from '../services/grouped-reads.js';

const SOCKETS = (userId: string) => `rt:sockets:${userId}`;
const USER_LOCK = (userId: string) => `rt:user-lock:${userId}`;
const ALIVE = 'rt:alive';
const TRACKED = 'rt:tracked';
const SWEEP_LOCK = 'rt:sweep-lock';
/** How long a tracked user is remembered without any refresh (the sweeper settles them long before). */
const TRACKED_TTL_MS = 86_400_000;
const LOCK_MS = 5_000;
/** The closing node settles a user this long after their grace ends (the `rt:alive` entry has expired by then). */
const GRACE_SLACK_MS = 50;

type Log = { warn(obj: object, msg: string): void };

export interface PresenceTracker {
  readonly nodeId: string;
  /** A socket opened: registers it and sets presence online unless the user already has a live presence. */
  connected(user: UserRow, socketId: string, game: GameContext): Promise<void>;
  /** Heartbeat frame: refreshes the registration and the presence TTL; false when the presence had lapsed. */
  refresh(userId: string, socketId: string): Promise<boolean>;
  /** After a presenceUpdate frame: the socket counts again (a lapsed user comes back). */
  register(userId: string, socketId: string): Promise<void>;
  /** A socket closed: when it was the user's last one anywhere, friends see the user go offline. */
  disconnected(userId: string, socketId: string): Promise<void>;
  /** One sweep round (when this node wins the lock); the number of users announced offline. */
  sweep(): Promise<number>;
  start(): void;
  stop(): void;
}

/** What the tracker's parts share: the stores and this node's id (the lock owner). */
interface Node {
  ctx: Ctx;
  state: StateStore;
  nodeId: string;
  /** Users whose last socket closed on this node, within their grace: the timer that settles each. */
  graceTimers: Map<string, NodeJS.Timeout>;
  log: Log;
}

const ttlMs = (node: Node) => node.ctx.config.presenceTtlSeconds * 1000;

/** Runs `fn` holding the user's lock; retries briefly, gives up (undefined) when another node holds it. */
async function withUserLock<T>(node: Node, userId: string, fn: () => Promise<T>, attempts = 40): Promise<T | undefined> {
  for (let i = 0; i < attempts; i++) {
    if (await node.state.setIfAbsent(USER_LOCK(userId), node.nodeId, LOCK_MS)) {
      try {
        return await fn();
      } finally {
        await node.state.del(USER_LOCK(userId)).catch(() => {});
      }
    }
    if (i + 1 < attempts) await new Promise((r) => setTimeout(r, 25));
  }
  return undefined;
}

async function addRegistration(node: Node, userId: string, socketId: string): Promise<void> {
  const { state } = node;
  // Independent writes: sent together, one round trip of waiting.
  await Promise.all([state.setAdd(SOCKETS(userId), socketId, ttlMs(node)), state.setAdd(ALIVE, userId, ttlMs(node)), state.setAdd(TRACKED, userId, TRACKED_TTL_MS)]);
}

/** Announces offline once, if the user is tracked and has no live socket or no live presence. */
async function settle(node: Node, userId: string): Promise<boolean> {
  const { ctx, state } = node;
  const done = await withUserLock(
    node,
    userId,
    async () => {
      // Not tracked (announced already), or alive: a registration (heartbeat, reconnect) or a grace is running.
      const [tracked, alive] = await Promise.all([state.setHas(TRACKED, userId), state.setHas(ALIVE, userId)]);
      if (!tracked || alive) return false;
      const sockets = await state.setMembers(SOCKETS(userId));
      if (sockets.length && (await readPresence(ctx, userId))) return false;
      await state.setRemove(TRACKED, userId);
      await state.setRemove(ALIVE, userId);
      await clearPresence(ctx, userId);
      const user = await groupedReads(ctx.db).user(userId);
      if (user) await notifyPresence(ctx, user, null);
      return true;
    },
    // The sweeper retries next round anyway; a closing socket waits a little.
    8,
  );
  return done ?? false;
}

/** A socket opened: registered, and presence online unless the user already has a live presence. */
async function connected(node: Node, user: UserRow, socketId: string, game: GameContext): Promise<void> {
  const { ctx } = node;
  // Under the user's lock so a concurrent sweep cannot announce offline between registration and presence.
  const ok = await withUserLock(node, user.id, async () => {
    await addRegistration(node, user.id, socketId);
    if (await heartbeat(ctx, user.id)) return;
    const fresh = (await groupedReads(ctx.db).user(user.id)) ?? user;
    await setPresence(ctx, fresh, game, { state: 'online' });
  });
  if (ok === undefined) {
    // Lock contention for seconds: register anyway; the sweeper reconciles.
    await addRegistration(node, user.id, socketId);
    if (!(await heartbeat(ctx, user.id))) await setPresence(ctx, user, game, { state: 'online' });
  }
}

/** The presence grace in effect: at most the presence TTL, so the presence entry outlives the grace. */
const graceMs = (node: Node) => Math.min(node.ctx.config.presenceGraceMs, ttlMs(node));

function clearGrace(node: Node, userId: string): void {
  const timer = node.graceTimers.get(userId);
  if (timer) clearTimeout(timer);
  node.graceTimers.delete(userId);
}

/**
 * The user's last socket anywhere has closed. Without a grace: offline now. With one: the user stays in
 * `rt:alive` (and the presence entry is refreshed) for the grace; this node settles them when it ends,
 * which announces offline unless a socket registered meanwhile (on any node). Should this node die first,
 * the `rt:alive` entry expires and the sweeper of another node settles them.
 */
async function lastSocketClosed(node: Node, userId: string): Promise<void> {
  const { ctx, state } = node;
  const grace = graceMs(node);
  if (grace === 0) {
    await state.setRemove(ALIVE, userId);
    await settle(node, userId);
    return;
  }
  await Promise.all([state.setAdd(ALIVE, userId, grace), heartbeat(ctx, userId)]);
  clearGrace(node, userId);
  const timer = setTimeout(() => {
    node.graceTimers.delete(userId);
    settle(node, userId).catch((err) => node.log.warn({ err }, 'presence grace settle failed'));
  }, grace + GRACE_SLACK_MS);
  timer.unref();
  node.graceTimers.set(userId, timer);
}

/** One sweep round, when this node wins the lock: settles tracked users without a live registration. */
async function sweep(node: Node): Promise<number> {
  const { state } = node;
  if (!(await state.setIfAbsent(SWEEP_LOCK, node.nodeId, Math.max(50, node.ctx.config.presenceSweepMs - 10)))) return 0;
  const alive = new Set(await state.setMembers(ALIVE));
  let n = 0;
  for (const userId of await state.setMembers(TRACKED)) {
    if (!alive.has(userId) && (await settle(node, userId))) n++;
  }
  return n;
}

export function createPresenceTracker(ctx: Ctx, log: Log): PresenceTracker {
  const node: Node = { ctx, state: ctx.state, nodeId: randomToken(9), graceTimers: new Map(), log };
  const { state } = node;
  let timer: NodeJS.Timeout | undefined;
  const tracker: PresenceTracker = {
    nodeId: node.nodeId,
    connected: (user, socketId, game) => {
      clearGrace(node, user.id);
      return connected(node, user, socketId, game);
    },
    async refresh(userId, socketId) {
      const live = await heartbeat(ctx, userId);
      if (live) await addRegistration(node, userId, socketId);
      return live;
    },
    async register(userId, socketId) {
      await addRegistration(node, userId, socketId);
    },
    async disconnected(userId, socketId) {
      await state.setRemove(SOCKETS(userId), socketId);
      if ((await state.setMembers(SOCKETS(userId))).length) return;
      await lastSocketClosed(node, userId);
    },
    sweep: () => sweep(node),
    start() {
      if (timer) return;
      timer = setInterval(() => {
        tracker.sweep().catch((err) => log.warn({ err }, 'presence sweep failed'));
      }, ctx.config.presenceSweepMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      // Graces running here are left to lapse: the sweeper of another node settles those users.
      for (const userId of [...node.graceTimers.keys()]) clearGrace(node, userId);
    },
  };
  return tracker;
}
