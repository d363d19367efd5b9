/**
 * Server-module builds: admission of wasm modules by import scan, metadata
 * records for native builds.
 */
import { isUniqueViolation, sha256Hex } from '@platform/kit';
import type { Context } from '../context.js';
import { moduleQueries, type ModuleBuildRow } from '../queries/modules.js';
import { describeImport, inspectWasm, resourceProblems, WasmFormatError } from './wasm.js';
import { fail } from '../errors.js';

/** SemVer 2.0.0 (semver.org's recommended expression). */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const VERSION_MAX = 64;

export interface ModuleBuildView {
  BuildId: string;
  GameId: string;
  Packaging: 'wasm' | 'native';
  Version: string;
  SizeBytes: number;
  Sha256: string | null;
  Admitted: boolean;
  Schedulable: boolean;
  Imports: string[];
  CreatedAt: string;
}

export const moduleView = (b: ModuleBuildRow): ModuleBuildView => ({
  BuildId: b.id,
  GameId: b.game_id,
  Packaging: b.packaging,
  Version: b.version,
  SizeBytes: b.size_bytes,
  Sha256: b.sha256,
  Admitted: b.admitted,
  Schedulable: b.schedulable,
  Imports: b.imports,
  CreatedAt: new Date(b.created_at).toISOString(),
});

/** Base64 request body large enough for a module of `maxBytes`, plus room for the other fields. */
export const moduleBodyLimit = (maxBytes: number) => Math.ceil(maxBytes / 3) * 4 + 16 * 1024;

/**
 * Decodes strict, padded standard base64; anything else is refused. No regular expression: a backtracking
 * one over a multi-megabyte string overflowed the stack (500 on modules of 4 MiB and more). Node's decoder
 * skips what is not base64, so the input is base64 exactly when re-encoding the bytes gives it back
 * (characters outside the alphabet, whitespace, URL-safe letters, missing or non-zero padding all differ).
 */
export function decodeBase64Strict(s: string): Buffer {
  if (s.length % 4 !== 0) throw fail('invalid_base64', 'WasmBase64 is not valid padded standard base64');
  const bytes = Buffer.from(s, 'base64');
  if (bytes.toString('base64') !== s) throw fail('invalid_base64', 'WasmBase64 is not valid, canonical, padded standard base64');
  return bytes;
}

async function insert(ctx: Context, row: Omit<ModuleBuildRow, 'id' | 'created_at'>, bytes?: Buffer): Promise<ModuleBuildView> {
  try {
    return moduleView(
      await ctx.db.transaction(async (tx) => {
        const q = moduleQueries(tx);
        if (row.sha256) await q.lockBlob(row.sha256);
        const stored = await q.insert(row);
        // The blob is written inside the transaction: a failed write stores nothing.
        if (bytes && row.sha256) await ctx.blobs.put(row.sha256, bytes);
        return stored;
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err, 'module_builds_game_version')) {
      throw fail('version_exists', `Version ${row.version} already exists for this game`);
    }
    throw err;
  }
}

type UploadInput = { packaging: 'wasm' | 'native'; version: string; wasmBase64?: string };

/** Admits (or refuses) a build; counted in the metrics by packaging and outcome. */
export async function uploadModule(ctx: Context, gameId: string, input: UploadInput): Promise<ModuleBuildView> {
  try {
    const build = await admit(ctx, gameId, input);
    ctx.metrics.moduleUploaded(input.packaging);
    return build;
  } catch (err) {
    ctx.metrics.moduleUploaded(input.packaging, err);
    throw err;
  }
}

async function admit(ctx: Context, gameId: string, input: UploadInput): Promise<ModuleBuildView> {
  if (input.version.length > VERSION_MAX || !SEMVER.test(input.version)) {
    throw fail('invalid_version', `Version must be a SemVer 2.0.0 version (for example 1.4.0-beta.2) of at most ${VERSION_MAX} characters`);
  }
  if (input.packaging === 'native') {
    if (input.wasmBase64 !== undefined) {
      throw fail('native_has_no_wasm', 'A native build is registered as metadata only; send no WasmBase64');
    }
    return insert(ctx, { game_id: gameId, packaging: 'native', version: input.version, size_bytes: 0, sha256: null, admitted: true, schedulable: false, imports: [] });
  }
  if (input.wasmBase64 === undefined) throw fail('wasm_required', 'A wasm build needs WasmBase64', { Field: 'WasmBase64' });
  const b64 = input.wasmBase64;
  const decodedSize = Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
  if (decodedSize > ctx.config.moduleMaxBytes) {
    throw fail('module_too_large', `The module is ${decodedSize} bytes; the limit is ${ctx.config.moduleMaxBytes}`);
  }
  const bytes = decodeBase64Strict(b64);

  let inspection;
  try {
    inspection = inspectWasm(bytes);
  } catch (err) {
    if (err instanceof WasmFormatError) throw fail('invalid_wasm', `Not a well-formed wasm module: ${err.message}`);
    throw err;
  }
  if (!WebAssembly.validate(new Uint8Array(bytes))) {
    throw fail('invalid_wasm', 'Not a valid wasm module: it fails WebAssembly validation');
  }
  const imports = inspection.imports;
  const tooLarge = resourceProblems(inspection);
  if (tooLarge.length) throw fail('module_limits', `The module exceeds the admission limits: ${tooLarge.join('; ')}`, { Problems: tooLarge });
  const qualified = [...new Set(imports.map(describeImport))];
  const offending = [...new Set(imports.filter((i) => !ctx.importAllowed(i)).map(describeImport))];
  if (offending.length) {
    throw fail('imports_not_allowed', `The module imports outside the allowlist (functions only; module exact, name by pattern): ${offending.join(', ')}`, {
      OffendingImports: offending,
    });
  }
  return insert(
    ctx,
    { game_id: gameId, packaging: 'wasm', version: input.version, size_bytes: bytes.length, sha256: sha256Hex(bytes), admitted: true, schedulable: true, imports: qualified },
    bytes,
  );
}

export async function listModules(ctx: Context, gameId: string): Promise<ModuleBuildView[]> {
  return (await moduleQueries(ctx.db).byGame(gameId)).map(moduleView);
}
