import assert from 'node:assert/strict';
import { AppError } from '@platform/kit';

/** Awaits `promise` and asserts it rejects with an AppError of this status and code (and message). */
export async function assertAppError(promise: Promise<unknown>, status: number, code: string, message?: RegExp): Promise<AppError> {
  const err = await promise.then(
    () => assert.fail(`expected ${status} ${code}, but it resolved`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, status);
  if (message) assert.match(err.message, message);
  return err;
}
