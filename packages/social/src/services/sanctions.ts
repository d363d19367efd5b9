/**
 * Chat sanctions (docs/social.md, "Sanctions"). The auth service owns sanctions and announces each one set,
 * lifted or expired as a `sanction` notice: on the bus `auth:sanction` when social shares its state store, and
 * through its outbox (POST /v1/internal/auth-events) otherwise — the way revocations travel (revocations.ts).
 * Social acts on `chat` sanctions only: while one is active, the account's chat is refused (403
 * `chat_restricted` over HTTP, an error frame `chat_restricted` on the socket). Each node keeps what it heard in
 * memory; the record is also kept in the state store (each entry expiring with its sanction) so a node starting
 * later loads it, and a node that received a notice by webhook tells the others on `social:sanctions`. A sanction
 * past its `expires_at` is inactive by this node's clock, whether or not the `expired` notice has come.
 */
import { defineWire, type StateStore, type Unsubscribe } from '@platform/kit';
import { socialError } from './errors.js';
import { relayedWire, type Relayed as RelayedOf } from './relayed-notice.js';

/** The auth service's channel (its payload is the outbox notice, snake_case). */
export const AUTH_SANCTION_CHANNEL = 'auth:sanction';
/** Social's own channel: a notice one node received by webhook, for the others. */
export const SANCTIONS_CHANNEL = 'social:sanctions';
/** State store: active chat sanctions, `<account id> <sanction id> <expires epoch ms, 0: permanent>`. */
export const CHAT_SANCTIONS = 'social:sanctions:chat';
/** State store: sanction ids lifted or expired (a late redelivery of `applied` does not bring one back). */
export const ENDED_SANCTIONS = 'social:sanctions:ended';

/** How long a permanent sanction's entry lives in the store (refreshed by nothing: ten years). */
const PERMANENT_TTL_MS = 10 * 365 * 86_400_000;
/** How long an ended sanction is remembered: longer than the outbox keeps a delivered notice (7 days). */
const ENDED_TTL_MS = 8 * 86_400_000;

export interface SanctionNotice {
  event: 'applied' | 'lifted' | 'expired';
  sanctionId: string;
  accountId: string;
  sanctionType: string;
  /** Epoch ms; null: permanent. */
  expiresAt: number | null;
}

export interface Sanctions {
  /** Throws 403 `chat_restricted` while the account has an active chat sanction (what this node heard). */
  assertChatAllowed(accountId: string): void;
  /** A notice: applied here at once, then recorded in the state store and (`broadcast`) told to the other nodes. */
  apply(n: SanctionNotice, opts: { broadcast: boolean }): Promise<void>;
  close(): Promise<void>;
}

type Log = { warn(obj: object, msg: string): void };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENTS = new Set(['applied', 'lifted', 'expired']);

/** The auth notice (bus or webhook body), or undefined when it is not one. */
export function parseSanctionNotice(n: Record<string, unknown>): SanctionNotice | undefined {
  const { event, sanction_id: sanctionId, account_id: accountId, sanction_type: sanctionType, expires_at: expiresAt } = n;
  if (typeof event !== 'string' || !EVENTS.has(event) || typeof sanctionId !== 'string' || !UUID.test(sanctionId)) return undefined;
  if (typeof accountId !== 'string' || !accountId || typeof sanctionType !== 'string' || !sanctionType) return undefined;
  const end = expiresAt === null ? null : typeof expiresAt === 'string' ? Date.parse(expiresAt) : NaN;
  if (end !== null && !Number.isFinite(end)) return undefined;
  return { event: event as SanctionNotice['event'], sanctionId: sanctionId.toLowerCase(), accountId, sanctionType, expiresAt: end };
}

/**
 * The auth service's notice on AUTH_SANCTION_CHANNEL, as read here (docs/decisions/0020-versioned-messages.md):
 * version 1, `{v?, id, type: 'sanction', event, sanction_id, account_id, sanction_type, expires_at, at}`.
 */
export const AUTH_SANCTION_WIRE = defineWire<SanctionNotice>({ name: 'auth.sanction', read: { 1: (m) => parseSanctionNotice(m) } });

type Relayed = RelayedOf<SanctionNotice>;

/** SANCTIONS_CHANNEL's message: version 1, `{v?, origin, notice}` (notice: auth's fields). */
export const SANCTIONS_WIRE = relayedWire<SanctionNotice>('social.sanctions', parseSanctionNotice, (n) => ({
  event: n.event,
  sanction_id: n.sanctionId,
  account_id: n.accountId,
  sanction_type: n.sanctionType,
  expires_at: n.expiresAt === null ? null : new Date(n.expiresAt).toISOString(),
}));

const memberOf = (n: SanctionNotice) => `${n.accountId} ${n.sanctionId} ${n.expiresAt ?? 0}`;

