// Server-module uploads: wasm admission by import scan, native metadata, versions, limits.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { assertError, bearer, createGame, harness, useHarness, loginAdmin, registerDeveloper, type CreatedGame, type Dev, type Harness } from './helpers.js';
import { allowedWat, forbiddenWat, wat2wasm } from './wasm.js';

describe('module builds', () => {
  let h: Harness;
  let a: Dev;
  let b: Dev;
  let game: CreatedGame;
  const allowed = wat2wasm(allowedWat);
  const forbidden = wat2wasm(forbiddenWat);
  const upload = (payload: unknown, token = a.token, gameId = game.gameId) =>
    h.app.inject({ method: 'POST', url: `/games/${gameId}/modules`, headers: bearer(token), payload: payload as object });
  const wasm = (bytes: Buffer, Version = '1.0.0') => ({ Packaging: 'wasm', Version, WasmBase64: bytes.toString('base64') });
  const count = async () => (await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM module_builds')).rows[0].n;
  const blobCount = () => (existsSync(h.blobDir) ? readdirSync(h.blobDir, { recursive: true }).filter((f) => String(f).length > 60).length : 0);

  before(async () => {
    // A small limit keeps the oversize tests cheap.
    h = await harness({ moduleMaxBytes: 64 * 1024 });
    [a, b] = await Promise.all([registerDeveloper(h.app), registerDeveloper(h.app)]);
    game = await createGame(h.app, a.token);
  });
  after(() => h.drop());

  it('admits a module importing only allowed functions and stores its bytes', async () => {
    const r = await upload(wasm(allowed, '1.0.0'));
    assert.equal(r.statusCode, 201, r.body);
    const build = r.json();
    const sha = createHash('sha256').update(allowed).digest('hex');
    assert.deepEqual(
      { ...build, BuildId: undefined, CreatedAt: undefined },
      {
        BuildId: undefined,
        CreatedAt: undefined,
        GameId: game.gameId,
        Packaging: 'wasm',
        Version: '1.0.0',
        SizeBytes: allowed.length,
        Sha256: sha,
        Admitted: true,
        Schedulable: true,
        Imports: ['wasi_snapshot_preview1.fd_write', 'wasi_snapshot_preview1.clock_time_get', 'platform.log', 'platform.send'],
      },
    );
    assert.match(build.BuildId, /^[0-9a-f-]{36}$/);
    assert.equal(new Date(build.CreatedAt).toISOString(), build.CreatedAt);
    assert.deepEqual(readFileSync(path.join(h.blobDir, sha.slice(0, 2), sha)), allowed);
    const list = (await h.app.inject({ url: `/games/${game.gameId}/modules`, headers: bearer(a.token) })).json();
    assert.deepEqual(list, [build]);
  });

  it('rejects forbidden imports, names them, and stores nothing', async () => {
    const before = [await count(), blobCount()];
    const body = assertError(await upload(wasm(forbidden, '9.0.0')), 400, 'imports_not_allowed');
    assert.deepEqual(body.OffendingImports, ['env.system', 'wasi_snapshot_preview1.path_open']);
    assert.match(body.Message, /env\.system/);
    assert.deepEqual([await count(), blobCount()], before);
  });

  it('rejects malformed modules with invalid_wasm naming the problem', async () => {
    const before = [await count(), blobCount()];
    const truncated = allowed.subarray(0, 40);
    let body = assertError(await upload(wasm(truncated, '9.0.1')), 400, 'invalid_wasm');
    assert.match(body.Message, /truncated section \d+ .* at byte \d+/);
    body = assertError(await upload(wasm(randomBytes(300), '9.0.2')), 400, 'invalid_wasm');
    assert.match(body.Message, /magic/);
    body = assertError(await upload(wasm(Buffer.from('0061736d02000000', 'hex'), '9.0.3')), 400, 'invalid_wasm');
    assert.match(body.Message, /version 2/);
    body = assertError(await upload(wasm(Buffer.alloc(0), '9.0.4')), 400, 'invalid_wasm');
    // Well-formed sections but a broken function body: caught by full validation.
    const broken = wat2wasm('(module (func (export "f") (result i32) i32.const 1))');
    const code = broken.lastIndexOf(0x41); // i32.const opcode → an unknown one
    broken[code] = 0xff;
    assertError(await upload(wasm(broken, '9.0.5')), 400, 'invalid_wasm');
    assert.deepEqual([await count(), blobCount()], before);
  });

  it('requires strict base64', async () => {
    for (const s of ['not base64!', 'AGFzbQEAAAA', 'AGFzbQEAAAA=\n', 'AGFzbQEAAAB=', 'AG-zbQEAAAA=']) {
      assertError(await upload({ Packaging: 'wasm', Version: '3.0.0', WasmBase64: s }), 400, 'invalid_base64');
    }
  });

  it('enforces the size limit with 413', async () => {
    const big = Buffer.concat([Buffer.from('0061736d01000000', 'hex'), Buffer.alloc(64 * 1024)]);
    assertError(await upload(wasm(big, '4.0.0')), 413, 'module_too_large');
    const huge = Buffer.alloc(200 * 1024);
    assertError(await upload(wasm(huge, '4.0.1')), 413, 'payload_too_large');
  });

  it('validates Version as SemVer and refuses a repeated one', async () => {
    for (const v of ['1', '1.0', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0+', 'latest', '', `1.0.0-${'a'.repeat(60)}`]) {
      assertError(await upload(wasm(allowed, v)), 400, 'invalid_version');
    }
    assert.equal((await upload(wasm(allowed, '1.2.3-beta.1+build.5'))).statusCode, 201);
    assertError(await upload(wasm(allowed, '1.2.3-beta.1+build.5')), 409, 'version_exists');
    const [x, y] = await Promise.all([upload(wasm(allowed, '5.5.5')), upload(wasm(allowed, '5.5.5'))]);
    assert.deepEqual([x.statusCode, y.statusCode].sort(), [201, 409]);
  });

  it('records native builds as metadata only, not schedulable', async () => {
    const r = await upload({ Packaging: 'native', Version: '6.0.0' });
    assert.equal(r.statusCode, 201);
    assert.equal(r.json().Packaging, 'native');
    assert.equal(r.json().Admitted, true);
    assert.equal(r.json().Schedulable, false);
    assert.equal(r.json().SizeBytes, 0);
    assert.equal(r.json().Sha256, null);
    assert.deepEqual(r.json().Imports, []);
    assertError(await upload({ Packaging: 'native', Version: '6.0.1', WasmBase64: allowed.toString('base64') }), 400, 'native_has_no_wasm');
    assertError(await upload({ Packaging: 'native', Version: '6.0.0' }), 409, 'version_exists');
  });

  it('validates the upload body', async () => {
    assertError(await upload({ Packaging: 'wasm', Version: '7.0.0' }), 400, 'wasm_required');
    for (const payload of [
      { Version: '7.0.0' },
      { Packaging: 'elf', Version: '7.0.0' },
      { Packaging: 'wasm' },
      { Packaging: 'wasm', Version: 7 },
      { Packaging: 'wasm', Version: '7.0.0', WasmBase64: 12 },
      { ...wasm(allowed, '7.0.0'), Extra: 1 },
    ]) {
      assertError(await upload(payload), 400, 'validation_failed');
    }
    assertError(
      await h.app.inject({ method: 'POST', url: `/games/${game.gameId}/modules`, headers: { ...bearer(a.token), 'content-type': 'application/json' }, payload: '{"Packaging"' }),
      400,
      'malformed_json',
    );
  });

  it('scopes builds to the game owner and the super-admin', async () => {
    const admin = await loginAdmin(h.app);
    assertError(await h.app.inject({ method: 'POST', url: `/games/${game.gameId}/modules`, payload: wasm(allowed, '8.0.0') }), 401, 'unauthorized');
    assertError(await upload(wasm(allowed, '8.0.0'), b.token), 404, 'game_not_found');
    assertError(await h.app.inject({ url: `/games/${game.gameId}/modules`, headers: bearer(b.token) }), 404, 'game_not_found');
    assertError(await h.app.inject({ url: `/games/${game.gameId}/modules` }), 401, 'unauthorized');
    assertError(await upload(wasm(allowed, '8.0.0'), a.token, 'nope'), 404, 'game_not_found');
    assert.equal((await upload(wasm(allowed, '8.0.0'), admin.token)).statusCode, 201);
    assert.ok((await h.app.inject({ url: `/games/${game.gameId}/modules`, headers: bearer(admin.token) })).json().length >= 2);
  });

  it('applies a configured allowlist', async () => {
    const strict = await h.build({ importAllowlist: ['platform.log', 'wasi_snapshot_preview1.fd_*'] });
    const r = await strict.inject({ method: 'POST', url: `/games/${game.gameId}/modules`, headers: bearer(a.token), payload: wasm(allowed, '10.0.0') });
    const body = assertError(r, 400, 'imports_not_allowed');
    assert.deepEqual(body.OffendingImports, ['wasi_snapshot_preview1.clock_time_get', 'platform.send']);
  });
});

// Admission at the default settings: allowlist rules, memory and table limits, the 8 MiB size limit.
describe('module admission at the default settings', () => {
  const h = useHarness();
  let dev: Dev;
  let game: CreatedGame;
  before(async () => {
    dev = await registerDeveloper(h.app);
    game = await createGame(h.app, dev.token);
  });
  const upload = (bytes: Buffer, Version: string) =>
    h.app.inject({
      method: 'POST',
      url: `/games/${game.gameId}/modules`,
      headers: bearer(dev.token),
      payload: { Packaging: 'wasm', Version, WasmBase64: bytes.toString('base64') },
    });
  const up = (wat: string, Version: string) => upload(wat2wasm(wat), Version);

  it('refuses a look-alike module, an empty name, non-function imports and control characters, naming them escaped', async () => {
    const cases: [string, string[]][] = [
      ['(module (import "platform.evil" "x" (func)))', ['platform.evil.x']],
      ['(module (import "platform" "" (func)))', ['platform.']],
      ['(module (import "platform" "mem" (memory 1)))', ['platform.mem (memory)']],
      ['(module (import "platform" "tbl" (table 1 funcref)))', ['platform.tbl (table)']],
      ['(module (import "platform" "a\\00b" (func)))', ['platform.a\\u0000b']],
    ];
    for (const [i, [wat, offending]] of cases.entries()) {
      const body = assertError(await up(wat, `6.0.${i}`), 400, 'imports_not_allowed');
      assert.deepEqual(body.OffendingImports, offending, wat);
    }
    const ok = await up('(module (import "platform" "log" (func)))', '6.1.0');
    assert.equal(ok.statusCode, 201, ok.body);
    assert.deepEqual(ok.json().Imports, ['platform.log']);
  });

  it('admits 1 GiB of initial memory, a 4 GiB maximum, 100,000 table elements and a start function; refuses more', async () => {
    for (const [i, wat] of ['(module (memory 16384 65536))', '(module (table 100000 funcref))', '(module (func $init) (start $init))'].entries()) {
      const r = await up(wat, `7.0.${i}`);
      assert.equal(r.statusCode, 201, `${wat}: ${r.body}`);
    }
    for (const [i, wat] of ['(module (memory 16385))', '(module (table 100001 funcref))', '(module (table 1 100001 funcref))'].entries()) {
      const body = assertError(await up(wat, `7.1.${i}`), 400, 'module_limits');
      assert.equal(body.Problems.length, 1, wat);
    }
  });

  const leb128 = (n: number) => {
    const out: number[] = [];
    do {
      let byte = n & 0x7f;
      n >>>= 7;
      if (n) byte |= 0x80;
      out.push(byte);
    } while (n);
    return Buffer.from(out);
  };
  /** A valid module of exactly `total` bytes: the header and one custom section filling the rest. */
  const moduleOf = (total: number) => {
    const header = Buffer.from('0061736d01000000', 'hex');
    const name = Buffer.from([1, 0x78]); // name "x"
    let payload = total - header.length - 1 - name.length;
    // The section's size field takes some of the bytes: shrink until header + id + size + content fit exactly.
    while (1 + leb128(payload + name.length).length + name.length + payload + header.length > total) payload--;
    return Buffer.concat([header, Buffer.from([0]), leb128(name.length + payload), name, Buffer.alloc(payload)]);
  };

  it('admits modules of 3, 4, 6 and 8 MiB and refuses one byte more with 413', async () => {
    const MiB = 1024 * 1024;
    for (const [i, size] of [3 * MiB, 4 * MiB, 6 * MiB, 8 * MiB].entries()) {
      const bytes = moduleOf(size);
      assert.equal(bytes.length, size);
      const r = await upload(bytes, `5.0.${i}`);
      assert.equal(r.statusCode, 201, `${size}: ${r.body.slice(0, 200)}`);
      assert.equal(r.json().SizeBytes, size);
    }
    assertError(await upload(moduleOf(8 * MiB + 1), '5.1.0'), 413, 'module_too_large');
  });
});
