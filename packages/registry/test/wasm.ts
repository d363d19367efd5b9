// Real wasm binaries built from WebAssembly text (kit/testing's wabt compiler).
import { watCompiler } from '@platform/kit/testing';

export const wat2wasm = await watCompiler();

/** Imports only what the default allowlist admits. */
export const allowedWat = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32)))
  (import "platform" "log" (func $log (param i32 i32)))
  (import "platform" "send" (func (param i32 i32 i32)))
  (memory (export "memory") 1)
  (func (export "tick") (param i32) (result i32) local.get 0 i32.const 1 i32.add))`;

/** Imports env.system and a non-allowlisted WASI call. */
export const forbiddenWat = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "env" "system" (func (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (func (export "run")))`;
