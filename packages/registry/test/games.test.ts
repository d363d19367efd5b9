// Games: CRUD, developer scoping, settings, visibility, registrations, deletion.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { assertError, bearer, createGame, useHarness, loginAdmin, registerDeveloper, type Dev } from './helpers.js';

describe('games', () => {
  const h = useHarness();
  let a: Dev;
  let b: Dev;
  let admin: Dev;
  before(async () => {
    [a, b, admin] = await Promise.all([registerDeveloper(h.app), registerDeveloper(h.app), loginAdmin(h.app)]);
  });

  it('creates a game with a key, a secret shown once and defaults', async () => {
    const r = await h.app.inject({ method: 'POST', url: '/games', headers: bearer(a.token), payload: { DisplayName: 'Space Race', LaunchCommand: './run --fast' } });
    assert.equal(r.statusCode, 201);
    const { Game, ApiSecret } = r.json();
    assert.match(Game.GameId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(Game.DeveloperId, a.id);
    assert.equal(Game.DisplayName, 'Space Race');
    assert.equal(Game.LaunchCommand, './run --fast');
    assert.deepEqual(Game.Settings, {});
    assert.equal(Game.CrossGameVisibility, 'isolated');
    assert.equal(Game.GuestRestricted, null);
    assert.equal(Game.GroupLimits, null);
    assert.equal(Game.PlatformFriends, 'suggest');
    assert.match(Game.ApiKey, /^gk_[A-Za-z0-9_-]{32}$/);
    assert.match(ApiSecret, /^gs_[A-Za-z0-9_-]{43}$/);
    assert.equal(new Date(Game.CreatedAt).toISOString(), Game.CreatedAt);
    assert.deepEqual(Object.keys(Game).sort(), ['ApiKey', 'ClientKey', 'CreatedAt', 'CrossGameVisibility', 'DeveloperId', 'DisplayName', 'GameId', 'GroupLimits', 'GuestRestricted', 'LaunchCommand', 'PlatformFriends', 'Settings', 'UpdatedAt']);
    // The secret is stored only as its SHA-256 and never shown again.
    const row = (await h.db.query('SELECT api_secret_hash FROM games WHERE id = $1', [Game.GameId])).rows[0];
    assert.match(row.api_secret_hash, /^[0-9a-f]{64}$/);
    assert.ok(!row.api_secret_hash.includes(ApiSecret));
    const again = await h.app.inject({ url: `/games/${Game.GameId}`, headers: bearer(a.token) });
    assert.ok(!again.body.includes(ApiSecret));
    assert.equal(again.json().LaunchCommand, './run --fast');
    const noLaunch = await createGame(h.app, a.token);
    assert.equal((await h.app.inject({ url: `/games/${noLaunch.gameId}`, headers: bearer(a.token) })).json().LaunchCommand, null);
  });

  it('validates the creation body', async () => {
    for (const payload of [{}, { DisplayName: '' }, { DisplayName: 'x'.repeat(101) }, { DisplayName: 5 }, { DisplayName: 'a', LaunchCommand: 7 }, { DisplayName: 'a', Extra: true }, { DisplayName: '  ' }]) {
      assertError(await h.app.inject({ method: 'POST', url: '/games', headers: bearer(a.token), payload }), 400, 'validation_failed');
    }
    assertError(await h.app.inject({ method: 'POST', url: '/games', headers: { ...bearer(a.token), 'content-type': 'application/json' }, payload: '{' }), 400, 'malformed_json');
    assertError(await h.app.inject({ method: 'POST', url: '/games', headers: bearer(a.token), payload: { DisplayName: 'x'.repeat(70_000) } }), 413, 'payload_too_large');
    assertError(await h.app.inject({ method: 'POST', url: '/games', payload: { DisplayName: 'a' } }), 401, 'unauthorized');
    assertError(
      await h.app.inject({ method: 'POST', url: '/games', headers: { ...bearer(a.token), 'content-type': 'application/xml' }, payload: '<a/>' }),
      415,
      'unsupported_media_type',
    );
  });

  it('scopes games to their developer; the super-admin sees all', async () => {
    const ga = await createGame(h.app, a.token, 'A game');
    const gb = await createGame(h.app, b.token, 'B game');
    const listA = (await h.app.inject({ url: '/games', headers: bearer(a.token) })).json();
    assert.ok(listA.some((g: any) => g.GameId === ga.gameId));
    assert.ok(listA.every((g: any) => g.DeveloperId === a.id));
    const listAdmin = (await h.app.inject({ url: '/games', headers: bearer(admin.token) })).json();
    assert.ok(listAdmin.some((g: any) => g.GameId === ga.gameId) && listAdmin.some((g: any) => g.GameId === gb.gameId));
    assertError(await h.app.inject({ url: '/games' }), 401, 'unauthorized');

    // Access matrix for every per-game route: anonymous, owner, other developer, super-admin.
    const routes: [string, string, object | undefined][] = [
      ['GET', '', undefined],
      ['PATCH', '', { DisplayName: 'Renamed' }],
      ['GET', '/users', undefined],
      ['GET', '/modules', undefined],
      ['POST', '/regenerate-key', undefined],
    ];
    for (const [method, suffix, payload] of routes) {
      const url = `/games/${ga.gameId}${suffix}`;
      assertError(await h.app.inject({ method: method as 'GET', url, payload }), 401, 'unauthorized');
      assert.equal((await h.app.inject({ method: method as 'GET', url, payload, headers: bearer(a.token) })).statusCode, 200, `${method} ${suffix} as owner`);
      const other = assertError(await h.app.inject({ method: method as 'GET', url, payload, headers: bearer(b.token) }), 404, 'game_not_found');
      const missing = assertError(
        await h.app.inject({ method: method as 'GET', url: `/games/${randomUUID()}${suffix}`, payload, headers: bearer(b.token) }),
        404,
        'game_not_found',
      );
      assert.equal(other.Message, missing.Message);
      assertError(await h.app.inject({ method: method as 'GET', url: `/games/not-a-uuid${suffix}`, payload, headers: bearer(a.token) }), 404, 'game_not_found');
      assert.equal((await h.app.inject({ method: method as 'GET', url, payload, headers: bearer(admin.token) })).statusCode, 200, `${method} ${suffix} as admin`);
    }
    assertError(await h.app.inject({ method: 'DELETE', url: `/games/${ga.gameId}` }), 401, 'unauthorized');
    assertError(await h.app.inject({ method: 'DELETE', url: `/games/${ga.gameId}`, headers: bearer(b.token) }), 404, 'game_not_found');
    assertError(await h.app.inject({ method: 'DELETE', url: '/games/123', headers: bearer(a.token) }), 404, 'game_not_found');
    assert.equal((await h.app.inject({ method: 'DELETE', url: `/games/${gb.gameId}`, headers: bearer(admin.token) })).statusCode, 204);
  });

  it('patches fields one by one; Settings is replaced whole; LaunchCommand null clears', async () => {
    const g = await createGame(h.app, a.token);
    const patch = (payload: unknown) => h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(a.token), payload: payload as object });
    let r = await patch({ Settings: { MaxPlayers: 8, Modes: ['duel'], Nested: { Ok: true } }, LaunchCommand: 'go' });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json().Settings, { MaxPlayers: 8, Modes: ['duel'], Nested: { Ok: true } });
    assert.equal(r.json().LaunchCommand, 'go');
    r = await patch({ DisplayName: 'New name' });
    assert.equal(r.json().DisplayName, 'New name');
    assert.equal(r.json().LaunchCommand, 'go');
    assert.equal(r.json().Settings.MaxPlayers, 8);
    assert.ok(r.json().UpdatedAt >= r.json().CreatedAt);
    r = await patch({ Settings: { Only: 1 }, LaunchCommand: null });
    assert.deepEqual(r.json().Settings, { Only: 1 });
    assert.equal(r.json().LaunchCommand, null);
    for (const v of ['summary', 'full', 'isolated']) {
      r = await patch({ CrossGameVisibility: v });
      assert.equal(r.json().CrossGameVisibility, v);
    }
    r = await patch({});
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().DisplayName, 'New name');
  });

  it('GuestRestricted: the game’s own list of social features refused to guests (deduplicated), [] for none, null for the deployment’s', async () => {
    const g = await createGame(h.app, a.token);
    const patch = (payload: unknown, token = a.token, id = g.gameId) => h.app.inject({ method: 'PATCH', url: `/games/${id}`, headers: bearer(token), payload: payload as object });
    let r = await patch({ GuestRestricted: ['party_create', 'reports', 'party_create'] });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().GuestRestricted, ['party_create', 'reports']);
    r = await h.app.inject({ method: 'GET', url: `/games/${g.gameId}`, headers: bearer(a.token) });
    assert.deepEqual(r.json().GuestRestricted, ['party_create', 'reports']);
    // Other fields leave it as it is.
    r = await patch({ DisplayName: 'Still restricted' });
    assert.deepEqual(r.json().GuestRestricted, ['party_create', 'reports']);
    r = await patch({ GuestRestricted: [] });
    assert.deepEqual(r.json().GuestRestricted, []);
    r = await patch({ GuestRestricted: null });
    assert.equal(r.json().GuestRestricted, null);
    // Only social's features (change_email is auth's, for every guest), no junk, not another developer's game.
    for (const bad of [{ GuestRestricted: ['change_email'] }, { GuestRestricted: ['nope'] }, { GuestRestricted: 'reports' }, { GuestRestricted: [1] }, { GuestRestricted: Array(17).fill('reports') }]) {
      assertError(await patch(bad), 400, 'validation_failed');
    }
    assertError(await patch({ GuestRestricted: ['reports\u0000'] }), 400, 'invalid_character');
    assertError(await patch({ GuestRestricted: ['reports'] }, b.token), 404, 'game_not_found');
    // The super-admin may set it on any game.
    r = await patch({ GuestRestricted: ['reports'] }, admin.token);
    assert.deepEqual(r.json().GuestRestricted, ['reports']);
  });

  it('GroupLimits: the game’s limits of social’s groups, each optional, null for the deployment’s; validate-key carries them', async () => {
    const g = await createGame(h.app, a.token);
    const patch = (payload: unknown, token = a.token, id = g.gameId) => h.app.inject({ method: 'PATCH', url: `/games/${id}`, headers: bearer(token), payload: payload as object });
    const validate = async () => (await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: g.apiKey, ApiSecret: g.apiSecret } })).json();
    assert.equal((await validate()).GroupLimits, null);
    let r = await patch({ GroupLimits: { PerPlayer: 1, CreatedPerDay: 0, MaxMemberLimit: 500 } });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().GroupLimits, { PerPlayer: 1, CreatedPerDay: 0, MaxMemberLimit: 500 });
    assert.deepEqual((await validate()).GroupLimits, { PerPlayer: 1, CreatedPerDay: 0, MaxMemberLimit: 500 }, 'the cached context was dropped');
    r = await patch({ DisplayName: 'Clans' });
    assert.deepEqual(r.json().GroupLimits, { PerPlayer: 1, CreatedPerDay: 0, MaxMemberLimit: 500 }, 'other fields leave it');
    r = await patch({ GroupLimits: { DefaultMemberLimit: 5000, MaxMemberLimit: 5000 } });
    assert.deepEqual(r.json().GroupLimits, { DefaultMemberLimit: 5000, MaxMemberLimit: 5000 }, 'replaced whole');
    r = await patch({ GroupLimits: {} });
    assert.deepEqual(r.json().GroupLimits, {});
    r = await patch({ GroupLimits: null });
    assert.equal(r.json().GroupLimits, null);
    assert.equal((await validate()).GroupLimits, null);
    for (const bad of [
      { GroupLimits: { PerPlayer: 0 } },
      { GroupLimits: { PerPlayer: 101 } },
      { GroupLimits: { CreatedPerDay: -1 } },
      { GroupLimits: { MaxMemberLimit: 5001 } },
      { GroupLimits: { DefaultMemberLimit: 1 } },
      { GroupLimits: { PerPlayer: 1.5 } },
      { GroupLimits: { PerPlayer: '2' } },
      { GroupLimits: { Members: 3 } },
      { GroupLimits: [1] },
      { GroupLimits: 'none' },
      { GroupLimits: { DefaultMemberLimit: 600, MaxMemberLimit: 500 } },
    ]) {
      assertError(await patch(bad), 400, 'validation_failed');
    }
    assert.equal((await h.app.inject({ method: 'GET', url: `/games/${g.gameId}`, headers: bearer(a.token) })).json().GroupLimits, null, 'nothing kept from a refused patch');
    assertError(await patch({ GroupLimits: { PerPlayer: 1 } }, b.token), 404, 'game_not_found');
    r = await patch({ GroupLimits: { PerPlayer: 3 } }, admin.token);
    assert.deepEqual(r.json().GroupLimits, { PerPlayer: 3 }, 'the super-admin sets it on any game');
  });

  it('PlatformFriends: off, suggest (default) or befriend; validate-key and validate-client-key carry it at once', async () => {
    const g = await createGame(h.app, a.token);
    const patch = (payload: unknown, token = a.token, id = g.gameId) => h.app.inject({ method: 'PATCH', url: `/games/${id}`, headers: bearer(token), payload: payload as object });
    const validate = async () => (await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: g.apiKey, ApiSecret: g.apiSecret } })).json();
    const byClient = async () => (await h.app.inject({ method: 'POST', url: '/auth/validate-client-key', payload: { ClientKey: g.clientKey } })).json();
    assert.equal((await validate()).PlatformFriends, 'suggest');
    for (const mode of ['befriend', 'off', 'suggest']) {
      const r = await patch({ PlatformFriends: mode });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json().PlatformFriends, mode);
      assert.equal((await validate()).PlatformFriends, mode, 'the cached context was dropped');
      assert.equal((await byClient()).PlatformFriends, mode);
    }
    await patch({ PlatformFriends: 'befriend' });
    assert.equal((await patch({ DisplayName: 'Friends' })).json().PlatformFriends, 'befriend', 'other fields leave it');
    for (const bad of [{ PlatformFriends: null }, { PlatformFriends: 'Befriend' }, { PlatformFriends: '' }, { PlatformFriends: 1 }, { PlatformFriends: ['off'] }]) {
      assertError(await patch(bad), 400, 'validation_failed');
    }
    assertError(await patch({ PlatformFriends: 'off\u0000' }), 400, 'invalid_character');
    assert.equal((await h.app.inject({ method: 'GET', url: `/games/${g.gameId}`, headers: bearer(a.token) })).json().PlatformFriends, 'befriend', 'nothing kept from a refused patch');
    assertError(await patch({ PlatformFriends: 'off' }, b.token), 404, 'game_not_found');
    assert.equal((await patch({ PlatformFriends: 'off' }, admin.token)).json().PlatformFriends, 'off', 'the super-admin sets it on any game');
  });

  it('rejects bad patches', async () => {
    const g = await createGame(h.app, a.token);
    const patch = (payload: unknown) => h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(a.token), payload: payload as object });
    for (const bad of [{ Settings: [1, 2] }, { Settings: null }, { Settings: 'x' }, { Settings: 3 }, { CrossGameVisibility: 'public' }, { CrossGameVisibility: null }, { DisplayName: '' }, { Unknown: 1 }, { DisplayName: 3 }]) {
      assertError(await patch(bad), 400, 'validation_failed');
    }
    assertError(await patch({ Settings: { Blob: 'x'.repeat(16 * 1024) } }), 400, 'settings_too_large');
    assert.equal((await patch({ Settings: { B: 'x'.repeat(16 * 1024 - 10) } })).statusCode, 200);
    assertError(await patch({ Settings: { Blob: 'x'.repeat(70_000) } }), 413, 'payload_too_large');
  });

  it('lists the users registered to a game', async () => {
    const g = await createGame(h.app, a.token);
    const other = await createGame(h.app, b.token);
    assert.deepEqual((await h.app.inject({ url: `/games/${g.gameId}/users`, headers: bearer(a.token) })).json(), []);
    await h.db.query(
      `INSERT INTO user_registrations (game_id, user_id, display_name, registered_at) VALUES ($1, 'user-1', 'Uno', now() - interval '1 minute'), ($1, 'user-2', NULL, now()), ($2, 'user-3', 'Tres', now())`,
      [g.gameId, other.gameId],
    );
    const users = (await h.app.inject({ url: `/games/${g.gameId}/users`, headers: bearer(a.token) })).json();
    assert.deepEqual(users.map((u: any) => [u.UserId, u.DisplayName, u.GameId]), [['user-1', 'Uno', g.gameId], ['user-2', null, g.gameId]]);
    assert.deepEqual(Object.keys(users[0]).sort(), ['DisplayName', 'GameId', 'Id', 'RegisteredAt', 'UserId']);

    assertError(await h.app.inject({ url: '/admin/users' }), 401, 'unauthorized');
    assertError(await h.app.inject({ url: '/admin/users', headers: bearer(a.token) }), 403, 'forbidden');
    const all = (await h.app.inject({ url: '/admin/users', headers: bearer(admin.token) })).json();
    assert.deepEqual(all.map((u: any) => u.UserId).filter((id: string) => id.startsWith('user-')).sort(), ['user-1', 'user-2', 'user-3']);
  });

  it('deletes a game with its builds, registrations and unshared blobs', async () => {
    const wasm = Buffer.from('0061736d01000000', 'hex'); // the empty module
    const shared = await createGame(h.app, a.token);
    const doomed = await createGame(h.app, a.token);
    const upload = (gameId: string, version: string, bytes: Buffer) =>
      h.app.inject({ method: 'POST', url: `/games/${gameId}/modules`, headers: bearer(a.token), payload: { Packaging: 'wasm', Version: version, WasmBase64: bytes.toString('base64') } });
    // A custom section makes bytes only the doomed game holds.
    const own = Buffer.concat([wasm, Buffer.from([0, 4, 3, 0x61, 0x62, 0x63])]);
    const sharedSha = (await upload(shared.gameId, '1.0.0', wasm)).json().Sha256;
    assert.equal((await upload(doomed.gameId, '1.0.0', wasm)).json().Sha256, sharedSha);
    const ownSha = (await upload(doomed.gameId, '2.0.0', own)).json().Sha256;
    await h.db.query(`INSERT INTO user_registrations (game_id, user_id) VALUES ($1, 'u')`, [doomed.gameId]);
    const blob = (sha: string) => path.join(h.blobDir, sha.slice(0, 2), sha);
    assert.ok(existsSync(blob(ownSha)) && existsSync(blob(sharedSha)));

    const r = await h.app.inject({ method: 'DELETE', url: `/games/${doomed.gameId}`, headers: bearer(a.token) });
    assert.equal(r.statusCode, 204);
    assert.equal(r.body, '');
    assertError(await h.app.inject({ url: `/games/${doomed.gameId}`, headers: bearer(a.token) }), 404, 'game_not_found');
    assertError(await h.app.inject({ method: 'DELETE', url: `/games/${doomed.gameId}`, headers: bearer(a.token) }), 404, 'game_not_found');
    const left = async (table: string) => (await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE game_id = $1`, [doomed.gameId])).rows[0].n;
    assert.equal(await left('module_builds'), 0);
    assert.equal(await left('user_registrations'), 0);
    assert.ok(!existsSync(blob(ownSha)), 'the unshared blob is gone');
    assert.ok(existsSync(blob(sharedSha)), 'a blob another game uses stays');
    const v = await h.app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey: doomed.apiKey, ApiSecret: doomed.apiSecret } });
    assert.equal(v.statusCode, 401);
  });

  it('refuses text PostgreSQL cannot store (body values and keys, path, query) and JSON nested too deep, process unharmed', async () => {
    const g = await createGame(h.app, a.token);
    const json = { ...bearer(a.token), 'content-type': 'application/json' };
    const field = (r: { statusCode: number; json(): any; body: string }, code: string) => assertError(r, 400, code).Field;
    assert.equal(field(await h.app.inject({ method: 'POST', url: '/games', headers: bearer(a.token), payload: { DisplayName: 'x\u0000y' } }), 'invalid_character'), 'DisplayName');
    assert.equal(field(await h.app.inject({ method: 'POST', url: '/games', headers: bearer(a.token), payload: { DisplayName: 'half \ud83d pair' } }), 'invalid_character'), 'DisplayName');
    assert.equal(
      field(await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(a.token), payload: { Settings: { Modes: [{ ['k\u0000']: 1 }] } } }), 'invalid_character'),
      'Settings.Modes.0.k\\u0000',
    );
    assert.equal(field(await h.app.inject({ url: '/games/%00', headers: bearer(a.token) }), 'invalid_character'), 'gameId');
    assert.equal(field(await h.app.inject({ url: '/games?handle=%00', headers: bearer(a.token) }), 'invalid_character'), 'handle');
    // Settings nested 6,000 levels deep overflowed the stack (500) before.
    const deep = '{"a":'.repeat(5999) + '{}' + '}'.repeat(5999);
    assertError(await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: json, payload: `{"Settings":${deep}}` }), 400, 'too_deep');
    const fine = await h.app.inject({ method: 'PATCH', url: `/games/${g.gameId}`, headers: bearer(a.token), payload: { Settings: { a: { b: ['\u{1F600}'] } } } });
    assert.equal(fine.statusCode, 200, fine.body);
    assert.deepEqual(fine.json().Settings, { a: { b: ['\u{1F600}'] } });
    assert.equal((await h.app.inject({ url: '/healthz' })).statusCode, 200);
  });
});
