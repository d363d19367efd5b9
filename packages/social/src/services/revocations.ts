/**
 * Revoked sessions and accounts (docs/social.md, "Revocation"). The auth service announces every revocation
 * (logout, refresh-token reuse, an account locked, banned or deleted) as a `revocation` notice, on the bus
 * `auth:revocation` when social shares its state store, and through its outbox (POST
 * /v1/internal/auth-events) otherwise. Each node keeps what it heard in memory and refuses the tokens from
 * then on (401 `token_revoked`, over HTTP and at the upgrade); its listeners (the socket layer) close the
 * affected sockets. The record is also kept in the state store, each entry expiring with the tokens it
 * refuses: a node starting later loads it, and a node that received a notice by webhook tells the others on
 * `social:revocations`. With `Social:Auth:HighSecurity` every request and upgrade also reads the record
 * from the state store (one command), so a node that missed a message still refuses the token.
 */
import { defineWire, type StateStore, type Unsubscribe } from '@platform/kit';
import { socialError } from './errors.js';
import { relayedWire, type Relayed } from './relayed-notice.js';

/** The auth service's channel (its payload is the outbox notice, snake_case). */
export const AUTH_REVOCATION_CHANNEL = 'auth:revocation';
/** Social's own channel: a notice one node received by webhook, for the others. */
export const REVOCATIONS_CHANNEL = 'social:revocations';
/** State store: revoked session ids, each expiring when the last token of its session has. */
export const REVOKED_SIDS = 'social:revoked:sids';
/**
 * State store: `<account id> <unix milliseconds>` — the account's tokens issued up to that instant are refused (a
 * record written before milliseconds, `<unix seconds>`, covers the whole second).
 */
export const REVOKED_ACCOUNTS = 'social:revoked:accounts';

/** The longest an access token lives (the spec's 15 minutes plus a minute of clock skew). */
const MAX_TOKEN_LIFE_MS = 16 * 60_000;

export interface Revocation {
  reason: string;
  scope: 'session' | 'account';
  accountId: string;
  sids: string[];
  /** Epoch ms. */
  revokedAt: number;
  /** Epoch ms: until when a token of it may be presented. */
  until: number;
}

/** Who presents a token: its account, session and issue time (API-key callers have neither). */
export interface TokenHolder {
  accountId: string;
  sid?: string;
  /** The token's `iat`, unix milliseconds (AccessClaims.iatMs). */
  issuedAt?: number;
}

export interface Revocations {
  /** Throws 401 `token_revoked` when the holder's session or account was revoked. */
  check(holder: TokenHolder): Promise<void>;
  /** What this node heard (no store read): true when revoked. */
  revokedHere(holder: TokenHolder): boolean;
  /** A notice: applied here at once, then recorded in the state store and (`broadcast`) told to the other nodes. */
  apply(r: Revocation, opts: { broadcast: boolean }): Promise<void>;
  /** Called with each notice applied here (the socket layer closes the sockets it names). */
  onRevoked(listener: (r: Revocation) => void): void;
  close(): Promise<void>;
}

type Log = { warn(obj: object, msg: string): void };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The auth notice (bus or webhook body), or undefined when it is not one. */
export function parseAuthNotice(n: Record<string, unknown>): Revocation | undefined {
  const { reason, scope, account_id: accountId, sids, revoked_at: revokedAt, until } = n;
  if (typeof reason !== 'string' || (scope !== 'session' && scope !== 'account') || typeof accountId !== 'string' || !accountId) return undefined;
  if (!Array.isArray(sids) || !sids.every((s) => typeof s === 'string' && UUID.test(s))) return undefined;
  const at = typeof revokedAt === 'string' ? Date.parse(revokedAt) : NaN;
  const end = typeof until === 'string' ? Date.parse(until) : NaN;
  if (!Number.isFinite(at) || !Number.isFinite(end) || end < at) return undefined;
  return { reason, scope, accountId, sids: sids as string[], revokedAt: at, until: Math.min(end, Date.now() + MAX_TOKEN_LIFE_MS) };
}

