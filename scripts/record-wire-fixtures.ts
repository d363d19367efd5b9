// Records the messages that cross nodes or outlive one (bus messages, replay-log entries, the stored presence record,
// auth's outbox notices), as the code of this checkout writes them, into packages/e2e/test/fixtures/wire/<name>.json
// (docs/decisions/0020-versioned-messages.md): `current` for this release; `previous` for the release before, run
// with that release's sources checked out (git checkout <release> -- packages/*/src, then back). The producers run
// for real: a social node (HTTP), an auth node (HTTP), the registry's cache and notices, social's revocation and
// sanction relays, over the in-memory state store (Redis gives the same texts). Internal ids, public ids, party ids
// and the like are replaced by placeholders ({{user:a}}, ...) so a test can put its own in.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=development --import tsx \
//     scripts/record-wire-fixtures.ts current
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { GAME_CREDENTIALS_CHANNEL, openStateStore } from '@platform/kit';
import { befriend, startHarness, type TestUser } from '../packages/social/test/support.js';
import { FANOUT_CHANNEL, RELATIONS_CHANNEL, partyChannel, replayLog, userChannel } from '../packages/social/src/services/events.js';
import { createRevocations, REVOCATIONS_CHANNEL } from '../packages/social/src/services/revocations.js';
import { createSanctions, SANCTIONS_CHANNEL } from '../packages/social/src/services/sanctions.js';
import { harness as authHarness, register, withRoles, bearer } from '../packages/auth/test/support/harness.js';
import { REVOCATION_CHANNEL } from '../packages/auth/src/services/revocation.js';
import { SANCTION_CHANNEL } from '../packages/auth/src/services/sanctions.js';
import { KEY_ROTATION_CHANNEL } from '../packages/auth/src/services/keys.js';
import { ApiKeyCache, INVALIDATION_CHANNEL } from '../packages/registry/src/services/api-key-cache.js';
import { gameNotices } from '../packages/registry/src/services/game-notices.js';

interface Recorded {
  /** What produced it (the operation of this script). */
  by: string;
  channel?: string;
  /** The text as published or stored. */
  raw: string;
}

const release = process.argv[2];
if (!release) throw new Error('usage: record-wire-fixtures.ts current|previous');
const out: Record<string, Recorded[]> = {};
const add = (kind: string, r: Recorded) => (out[kind] ??= []).push(r);
const placeholders = new Map<string, string>();
const name = (value: string, as: string) => {
  if (value) placeholders.set(value, `{{${as}}}`);
};
const settle = () => new Promise((r) => setTimeout(r, 150));

