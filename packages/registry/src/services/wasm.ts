/**
 * A small WebAssembly binary reader: enough to prove a module is well formed
 * at the section level and to list its imports, without compiling or running
 * anything. Full validation is left to WebAssembly.validate afterwards.
 */

export type ImportKind = 'function' | 'table' | 'memory' | 'global' | 'tag';

export interface WasmImport {
  module: string;
  name: string;
  kind: ImportKind;
}

/** Initial and maximum size: pages of 64 KiB for a memory, elements for a table. */
export interface Limits {
  min: number;
  max?: number;
}

/** What admission looks at: imports, and the memories and tables the module defines itself. */
export interface WasmInspection {
  imports: WasmImport[];
  memories: Limits[];
  tables: Limits[];
}

export class WasmFormatError extends Error {
  override name = 'WasmFormatError';
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d];
const SECTION_NAMES = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'data count', 'tag'];
const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly end: number,
    readonly where: string,
  ) {}

  fail(what: string): never {
    throw new WasmFormatError(`${what} in ${this.where} at byte ${this.pos}`);
  }

  byte(): number {
    if (this.pos >= this.end) this.fail('unexpected end');
    return this.bytes[this.pos++];
  }

  /** Unsigned LEB128 of at most `bits` bits (32 or 64). */
  uleb(bits = 32): number {
    const start = this.pos;
    const maxBytes = Math.ceil(bits / 7);
    let result = 0;
    let shift = 0;
    for (let i = 0; i < maxBytes; i++) {
      if (this.pos >= this.end) {
        this.pos = start;
        this.fail('truncated LEB128 integer');
      }
      const b = this.bytes[this.pos++];
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (bits === 32 && result > 0xffffffff) {
          this.pos = start;
          this.fail('integer too large');
        }
        return result;
      }
      shift += 7;
    }
    this.pos = start;
    this.fail('LEB128 integer too long');
  }

  name(): string {
    const len = this.uleb();
    if (this.pos + len > this.end) this.fail(`name of ${len} bytes runs past the end`);
    const start = this.pos;
    this.pos += len;
    try {
      return utf8.decode(this.bytes.subarray(start, start + len));
    } catch {
      this.pos = start;
      this.fail('name is not valid UTF-8');
    }
  }

  limits(has64: boolean): Limits {
    const flags = this.byte();
    if (flags > (has64 ? 7 : 1)) this.fail(`bad limits flags 0x${flags.toString(16)}`);
    const bits = flags & 4 ? 64 : 32;
    const min = this.uleb(bits);
    return flags & 1 ? { min, max: this.uleb(bits) } : { min };
  }
}

function readImport(r: Reader): WasmImport {
  const module = r.name();
  const name = r.name();
  const kindByte = r.byte();
  switch (kindByte) {
    case 0x00:
      r.uleb();
      return { module, name, kind: 'function' };
    case 0x01:
      r.byte(); // reference type
      r.limits(false);
      return { module, name, kind: 'table' };
    case 0x02:
      r.limits(true);
      return { module, name, kind: 'memory' };
    case 0x03: {
      r.byte(); // value type
      const mut = r.byte();
      if (mut > 1) r.fail(`bad global mutability ${mut}`);
      return { module, name, kind: 'global' };
    }
    case 0x04:
      r.byte(); // attribute
      r.uleb();
      return { module, name, kind: 'tag' };
    default:
      r.pos--;
      r.fail(`unknown import kind 0x${kindByte.toString(16)}`);
  }
}

/**
 * Checks the header and every section's bounds and returns the imports.
 * Throws WasmFormatError with the problem and its byte offset.
 */
export function readWasmImports(bytes: Uint8Array): WasmImport[] {
  return inspectWasm(bytes).imports;
}

