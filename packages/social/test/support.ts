/**
 * Test support: a real token key set served over HTTP (Ed25519, kid = PASERK
 * k4.pid, tokens in both formats), a small real registry implementing
 * POST /auth/validate-key with hashed secrets, and a harness that builds the
 * service on a fresh schema / key prefix and talks to it through HTTP.
 */
import http from 'node:http';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { publicJwk, randomToken, safeEqualHex, sha256Hex, signAccessToken, type TextFilterSettings, type TokenFormat } from '@platform/kit';
import { perSuite, request, serviceHarness, type Method, type TestStateStore, type TestDatabase } from '@platform/kit/testing';
import { partyChannel, socialService, userChannel, type EventEnvelope, type SocialApp } from '../src/index.js';
import { FANOUT_CHANNEL, type FanoutMessage } from '../src/services/events.js';
import { friendPresenceData } from '../src/services/presence.js';
import { NO_GAME, type GameContext } from '../src/context.js';

export const ISSUER = 'https://auth.test';
export const AUDIENCE = 'game-platform';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface KeySet {
  url: string;
  sign(
    sub: string,
    opts?: {
      format?: TokenFormat;
      expOffsetSec?: number;
      iss?: string;
      aud?: string;
      key?: 'current' | 'other';
      roles?: string[];
      sid?: string;
      iatOffsetSec?: number;
      iatMs?: number;
      /** The `guest: true` claim of a guest account's token. */
      guest?: boolean;
      /** The `game` claim of a server token issued for one game. */
      game?: string;
    },
  ): Promise<string>;
  /** Replaces the served key with a new one (what a rotation does). */
  rotate(): void;
  fetches: number;
  close(): Promise<void>;
}

function newKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, jwk: publicJwk(publicKey) };
}

export async function startKeySet(): Promise<KeySet> {
  let current = newKey();
  const unserved = newKey();
  const set: KeySet = {
    url: '',
    fetches: 0,
    async sign(sub, opts = {}) {
      const k = opts.key === 'other' ? unserved : current;
      const now = Math.floor(Date.now() / 1000);
      return signAccessToken(opts.format ?? 'paseto', { kid: k.jwk.kid, privateKey: k.privateKey as KeyObject }, opts.iss ?? ISSUER, opts.aud ?? AUDIENCE, {
        sub,
        sid: opts.sid ?? randomUUID(),
        platform: 'pc',
        roles: opts.roles ?? ['player'],
        region: 'eu',
        jti: randomUUID(),
        iat: opts.iatMs !== undefined ? opts.iatMs / 1000 : now - (opts.iatOffsetSec ?? 5),
        exp: now + (opts.expOffsetSec ?? 600),
        guest: opts.guest,
        game: opts.game,
      });
    },
    rotate() {
      current = newKey();
    },
    async close() {
      await new Promise((r) => server.close(r));
    },
  };
  const server = http.createServer((req, res) => {
    set.fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [current.jwk] }));
  });
  set.url = (await listen(server)) + '/.well-known/jwks.json';
  return set;
}

export interface Game {
  key: string;
  secret: string;
  /** The game's public client key (docs/client-key.md). */
  clientKey: string;
  gameId: string;
  visibility: 'isolated' | 'summary' | 'full';
}

/** What the stand-in registry answers as a game's GuestRestricted (null: the deployment's list). */
type GuestRestrictedList = string[] | null;