/**
 * The auth service's notice on AUTH_REVOCATION_CHANNEL, as read here (docs/decisions/0020-versioned-messages.md):
 * version 1, `{v?, id, type: 'revocation', reason, scope, account_id, sids, revoked_at, until}`.
 */
export const AUTH_REVOCATION_WIRE = defineWire<Revocation>({ name: 'auth.revocation', read: { 1: (m) => parseAuthNotice(m) } });

/** The notice as social relays it to its other nodes, snake_case like auth's. */
const noticeOf = (r: Revocation) => ({ reason: r.reason, scope: r.scope, account_id: r.accountId, sids: r.sids, revoked_at: new Date(r.revokedAt).toISOString(), until: new Date(r.until).toISOString() });

/** REVOCATIONS_CHANNEL's message: version 1, `{v?, origin, notice}` (notice: auth's fields). */
export const REVOCATIONS_WIRE = relayedWire<Revocation>('social.revocations', parseAuthNotice, noticeOf);

/** Tokens issued up to this instant (ms) are refused: a token issued after the revocation, even within its second, is not. */
const cutoffOf = (r: Revocation) => r.revokedAt;

/** A stored cutoff: milliseconds, or (a record of an older node) whole seconds, read as the end of that second. */
const storedCutoffMs = (v: string) => {
  const n = Number(v);
  return n < 1e11 ? n * 1000 + 999 : n;
};

/**
 * A role taken away (auth's `roles_changed`): the account's tokens issued before carry the old roles. They are
 * refused as stale, not revoked — 401 `unauthorized` and close 4004 `token_expired`, so clients refresh (the session
 * lives on) rather than sign out (docs/social.md, "Revocation").
 */
export const ROLES_CHANGED = 'roles_changed';
const isStale = (r: Pick<Revocation, 'reason'>) => r.reason === ROLES_CHANGED;

/** The record every node reads: each sid, and the account's cutoff, expiring with the tokens. */
async function recordInStore(state: StateStore, r: Revocation): Promise<void> {
  const ttl = Math.max(1000, r.until - Date.now());
  const member = `${r.accountId} ${cutoffOf(r)}${isStale(r) ? ` ${ROLES_CHANGED}` : ''}`;
  await Promise.all([...r.sids.map((sid) => state.setAdd(REVOKED_SIDS, sid, ttl)), ...(r.scope === 'account' ? [state.setAdd(REVOKED_ACCOUNTS, member, ttl)] : [])]);
}

/** The live record, as revocations lasting the longest token life from now (the store keeps no end per entry we read back). */
async function loadFromStore(state: StateStore): Promise<Revocation[]> {
  const until = Date.now() + MAX_TOKEN_LIFE_MS;
  const out: Revocation[] = [{ reason: 'loaded', scope: 'session', accountId: '', sids: await state.setMembers(REVOKED_SIDS), revokedAt: 0, until }];
  for (const m of await state.setMembers(REVOKED_ACCOUNTS)) {
    const [accountId, cutoff, reason] = m.split(' ');
    const revokedAt = storedCutoffMs(cutoff);
    if (accountId && Number.isFinite(revokedAt)) out.push({ reason: reason === ROLES_CHANGED ? ROLES_CHANGED : 'loaded', scope: 'account', accountId, sids: [], revokedAt, until });
  }
  return out;
}