/** Checks the header and every section's bounds; returns the imports and the defined memories and tables. */
export function inspectWasm(bytes: Uint8Array): WasmInspection {
  if (bytes.length < 8) throw new WasmFormatError(`module is ${bytes.length} bytes, shorter than the 8-byte header`);
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== MAGIC[i]) throw new WasmFormatError('missing the \\0asm magic number at byte 0');
  }
  const version = bytes[4] | (bytes[5] << 8) | (bytes[6] << 16) | (bytes[7] << 24);
  if (version !== 1) throw new WasmFormatError(`unsupported binary version ${version >>> 0} at byte 4 (expected 1)`);

  const imports: WasmImport[] = [];
  const memories: Limits[] = [];
  const tables: Limits[] = [];
  const top = new Reader(bytes, 8, bytes.length, 'module');
  let sawImports = false;
  while (top.pos < bytes.length) {
    const sectionStart = top.pos;
    const id = top.byte();
    if (id >= SECTION_NAMES.length) {
      top.pos = sectionStart;
      top.fail(`unknown section id ${id}`);
    }
    const size = top.uleb();
    const bodyStart = top.pos;
    if (bodyStart + size > bytes.length) {
      throw new WasmFormatError(
        `truncated section ${id} (${SECTION_NAMES[id]}) at byte ${sectionStart}: declares ${size} bytes, ${bytes.length - bodyStart} present`,
      );
    }
    const body = new Reader(bytes, bodyStart, bodyStart + size, `section ${id} (${SECTION_NAMES[id]})`);
    if (id === 0) {
      body.name(); // a custom section must at least carry a valid name
    } else if (id === 2) {
      if (sawImports) body.fail('duplicate import section');
      sawImports = true;
      const count = body.uleb();
      for (let i = 0; i < count; i++) imports.push(readImport(body));
      if (body.pos !== body.end) body.fail(`${body.end - body.pos} unexpected trailing bytes`);
    } else if (id === 4) {
      const count = body.uleb();
      for (let i = 0; i < count; i++) {
        body.byte(); // reference type
        tables.push(body.limits(false));
      }
    } else if (id === 5) {
      const count = body.uleb();
      for (let i = 0; i < count; i++) memories.push(body.limits(true));
    }
    top.pos = bodyStart + size;
  }
  return { imports, memories, tables };
}

/** Admission limits (docs/registry.md): 1 GiB of initial memory, 4 GiB declared maximum, 100,000 table elements. */
export const WASM_LIMITS = { memoryMinPages: 16_384, memoryMaxPages: 65_536, tableMaxElements: 100_000 } as const;

/** What of the module's own memories and tables exceeds the admission limits (empty: none). */
export function resourceProblems(w: WasmInspection): string[] {
  const out: string[] = [];
  w.memories.forEach((m, i) => {
    if (m.min > WASM_LIMITS.memoryMinPages) out.push(`memory ${i} starts at ${m.min} pages (limit ${WASM_LIMITS.memoryMinPages})`);
    if (m.max !== undefined && m.max > WASM_LIMITS.memoryMaxPages) out.push(`memory ${i} may grow to ${m.max} pages (limit ${WASM_LIMITS.memoryMaxPages})`);
  });
  w.tables.forEach((t, i) => {
    if (t.min > WASM_LIMITS.tableMaxElements || (t.max ?? 0) > WASM_LIMITS.tableMaxElements) {
      out.push(`table ${i} declares more than ${WASM_LIMITS.tableMaxElements} elements`);
    }
  });
  return out;
}

/** Compiles a glob (`*` = any run of characters, all else literal) to a RegExp. */
export function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 's');
}

/**
 * The allowlist as a test of one import. A pattern `module.name` is split at its first dot: the module must
 * equal the import's module exactly (so `platform.*` does not admit module `platform.evil`), the name part is
 * a glob over the import's name. Only function imports are admitted (a module brings its own memory, tables
 * and globals), never an empty name, nor a module or name with control characters.
 */
export function importAllowlist(patterns: string[]): (imp: WasmImport) => boolean {
  const rules = patterns.map((p) => {
    const dot = p.indexOf('.');
    return { module: p.slice(0, dot), name: globToRegExp(p.slice(dot + 1)) };
  });
  return (imp) =>
    imp.kind === 'function' &&
    imp.name.length > 0 &&
    !CONTROL.test(imp.module) &&
    !CONTROL.test(imp.name) &&
    rules.some((r) => r.module === imp.module && r.name.test(imp.name));
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `module.name (kind)` with control characters escaped, safe to show and to store. */
export function describeImport(imp: WasmImport): string {
  const esc = (t: string) => t.replace(/[\u0000-\u001f\u007f-\u009f\\]/g, (c) => (c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  const q = `${esc(imp.module)}.${esc(imp.name)}`;
  return imp.kind === 'function' ? q : `${q} (${imp.kind})`;
}
