/**
 * Password policy and hashing. Policy: 10–256 characters, not in the shipped
 * list of common passwords (data/common-passwords.txt, from the zxcvbn-ts
 * common dictionary; compared case-insensitively).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hashPassword, type Argon2Params } from '@platform/kit';
import { fail } from '../errors.js';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

let common: Set<string> | undefined;
export function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(path.resolve(import.meta.dirname, '../../data/common-passwords.txt'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#')),
  );
  return common;
}

export function checkPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw fail('weak_password', `The password needs at least ${PASSWORD_MIN} characters`, { reason: 'too_short' });
  if (length > PASSWORD_MAX) throw fail('weak_password', `The password may have at most ${PASSWORD_MAX} characters`, { reason: 'too_long' });
  if (commonPasswords().has(password.toLowerCase())) {
    throw fail('weak_password', 'This password is on a list of commonly used passwords', { reason: 'common' });
  }
}

export function hashNewPassword(password: string, params: Argon2Params): Promise<string> {
  checkPasswordPolicy(password);
  return hashPassword(password, params);
}

/**
 * A hash to verify against when there is no credential, with the SAME
 * parameters as real ones so an unknown account costs the same time. (The
 * kit's dummyPasswordHash keeps one hash for the first parameters it sees;
 * the auth service uses two parameter sets, so it keeps one per set.)
 */
const dummies = new Map<string, Promise<string>>();
export function dummyHashFor(params: Argon2Params): Promise<string> {
  const key = `${params.memoryCost}:${params.timeCost}:${params.parallelism}`;
  let h = dummies.get(key);
  if (!h) dummies.set(key, (h = hashPassword(`dummy-${Math.random()}`, params)));
  return h;
}