/** What this node heard, in memory: revoked sessions, and per account the cut of revoked and of stale tokens. */
function heardHere() {
  const sids = new Map<string, number>();
  const accounts = new Map<string, { cutoff: number; until: number }>();
  /** Accounts whose tokens up to the cutoff carry roles taken away since (stale, not revoked). */
  const stale = new Map<string, { cutoff: number; until: number }>();
  const cutCovers = (cuts: typeof accounts, h: TokenHolder, now: number, unknownIat: boolean) => {
    const a = cuts.get(h.accountId);
    return !!a && a.until > now && (h.issuedAt === undefined ? unknownIat : h.issuedAt <= a.cutoff);
  };
  return {
    remember(r: Revocation) {
      for (const sid of r.sids) sids.set(sid, Math.max(sids.get(sid) ?? 0, r.until));
      if (r.scope !== 'account') return;
      const cuts = isStale(r) ? stale : accounts;
      const had = cuts.get(r.accountId);
      cuts.set(r.accountId, { cutoff: Math.max(had?.cutoff ?? 0, cutoffOf(r)), until: Math.max(had?.until ?? 0, r.until) });
    },
    revoked(h: TokenHolder): boolean {
      const now = Date.now();
      return (!!h.sid && (sids.get(h.sid) ?? 0) > now) || cutCovers(accounts, h, now, true);
    },
    stale: (h: TokenHolder): boolean => cutCovers(stale, h, Date.now(), false),
    denySid: (sid: string, until: number) => sids.set(sid, until),
    sweep(now: number) {
      for (const [sid, end] of sids) if (end <= now) sids.delete(sid);
      for (const cuts of [accounts, stale]) for (const [id, a] of cuts) if (a.until <= now) cuts.delete(id);
    },
  };
}

export async function createRevocations(deps: { state: StateStore; highSecurity: boolean; origin: string; log: Log }): Promise<Revocations> {
  const { state, log } = deps;
  const heard = heardHere();
  const listeners: ((r: Revocation) => void)[] = [];
  const remember = heard.remember;
  const revokedHere = heard.revoked;

  const applyHere = (r: Revocation) => {
    remember(r);
    for (const fn of listeners) {
      try {
        fn(r);
      } catch (err) {
        log.warn({ err }, 'revocation listener failed');
      }
    }
  };

  const record = (r: Revocation) => recordInStore(state, r);

  const onMessage = (raw: string, fromAuth: boolean) => {
    // Versioned (docs/decisions/0020-versioned-messages.md): this release's and the previous one's, unknown members ignored.
    const read = fromAuth ? AUTH_REVOCATION_WIRE.decode(raw) : REVOCATIONS_WIRE.decode(raw);
    if (!read.ok) return log.warn({ channel: fromAuth ? AUTH_REVOCATION_CHANNEL : REVOCATIONS_CHANNEL, err: read.error, reason: read.reason }, 'unreadable revocation notice dropped');
    if (!fromAuth && (read.value as Relayed<Revocation>).origin === deps.origin) return;
    const r = fromAuth ? (read.value as Revocation) : (read.value as Relayed<Revocation>).notice;
    applyHere(r);
    // Every node records what it hears from auth (no node is sure another did); the social channel carries
    // notices a node has recorded already.
    if (fromAuth) record(r).catch((err) => log.warn({ err }, 'revocation not recorded in the state store'));
  };

  const stops: Unsubscribe[] = [];
  stops.push(await state.subscribe(AUTH_REVOCATION_CHANNEL, (raw) => onMessage(raw, true)));
  stops.push(await state.subscribe(REVOCATIONS_CHANNEL, (raw) => onMessage(raw, false)));
  // What was revoked before this node started (subscribed first: nothing falls between).
  for (const r of await loadFromStore(state)) remember(r);
  const sweep = setInterval(() => {
    heard.sweep(Date.now());
  }, 60_000);
  sweep.unref();

  return {
    revokedHere,
    async check(h) {
      if (revokedHere(h)) throw socialError('token_revoked', 'This token’s session has ended; sign in again');
      if (heard.stale(h)) throw socialError('unauthorized', 'The account’s roles changed since this token was issued; refresh it');
      if (!deps.highSecurity || !h.sid) return;
      if (await state.setHas(REVOKED_SIDS, h.sid)) {
        heard.denySid(h.sid, Date.now() + MAX_TOKEN_LIFE_MS);
        throw socialError('token_revoked', 'This token’s session has ended; sign in again');
      }
    },
    async apply(r, opts) {
      applyHere(r);
      await record(r);
      if (opts.broadcast) {
        await state.publish(REVOCATIONS_CHANNEL, REVOCATIONS_WIRE.encode({ origin: deps.origin, notice: r }));
      }
    },
    onRevoked(listener) {
      listeners.push(listener);
    },
    async close() {
      clearInterval(sweep);
      for (const stop of stops) await stop().catch(() => {});
    },
  };
}
