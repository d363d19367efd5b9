// The wasm binary reader and the allowlist globs, byte by byte.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, importAllowlist, readWasmImports, WasmFormatError } from '../src/services/wasm.js';
import { allowedWat, wat2wasm } from './wasm.js';

const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

describe('wasm reader', () => {
  it('lists imports of every kind', () => {
    const bytes = wat2wasm(`(module
      (import "a" "f" (func))
      (import "a" "t" (table 1 funcref))
      (import "a" "m" (memory 1 2))
      (import "a" "g" (global (mut i32))))`);
    assert.deepEqual(readWasmImports(bytes), [
      { module: 'a', name: 'f', kind: 'function' },
      { module: 'a', name: 't', kind: 'table' },
      { module: 'a', name: 'm', kind: 'memory' },
      { module: 'a', name: 'g', kind: 'global' },
    ]);
    assert.equal(readWasmImports(Buffer.from(header)).length, 0);
  });

  it('reports every truncation of a real module with a byte offset', () => {
    const bytes = wat2wasm(allowedWat);
    // Section boundaries: a cut exactly there leaves a shorter, well-formed module.
    const boundaries = new Set<number>([8]);
    for (let pos = 8; pos < bytes.length; ) {
      let size = 0;
      let shift = 0;
      let i = pos + 1;
      for (;;) {
        const b = bytes[i++];
        size |= (b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
      }
      pos = i + size;
      boundaries.add(pos);
    }
    assert.ok(boundaries.size > 4);
    for (let n = 0; n < bytes.length; n++) {
      if (boundaries.has(n)) continue;
      assert.throws(() => readWasmImports(bytes.subarray(0, n)), (err: Error) => err instanceof WasmFormatError && /byte \d+|shorter than/.test(err.message), `cut at ${n}`);
    }
    assert.equal(readWasmImports(bytes).length, 4);
  });

  it('names the problem', () => {
    const cases: [number[], RegExp][] = [
      [[1, 2, 3], /shorter than the 8-byte header/],
      [[0x7f, 0x45, 0x4c, 0x46, 1, 0, 0, 0], /magic/],
      [[...header, 0x0e, 0x00], /unknown section id 14 in module at byte 8/],
      [[...header, 0x02, 0x05, 0x01], /truncated section 2 \(import\) at byte 8: declares 5 bytes, 1 present/],
      [[...header, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f], /LEB128 integer too long|integer too large/],
      [[...header, 0x02, 0x04, 0x01, 0x01, 0x61, 0x05], /name of 5 bytes runs past the end in section 2/],
      [[...header, 0x02, 0x06, 0x01, 0x01, 0x61, 0x01, 0x62, 0x09], /unknown import kind 0x9 in section 2 \(import\) at byte 15/],
      [[...header, 0x02, 0x03, 0x01, 0x01, 0xff], /not valid UTF-8/],
      [[...header, 0x02, 0x08, 0x01, 0x01, 0x61, 0x01, 0x62, 0x00, 0x00, 0x00], /1 unexpected trailing bytes/],
    ];
    for (const [bytes, re] of cases) assert.throws(() => readWasmImports(Uint8Array.from(bytes)), re);
  });

  it('matches globs literally except for *', () => {
    assert.ok(globToRegExp('platform.*').test('platform.log'));
    assert.ok(!globToRegExp('platform.*').test('platformXlog'));
    assert.ok(!globToRegExp('platform.*').test('env.platform.log'));
    assert.ok(globToRegExp('a.b(c)').test('a.b(c)'));
    const allow = importAllowlist(['wasi_snapshot_preview1.fd_*', 'env.memory']);
    const fn = (module: string, name: string) => ({ module, name, kind: 'function' as const });
    assert.ok(allow(fn('wasi_snapshot_preview1', 'fd_write')));
    assert.ok(allow(fn('env', 'memory')));
    assert.ok(!allow(fn('env', 'system')));
  });

  it('matches the module exactly and the name by pattern; functions only; no empty or control-character names', () => {
    const allow = importAllowlist(['platform.*']);
    const imp = (module: string, name: string, kind: 'function' | 'memory' | 'table' | 'global' = 'function') => ({ module, name, kind });
    assert.ok(allow(imp('platform', 'log')));
    assert.ok(!allow(imp('platform.evil', 'x')), 'module platform.evil is not module platform');
    assert.ok(!allow(imp('platform', '')), 'empty name');
    assert.ok(!allow(imp('platform', 'memory', 'memory')), 'a memory import');
    assert.ok(!allow(imp('platform', 'table', 'table')));
    assert.ok(!allow(imp('platform', 'g', 'global')));
    assert.ok(!allow(imp('platform', 'a\u0000b')), 'NUL in a name');
    assert.ok(!allow(imp('platform', 'line\nbreak')));
    assert.ok(!allow(imp('Platform', 'log')), 'case matters');
  });
});
