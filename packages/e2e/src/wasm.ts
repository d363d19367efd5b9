// A real wasm module built from WebAssembly text (kit/testing's wabt compiler, as packages/registry/test uses).
import { watCompiler } from '@platform/kit/testing';

export async function wat2wasm(text: string): Promise<Buffer> {
  return (await watCompiler())(text);
}

/** A game server module importing only the platform host API and allowed WASI calls. */
export const GAME_SERVER_WAT = `(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32)))
  (import "platform" "log" (func $log (param i32 i32)))
  (import "platform" "broadcast" (func (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "tick") (param i32) (result i32) local.get 0 i32.const 1 i32.add))`;
