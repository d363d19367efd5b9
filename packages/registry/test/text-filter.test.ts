// A game's text filter (docs/registry.md, "Text filter"): read and replaced by its developers (another
// developer's game is 404), bounded word lists, and carried to social with the game context (validate-key,
// validate-client-key) and in the text_filter_changed notice.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GAME_CREDENTIALS_CHANNEL, openEmbeddedPostgres, parseGameCredentialsNotice, type GameCredentialsNotice } from '@platform/kit';
import { assertError, bearer, createGame, useHarness, loginAdmin, registerDeveloper, type Dev } from './helpers.js';

describe('text filter settings', () => {
  const h = useHarness();
  let a: Dev;
  let b: Dev;
  let admin: Dev;
  before(async () => {
    [a, b, admin] = await Promise.all([registerDeveloper(h.app), registerDeveloper(h.app), loginAdmin(h.app)]);
  });

  const get = (token: string, gameId: string) => h.app.inject({ url: `/games/${gameId}/text-filter`, headers: bearer(token) });
  const put = (token: string, gameId: string, payload: unknown) => h.app.inject({ method: 'PUT', url: `/games/${gameId}/text-filter`, headers: bearer(token), payload: payload as object });

  it('a new game starts in mask mode with empty lists', async () => {
    const g = await createGame(h.app, a.token);
    const r = await get(a.token, g.gameId);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { Mode: 'mask', AllowList: [], DenyList: [], Version: 1 });
  });

  it('replaces the settings: lists normalised, version grown; the validations carry them at once', async () => {
    const g = await createGame(h.app, a.token);
    // Cached validations first: the change must drop them.
    const before = await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: g.apiKey, ApiSecret: g.apiSecret } });
    assert.deepEqual(before.json().TextFilter, { Mode: 'mask', AllowList: [], DenyList: [], Version: 1 });
    await h.app.inject({ method: 'POST', url: '/auth/validate-client-key', payload: { ClientKey: g.clientKey } });
    const r = await put(a.token, g.gameId, { Mode: 'reject', AllowList: [' Cockpit ', 'cockpit', ''], DenyList: ['Griefer', 'camp  er'] });
    assert.equal(r.statusCode, 200, r.body);
    const expected = { Mode: 'reject', AllowList: ['cockpit'], DenyList: ['griefer', 'camp er'], Version: 2 };
    assert.deepEqual(r.json(), expected);
    assert.deepEqual((await get(a.token, g.gameId)).json(), expected);
    const byKey = await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: g.apiKey, ApiSecret: g.apiSecret } });
    assert.deepEqual(byKey.json(), { Valid: true, GameId: g.gameId, CrossGameVisibility: 'isolated', GuestRestricted: null, GroupLimits: null, PlatformFriends: 'suggest', TextFilter: expected });
    const byClient = await h.app.inject({ method: 'POST', url: '/auth/validate-client-key', payload: { ClientKey: g.clientKey } });
    assert.deepEqual(byClient.json().TextFilter, expected);
    assert.equal((await put(a.token, g.gameId, { Mode: 'off', AllowList: [], DenyList: [] })).json().Version, 3);
  });

  it('publishes text_filter_changed with the new settings', async () => {
    const g = await createGame(h.app, a.token);
    const seen: GameCredentialsNotice[] = [];
    const unsubscribe = await h.state.subscribe(GAME_CREDENTIALS_CHANNEL, (raw) => {
      const n = parseGameCredentialsNotice(raw);
      if (n?.gameId === g.gameId) seen.push(n);
    });
    try {
      assert.equal((await put(a.token, g.gameId, { Mode: 'flag', AllowList: [], DenyList: ['griefer'] })).statusCode, 200);
      for (let i = 0; i < 200 && !seen.length; i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(seen.length, 1);
      assert.equal(seen[0].change, 'text_filter_changed');
      assert.equal(seen[0].apiKey, g.apiKey);
      assert.deepEqual(seen[0].textFilter, { mode: 'flag', allowList: [], denyList: ['griefer'], version: 2 });
    } finally {
      await unsubscribe();
    }
  });

  it("another developer's game, an unknown one and a malformed id are 404; no token is 401; the super-admin may", async () => {
    const g = await createGame(h.app, a.token);
    const body = { Mode: 'off', AllowList: [], DenyList: [] };
    for (const id of [g.gameId, randomUUID(), 'not-a-uuid']) {
      assertError(await get(b.token, id), 404, 'game_not_found');
      assertError(await put(b.token, id, body), 404, 'game_not_found');
    }
    assert.equal((await get(a.token, g.gameId)).json().Mode, 'mask', "the other developer's attempt changed nothing");
    assertError(await h.app.inject({ url: `/games/${g.gameId}/text-filter` }), 401, 'unauthorized');
    assertError(await h.app.inject({ method: 'PUT', url: `/games/${g.gameId}/text-filter`, payload: body }), 401, 'unauthorized');
    assert.equal((await put(admin.token, g.gameId, body)).statusCode, 200);
    assert.equal((await get(admin.token, g.gameId)).json().Mode, 'off');
  });

  it('refuses bad input with a clear 4xx and changes nothing', async () => {
    const g = await createGame(h.app, a.token);
    const ok = { Mode: 'mask', AllowList: [], DenyList: [] };
    const bad: unknown[] = [
      {},
      { ...ok, Mode: 'shout' },
      { ...ok, Mode: 3 },
      { Mode: 'mask', AllowList: [] },
      { ...ok, Extra: true },
      { ...ok, DenyList: 'griefer' },
      { ...ok, DenyList: [5] },
      { ...ok, DenyList: Array.from({ length: 1001 }, (_, i) => `w${i}`) },
      { ...ok, AllowList: ['x'.repeat(65)] },
      { ...ok, DenyList: ['bad\nword'] },
      { ...ok, AllowList: ['tab\tword'] },
      { ...ok, DenyList: ['bell\u0007'] },
    ];
    for (const payload of bad) {
      const r = await put(a.token, g.gameId, payload);
      assertError(r, 400, 'validation_failed');
    }
    // The bounds themselves are accepted: two full lists of the longest words (a body far above 64 KiB).
    const longest = (tag: string) => Array.from({ length: 1000 }, (_, i) => `${tag}${i}`.padEnd(64, 'é'));
    const full = { ...ok, DenyList: longest('d'), AllowList: longest('a') };
    const saved = await put(a.token, g.gameId, full);
    assert.equal(saved.statusCode, 200, saved.body.slice(0, 300));
    assert.equal(saved.json().DenyList.length, 1000);
    assertError(await put(a.token, g.gameId, { ...full, Pad: 'x'.repeat(1024 * 1024) }), 413, 'payload_too_large');
    assertError(await put(a.token, g.gameId, { ...ok, DenyList: ['nul\u0000'] }), 400, 'invalid_character');
    assertError(await h.app.inject({ method: 'PUT', url: `/games/${g.gameId}/text-filter`, headers: { ...bearer(a.token), 'content-type': 'application/json' }, payload: '{"Mode":' }), 400, 'malformed_json');
    assert.equal((await get(a.token, g.gameId)).json().Version, 2, 'only the good one counted');
  });
});