async function social(replay: boolean) {
  const mode = replay ? 'replay log on' : 'replay log off';
  const h = await startHarness({ LOG_LEVEL: 'silent', ...(replay ? {} : { SOCIAL_REALTIME_REPLAY_ENTRIES: '0' }) });
  try {
    let by = '';
    const listen = async (channel: string, kind: string) => h.state.state.subscribe(channel, (raw) => add(kind, { by: `${by} (${mode})`, channel, raw }));
    await listen(FANOUT_CHANNEL, 'social.fanout');
    await listen(RELATIONS_CHANNEL, 'social.relations');
    const users: TestUser[] = [];
    for (const n of ['a', 'b', 'c']) {
      const u = await h.user(n.toUpperCase() + 'nya');
      users.push(u);
      name(u.id, `user:${n}`);
      name(u.publicId, `public:${n}`);
      name(u.fullHandle, `handle:${n}`);
      await listen(userChannel(u.id), 'social.user');
    }
    const [a, b, c] = users;
    by = 'friend request and accept (friends.ts)';
    await befriend(h, a, b);
    await befriend(h, a, c);
    await settle();
    by = 'POST /v1/presence (presence fan-out)';
    await h.req(a, 'POST', '/v1/presence', { body: { state: 'away' } });
    await settle();
    // The presence record every node reads from the store (presence.ts).
    const record = await h.state.state.get(`presence:${a.id}`);
    if (record) add('social.presenceRecord', { by: `POST /v1/presence, the stored record (${mode})`, channel: 'presence:{{user:a}}', raw: record });
    by = 'POST /v1/me/name (profile fan-out)';
    await h.req(a, 'POST', '/v1/me/name', { body: { displayName: 'Anyanka' } });
    await settle();
    by = 'POST /v1/parties';
    const party = (await h.req(a, 'POST', '/v1/parties', { body: { visibility: 'FriendsOnly' } })).body;
    name(party.partyId, 'party');
    await listen(partyChannel(party.partyId), 'social.party');
    by = 'POST /v1/parties/{id}/join';
    await h.req(b, 'POST', `/v1/parties/${party.partyId}/join`, { body: {} });
    await settle();
    by = 'POST /v1/chat/party/{id}/messages';
    await h.req(a, 'POST', `/v1/chat/party/${party.partyId}/messages`, { body: { body: 'hello party' } });
    await settle();
    by = 'POST /v1/mutes/{publicId}';
    await h.req(c, 'POST', `/v1/mutes/${a.publicId}`);
    await settle();
    if (replay) {
      const retention = { maxEntries: 1000, maxAgeMs: 600_000 };
      // An id within the age: a read after 0-0 is not complete (older than the retention).
      const after = `${Date.now() - 120_000}-0`;
      const logs = [userChannel(a.id), userChannel(b.id), partyChannel(party.partyId)];
      const { results } = await h.state.state.logRead(logs.map((l) => ({ log: replayLog(l), after })), retention, 1000);
      results.forEach((r, i) => r.entries.forEach((e) => add('social.replayEntry', { by: 'logRead of the replay log (replay.ts)', channel: replayLog(logs[i]), raw: e.entry })));
    }
  } finally {
    await h.close();
  }
}

async function socialRelays() {
  const state = await openStateStore();
  const log = { warn() {} };
  for (const channel of [REVOCATIONS_CHANNEL, SANCTIONS_CHANNEL]) {
    await state.subscribe(channel, (raw) => add(channel === REVOCATIONS_CHANNEL ? 'social.revocations' : 'social.sanctions', { by: 'apply(notice, {broadcast: true}) after a webhook notice', channel, raw }));
  }
  const revocations = await createRevocations({ state, highSecurity: false, origin: randomUUID(), log });
  const sanctions = await createSanctions({ state, origin: randomUUID(), log });
  const account = randomUUID();
  name(account, 'account');
  const sid = randomUUID();
  name(sid, 'sid');
  const now = Date.now();
  await revocations.apply({ reason: 'logout', scope: 'session', accountId: account, sids: [sid], revokedAt: now, until: now + 960_000 }, { broadcast: true });
  await revocations.apply({ reason: 'account_banned', scope: 'account', accountId: account, sids: [], revokedAt: now, until: now + 960_000 }, { broadcast: true });
  const sanctionId = randomUUID();
  name(sanctionId, 'sanction');
  await sanctions.apply({ event: 'applied', sanctionId, accountId: account, sanctionType: 'chat', expiresAt: now + 3600_000 }, { broadcast: true });
  await sanctions.apply({ event: 'lifted', sanctionId, accountId: account, sanctionType: 'chat', expiresAt: now + 3600_000 }, { broadcast: true });
  await settle();
  await revocations.close();
  await sanctions.close();
  await state.close();
}