/** A registry stand-in implementing the validate-key (hashed secrets) and validate-client-key contracts. */
export async function startRegistry() {
  const games: { key: string; secretHash: string; clientKey: string; gameId: string; visibility: string; guestRestricted: GuestRestrictedList; textFilter?: TextFilterSettings; groupLimits?: Record<string, number> }[] = [];
  /** The registry's game context answer (TextFilter only for a game given one: an older registry sends none). */
  const context = (g: (typeof games)[number]) => ({
    Valid: true,
    GameId: g.gameId,
    CrossGameVisibility: g.visibility,
    GuestRestricted: g.guestRestricted,
    ...(g.groupLimits ? { GroupLimits: g.groupLimits } : {}),
    ...(g.textFilter ? { TextFilter: { Mode: g.textFilter.mode, AllowList: g.textFilter.allowList, DenyList: g.textFilter.denyList, Version: g.textFilter.version } } : {}),
  });
  let calls = 0;
  let down = false;
  let delayMs = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => (delayMs ? setTimeout(answer, delayMs) : answer()));
    const answer = () => {
      calls++;
      if (down) {
        res.statusCode = 500;
        return res.end('{}');
      }
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/auth/validate-client-key') {
        const { ClientKey } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ClientKey?: string };
        const g = games.find((x) => x.clientKey === ClientKey);
        if (!g) {
          res.statusCode = 401;
          return res.end(JSON.stringify({ Valid: false, Code: 'invalid_client_key', Message: 'Unknown client key' }));
        }
        return res.end(JSON.stringify(context(g)));
      }
      if (req.method !== 'POST' || req.url !== '/auth/validate-key') {
        res.statusCode = 404;
        return res.end('{}');
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ApiKey?: string; ApiSecret?: string };
      const g = games.find((x) => x.key === body.ApiKey);
      if (!g || typeof body.ApiSecret !== 'string' || !safeEqualHex(g.secretHash, sha256Hex(body.ApiSecret))) {
        res.statusCode = 401;
        return res.end(JSON.stringify({ Valid: false }));
      }
      res.end(JSON.stringify(context(g)));
    };
  });
  const url = await listen(server);
  return {
    url,
    get calls() {
      return calls;
    },
    setDown(v: boolean) {
      down = v;
    },
    /** Every answer waits this long (a slow registry). */
    setDelay(ms: number) {
      delayMs = ms;
    },
    /**
     * A game; `guestRestricted`: its GuestRestricted (default null: the deployment's SOCIAL_GUEST_RESTRICTED);
     * `textFilter`: its text filter settings (none: the answer carries none, as an older registry's); `groupLimits`:
     * its GroupLimits as the registry sends them (PascalCase; none: an older registry's answer).
     */
    addGame(visibility: Game['visibility'], guestRestricted: GuestRestrictedList = null, textFilter?: TextFilterSettings, groupLimits?: Record<string, number>): Game {
      const g = { key: `gk_${randomToken(8)}`, secret: randomToken(24), clientKey: `ck_${randomToken(24)}`, gameId: randomUUID(), visibility };
      games.push({ key: g.key, secretHash: sha256Hex(g.secret), clientKey: g.clientKey, gameId: g.gameId, visibility, guestRestricted, ...(textFilter ? { textFilter } : {}), ...(groupLimits ? { groupLimits } : {}) });
      return g;
    },
    /** regenerate-client-key: the old key stops resolving at once; returns the game with the new key. */
    rotateClientKey(game: Game): Game {
      const g = games.find((x) => x.gameId === game.gameId)!;
      g.clientKey = `ck_${randomToken(24)}`;
      return { ...game, clientKey: g.clientKey };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export interface TestUser {
  sub: string;
  token: string;
  publicId: string;
  fullHandle: string;
  id: string;
}

export interface Harness {
  app: SocialApp;
  keys: KeySet;
  registry: Awaited<ReturnType<typeof startRegistry>>;
  db: TestDatabase;
  state: TestStateStore;
  /** Every response body seen, to prove no account id leaks. */
  bodies: string[];
  subs: string[];
  /** `roles`: the token's roles claim (default `['player']`); `guest`: a guest account's token (`guest: true`). */
  user(name?: string, opts?: { format?: TokenFormat; roles?: string[]; guest?: boolean }): Promise<TestUser>;
  /** New users, one after the other, in this order. */
  users(...names: string[]): Promise<TestUser[]>;
  /** A party of `lead` (`body`: its settings) that `members` joined, in this order (each join answered 200). */
  party(lead: TestUser, members: TestUser[], body: Record<string, unknown>): Promise<{ partyId: string; [k: string]: any }>;
  /** Two new users (in this order), made friends (befriend). */
  friends(nameA: string, nameB: string): Promise<[TestUser, TestUser]>;
  req(
    u: TestUser | null,
    method: Method,
    url: string,
    /** `game`: its key and secret in the tenancy headers; `clientKey`: X-Platform-Client-Key. */
    opts?: { body?: unknown; raw?: string; headers?: Record<string, string>; game?: Game; clientKey?: string },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** What a socket of `u` receives; `game`: the socket's game context (presence events are built for it). */
  events(u: TestUser, opts?: { game?: Game }): Promise<EventRecorder>;
  partyEvents(partyId: string): Promise<EventRecorder>;
  assertNoAccountIds(): void;
  /**
   * Another social node on the same database and state store (closed with the harness), configured by the base
   * settings and `env` only (not the harness's `env`). With REDIS_URL/DATABASE_URL
   * it opens its own connections (same key prefix and schema), so events really cross Redis pub/sub.
   */
  node(env?: Record<string, string>): Promise<SocialApp>;
  close(): Promise<void>;
}

export async function startHarness(
  env: Record<string, string> = {},
  opts: { now?: () => Date; logStream?: import('pino').DestinationStream } = {},
): Promise<Harness> {
  const keys = await startKeySet();
  const registry = await startRegistry();
  const base = { SOCIAL__AUTH__JWKSURL: keys.url, SOCIAL__AUTH__ISSUER: ISSUER, SOCIAL__REGISTRY__URL: registry.url, SOCIAL__TLS__MODE: 'http' };
  const sh = await serviceHarness(socialService, {
    env: { ...base, ...env },
    deps: { now: opts.now, logStream: opts.logStream },
  });
  const { app, tdb: db, tstate: state } = sh;
  const bodies: string[] = [];
  const subs: string[] = [];
  const h: Harness = {
    app,
    keys,
    registry,
    db,
    state,
    bodies,
    subs,
    async user(name = 'Player', o = {}) {
      const sub = `acct-${randomUUID()}`;
      subs.push(sub);
      const token = await keys.sign(sub, { format: o.format, roles: o.roles, guest: o.guest });
      const me = await h.req({ sub, token } as TestUser, 'GET', '/v1/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      let u: TestUser = { sub, token, publicId: me.body.publicId, fullHandle: me.body.fullHandle, id: '' };
      if (name !== me.body.handle) {
        const r = await h.req(u, 'POST', '/v1/me/name', { body: { displayName: name } });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        u = { ...u, fullHandle: r.body.fullHandle };
      }
      u.id = (await db.db.query<{ id: string }>('SELECT id FROM users WHERE public_id = $1', [u.publicId])).rows[0].id;
      return u;
    },
    async users(...names) {
      const made: TestUser[] = [];
      for (const name of names) made.push(await h.user(name));
      return made;
    },
    async party(lead, members, body) {
      const party = (await h.req(lead, 'POST', '/v1/parties', { body })).body;
      for (const u of members) assert.equal((await h.req(u, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} })).status, 200);
      return party;
    },
    async friends(nameA, nameB) {
      const a = await h.user(nameA);
      const b = await h.user(nameB);
      await befriend(h, a, b);
      return [a, b];
    },
    async req(u, method, url, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.game) {
        headers['x-platform-game-key'] = o.game.key;
        headers['x-platform-game-secret'] = o.game.secret;
      }
      if (o.clientKey !== undefined) headers['x-platform-client-key'] = o.clientKey;
      const r = await request(app, method, url, { token: u?.token, headers, body: o.body, raw: o.raw });
      bodies.push(r.text);
      return r;
    },
    // Recorders start clean: events still in flight from earlier calls are drained.
    events: async (u, o = {}) => {
      const r = await recordEvents(state, u, o.game ? { gameId: o.game.gameId, visibility: o.game.visibility } : NO_GAME);
      await r.reset();
      return r;
    },
    partyEvents: async (partyId) => {
      const r = await recordChannel(state, partyChannel(partyId));
      await r.reset();
      return r;
    },
    assertNoAccountIds() {
      const all = bodies.join('\n');
      for (const sub of subs) assert.ok(!all.includes(sub), `a response carried the account id ${sub}`);
    },
    // Another node reads the base settings and its own, not this one's.
    node: (extra = {}) => sh.node(extra, { env: base, deps: { now: undefined, logStream: undefined }, ownConnections: true }),
    async close() {
      await sh.close();
      await keys.close();
      await registry.close();
    },
  };
  return h;
}

/**
 * The suite's harness (kit perSuite): started before its tests, closed after them; `checkAccountIds`: first
 * asserts that no response carried an account id.
 */
export function useHarness(env: Record<string, string> = {}, opts: Parameters<typeof startHarness>[1] & { checkAccountIds?: boolean } = {}): Harness {
  return perSuite(
    () => startHarness(env, opts),
    async (h) => {
      if (opts.checkAccountIds) h.assertNoAccountIds();
      await h.close();
    },
  );
}

export interface EventRecorder {
  events: EventEnvelope[];
  /** Waits until `count` events of `type` arrived, then returns them. */
  next(type: string, count?: number): Promise<EventEnvelope[]>;
  /** Asserts the exact sequence of event types received so far (after letting in-flight ones land). */
  expectTypes(types: string[]): Promise<void>;
  clear(): void;
  /** Lets in-flight events (published before subscribing) land, then forgets them. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What the realtime layer delivers to a socket of a user in game context `game`: their own channel, plus
 * their items of the many-recipient messages on the fan-out channel (presence and profile changes to
 * friends; presence made into the payload for `game`, as the socket layer does).
 */
export async function recordEvents(state: TestStateStore, u: TestUser, game: GameContext = NO_GAME): Promise<EventRecorder> {
  return recordChannel(state, userChannel(u.id), u.id, game);
}

/** Subscribes to any event channel (a party's, for instance). */
export async function recordChannel(state: TestStateStore, channel: string, fanoutUserId?: string, game: GameContext = NO_GAME): Promise<EventRecorder> {
  const events: EventEnvelope[] = [];
  const waiters: (() => void)[] = [];
  const push = (e: EventEnvelope) => {
    events.push(e);
    waiters.splice(0).forEach((w) => w());
  };
  const unsubscribeOwn = await state.state.subscribe(channel, (m) => {
    const e = JSON.parse(m) as EventEnvelope;
    // Control messages for the socket layer (`_partyChanged`, `_accountDeleted`) are not events.
    if (e.type.startsWith('_') && e.type !== ('__marker' as never)) return;
    push(e);
  });
  const unsubscribeFanout = fanoutUserId
    ? await state.state.subscribe(FANOUT_CHANNEL, (m) => {
        const f = JSON.parse(m) as FanoutMessage;
        const actor = f.actorPublicId ? { actorPublicId: f.actorPublicId } : {};
        if ('presence' in f) {
          if (f.userIds.includes(fanoutUserId)) push({ type: f.type, data: friendPresenceData(f.presence, game), ...actor });
          return;
        }
        for (const g of f.groups) {
          if (g.userIds.includes(fanoutUserId)) push({ type: f.type, data: g.data, ...(f.actorPublicId ? { actorPublicId: f.actorPublicId } : {}) });
        }
      })
    : undefined;
  const unsubscribe = async () => {
    await unsubscribeOwn();
    await unsubscribeFanout?.();
  };
  const settle = async () => {
    // A marker published after the operation arrives after everything it caused.
    const marker = `{"type":"__marker","data":"${randomUUID()}"}`;
    const seen = new Promise<void>((resolve) => {
      const check = () => (events.some((e) => JSON.stringify(e) === marker) ? resolve() : waiters.push(check));
      check();
    });
    await state.state.publish(channel, marker);
    await seen;
    for (let i = events.length - 1; i >= 0; i--) if (events[i].type === ('__marker' as never)) events.splice(i, 1);
  };
  return {
    events,
    async next(type, count = 1) {
      await settle();
      const got = events.filter((e) => e.type === type);
      assert.ok(got.length >= count, `expected ${count} ${type} event(s), got ${JSON.stringify(events)}`);
      return got;
    },
    async expectTypes(types) {
      await settle();
      assert.deepEqual(
        events.map((e) => e.type),
        types,
      );
    },
    clear() {
      events.length = 0;
    },
    async reset() {
      await settle();
      events.length = 0;
    },
    stop: unsubscribe,
  };
}

/** Makes two users friends through the HTTP surface. */
export async function befriend(h: Harness, a: TestUser, b: TestUser): Promise<void> {
  const r = await h.req(a, 'POST', '/v1/friends/requests', { body: { toPublicId: b.publicId } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const acc = await h.req(b, 'POST', `/v1/friends/requests/${a.publicId}/accept`);
  assert.equal(acc.status, 200, JSON.stringify(acc.body));
}