describe('migration 0003: the default mode', () => {
  it('games made before it keep off; games made after it start with mask', async () => {
    const pg = await openEmbeddedPostgres();
    try {
      const db = await pg.database('text_filter_migration');
      const run = async (file: string) => {
        const sql = readFileSync(path.join(import.meta.dirname, '../migrations', file), 'utf8').replace(/--[^\n]*/g, '');
        for (const statement of sql.split(';').map((x) => x.trim()).filter(Boolean)) await db.query(statement);
      };
      await run('0001_init.sql');
      await run('0002_client_key.sql');
      const dev = (await db.query<{ id: string }>(`INSERT INTO developers (email, display_name, password_hash) VALUES ('m@example.test', 'M', 'x') RETURNING id`)).rows[0].id;
      const insertGame = async (key: string) =>
        (await db.query<{ id: string }>(`INSERT INTO games (developer_id, display_name, api_key, client_key, api_secret_hash) VALUES ($1, 'G', $2, $3, 'h') RETURNING id`, [dev, key, `ck_${key}`])).rows[0].id;
      const before = await insertGame('gk_before');
      await run('0003_text_filter.sql');
      const after = await insertGame('gk_after');
      const modes = await db.query<{ id: string; text_filter_mode: string; text_filter_version: number; text_filter_deny: string[] }>(
        'SELECT id, text_filter_mode, text_filter_version, text_filter_deny FROM games',
      );
      const byId = new Map(modes.rows.map((r) => [r.id, r]));
      assert.deepEqual([byId.get(before)!.text_filter_mode, byId.get(before)!.text_filter_version, byId.get(before)!.text_filter_deny], ['off', 1, []]);
      assert.equal(byId.get(after)!.text_filter_mode, 'mask');
      await assert.rejects(db.query(`UPDATE games SET text_filter_mode = 'shout' WHERE id = $1`, [after]));
    } finally {
      await pg.close();
    }
  });
});