async function auth() {
  const h = await authHarness({ AUTH_OUTBOX_TARGETS: '' });
  try {
    let by = '';
    const kinds: [string, string][] = [
      [REVOCATION_CHANNEL, 'auth.revocation'],
      [SANCTION_CHANNEL, 'auth.sanction'],
      [KEY_ROTATION_CHANNEL, 'auth.keyRotation'],
    ];
    for (const [channel, kind] of kinds) await h.tstate.state.subscribe(channel, (raw) => add(kind, { by, channel, raw }));
    const u = await register(h.app);
    name(u.account_id, 'account');
    const admin = await withRoles(h, ['player', 'admin']);
    name(admin.account_id, 'admin');
    by = 'POST /logout (revocation, session scope)';
    await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(u.access_token) });
    await settle();
    by = 'POST /admin/accounts/{id}/sanctions (chat)';
    const s = await h.app.inject({ method: 'POST', url: `/admin/accounts/${u.account_id}/sanctions`, headers: bearer(admin.token), payload: { type: 'chat', reason: 'Spam', duration_seconds: 3600 } });
    name((s.json() as { id: string }).id, 'sanction');
    await settle();
    by = 'POST /admin/accounts/{id}/sanctions (ban: sanction and account revocation)';
    const ban = await h.app.inject({ method: 'POST', url: `/admin/accounts/${u.account_id}/sanctions`, headers: bearer(admin.token), payload: { type: 'ban', reason: 'Cheating', duration_seconds: 3600 } });
    name((ban.json() as { id: string }).id, 'ban');
    await settle();
    by = 'POST /admin/keys/rotate {emergency: true}';
    const rot = await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(admin.token), payload: { emergency: true } });
    name((rot.json() as { kid: string }).kid, 'kid');
    await settle();
    // The outbox rows: their payload is what the delivery POSTs to /v1/internal/auth-events (with the row id first).
    const rows = await h.tdb.db.query<{ id: string; topic: string; payload: Record<string, unknown> }>('SELECT id, topic, payload FROM outbox ORDER BY created_at, id');
    for (const r of rows.rows) {
      name(r.id, `notice:${r.topic}:${r.id.slice(0, 4)}`);
      for (const sid of (r.payload.sids as string[] | undefined) ?? []) name(sid, `sid:${sid.slice(0, 4)}`);
      add('auth.outbox', { by: `outbox row, topic ${r.topic} (stored payload; POSTed as {id, ...payload})`, raw: JSON.stringify({ id: r.id, ...r.payload }) });
    }
  } finally {
    await h.close();
  }
}

async function registry() {
  const state = await openStateStore();
  await state.subscribe(INVALIDATION_CHANNEL, (raw) => add('registry.apiKeyInvalidation', { by: 'ApiKeyCache.invalidate', channel: INVALIDATION_CHANNEL, raw }));
  await state.subscribe(GAME_CREDENTIALS_CHANNEL, (raw) => add('registry.gameCredentials', { by: 'gameNotices().announce', channel: GAME_CREDENTIALS_CHANNEL, raw }));
  const cache = new ApiKeyCache(state, 5000);
  await cache.start();
  const notices = gameNotices(cache, state, { error() {} } as never);
  const gameId = randomUUID();
  name(gameId, 'game');
  name('pk_recorded_api_key', 'apiKey');
  name('ck_recorded_client_key', 'clientKey');
  await notices.announce({ change: 'secret_replaced', gameId, apiKey: 'pk_recorded_api_key', revokedSecretDigest: 'a'.repeat(64) });
  await notices.announce({ change: 'client_key_replaced', gameId, apiKey: 'pk_recorded_api_key', clientKey: 'ck_recorded_client_key' });
  await notices.announce({ change: 'game_deleted', gameId, apiKey: 'pk_recorded_api_key', clientKey: 'ck_recorded_client_key' });
  await settle();
  await cache.stop();
  await state.close();
}

await social(true);
await social(false);
await socialRelays();
await auth();
await registry();

// Placeholders, longest values first (a handle contains no id, but be safe).
const values = [...placeholders.keys()].sort((x, y) => y.length - x.length);
const scrub = (s: string) => values.reduce((t, v) => t.split(v).join(placeholders.get(v)!), s);
const fixtures = Object.fromEntries(
  Object.entries(out).map(([kind, list]) => [kind, list.map((r) => ({ by: r.by, ...(r.channel ? { channel: scrub(r.channel) } : {}), raw: scrub(r.raw) }))]),
);
const file = path.resolve(import.meta.dirname, '../packages/e2e/test/fixtures/wire', `${release}.json`);
writeFileSync(file, JSON.stringify({ release, recordedAt: new Date().toISOString(), note: 'Recorded by scripts/record-wire-fixtures.ts; not edited by hand.', messages: fixtures }, null, 2) + '\n');
console.log(`wrote ${file}:`, Object.fromEntries(Object.entries(fixtures).map(([k, v]) => [k, v.length])));
process.exit(0);