/** The active chat sanctions recorded in the state store. */
async function loadFromStore(state: StateStore): Promise<SanctionNotice[]> {
  const out: SanctionNotice[] = [];
  for (const m of await state.setMembers(CHAT_SANCTIONS)) {
    const [accountId, sanctionId, end] = m.split(' ');
    const at = Number(end);
    if (accountId && sanctionId && Number.isFinite(at)) out.push({ event: 'applied', accountId, sanctionId, sanctionType: 'chat', expiresAt: at === 0 ? null : at });
  }
  return out;
}

export async function createSanctions(deps: { state: StateStore; origin: string; log: Log }): Promise<Sanctions> {
  const { state, log } = deps;
  /** account id → sanction id → end (epoch ms; Infinity: permanent). */
  const chat = new Map<string, Map<string, number>>();
  /** Sanction ids that ended → until when remembered. */
  const ended = new Map<string, number>();

  const remember = (n: SanctionNotice) => {
    if (n.event !== 'applied') {
      ended.set(n.sanctionId, Date.now() + ENDED_TTL_MS);
      const mine = chat.get(n.accountId);
      mine?.delete(n.sanctionId);
      if (mine && !mine.size) chat.delete(n.accountId);
      return;
    }
    if (ended.has(n.sanctionId)) return;
    const mine = chat.get(n.accountId) ?? new Map<string, number>();
    // A sanction's end only ever moves earlier (an appeal shortens it, and auth announces it again): of two notices
    // (or two store entries) of one sanction, the earlier end is the current one, whatever order they come in.
    mine.set(n.sanctionId, Math.min(mine.get(n.sanctionId) ?? Infinity, n.expiresAt ?? Infinity));
    chat.set(n.accountId, mine);
  };

  const record = async (n: SanctionNotice) => {
    if (n.event === 'applied') {
      const ttl = n.expiresAt === null ? PERMANENT_TTL_MS : n.expiresAt - Date.now();
      if (ttl > 0) await state.setAdd(CHAT_SANCTIONS, memberOf(n), ttl);
      return;
    }
    await Promise.all([state.setAdd(ENDED_SANCTIONS, n.sanctionId, ENDED_TTL_MS), state.setRemove(CHAT_SANCTIONS, memberOf(n))]);
  };

  const onMessage = (raw: string, fromAuth: boolean) => {
    // Versioned (docs/decisions/0020-versioned-messages.md): this release's and the previous one's, unknown members ignored.
    const read = fromAuth ? AUTH_SANCTION_WIRE.decode(raw) : SANCTIONS_WIRE.decode(raw);
    if (!read.ok) return log.warn({ channel: fromAuth ? AUTH_SANCTION_CHANNEL : SANCTIONS_CHANNEL, err: read.error, reason: read.reason }, 'unreadable sanction notice dropped');
    if (!fromAuth && (read.value as Relayed).origin === deps.origin) return;
    const n = fromAuth ? (read.value as SanctionNotice) : (read.value as Relayed).notice;
    if (n.sanctionType !== 'chat') return;
    remember(n);
    // Every node records what it hears from auth (no node is sure another did).
    if (fromAuth) record(n).catch((err) => log.warn({ err }, 'sanction not recorded in the state store'));
  };

  const stops: Unsubscribe[] = [];
  stops.push(await state.subscribe(AUTH_SANCTION_CHANNEL, (raw) => onMessage(raw, true)));
  stops.push(await state.subscribe(SANCTIONS_CHANNEL, (raw) => onMessage(raw, false)));
  // What was set before this node started (subscribed first: nothing falls between).
  for (const id of await state.setMembers(ENDED_SANCTIONS)) ended.set(id, Date.now() + ENDED_TTL_MS);
  for (const n of await loadFromStore(state)) remember(n);
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [account, mine] of chat) {
      for (const [id, end] of mine) if (end <= now) mine.delete(id);
      if (!mine.size) chat.delete(account);
    }
    for (const [id, until] of ended) if (until <= now) ended.delete(id);
  }, 60_000);
  sweep.unref();

  return {
    assertChatAllowed(accountId) {
      const mine = chat.get(accountId);
      if (!mine) return;
      const now = Date.now();
      let until = 0;
      for (const end of mine.values()) if (end > now) until = Math.max(until, end);
      if (!until) return;
      throw socialError('chat_restricted', 'Chat is restricted for this account by a sanction', {
        expiresAt: until === Infinity ? null : new Date(until).toISOString(),
      });
    },
    async apply(n, opts) {
      if (n.sanctionType !== 'chat') return;
      remember(n);
      await record(n);
      if (opts.broadcast) {
        await state.publish(SANCTIONS_CHANNEL, SANCTIONS_WIRE.encode({ origin: deps.origin, notice: n }));
      }
    },
    async close() {
      clearInterval(sweep);
      for (const stop of stops) await stop().catch(() => {});
    },
  };
}
