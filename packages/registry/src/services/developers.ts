/**
 * Developer accounts: registration, login and the seeded super-admin.
 */
import {
  dummyPasswordHash,
  hashPassword,
  isUniqueViolation,
  randomToken,
  verifyPassword,
  type AuthenticationResponseJSON,
  type Database,
} from '@platform/kit';
import type { FastifyBaseLogger } from 'fastify';
import { PASSWORD_MAX, PASSWORD_MIN } from '../config.js';
import { developerQueries, type DeveloperRow } from '../queries/developers.js';
import type { Role } from './tokens.js';
import type { Context } from '../context.js';
import { fail } from '../errors.js';
import { completeMfaSignIn, factorsOf, mfaToken, type SecondStepProof } from './second-factors.js';
import { passkeySignIn } from './passkeys.js';

type Log = Pick<FastifyBaseLogger, 'info' | 'warn'>;

export interface AuthResponse {
  Token: string;
  DeveloperId: string;
  Email: string;
  Role: Role;
}

export interface DeveloperView {
  Id: string;
  Email: string;
  DisplayName: string;
  Role: Role;
  CreatedAt: string;
}

export const developerView = (d: DeveloperRow): DeveloperView => ({
  Id: d.id,
  Email: d.email,
  DisplayName: d.display_name,
  Role: d.role,
  CreatedAt: new Date(d.created_at).toISOString(),
});

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw fail('weak_password', `Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`);
  }
}

const invalidCredentials = () => fail('invalid_credentials', 'Email or password is wrong');

async function respond(ctx: Context, d: DeveloperRow): Promise<AuthResponse> {
  return {
    Token: await ctx.tokens.issue({ developerId: d.id, role: d.role, generation: d.token_generation }),
    DeveloperId: d.id,
    Email: d.email,
    Role: d.role,
  };
}

export async function registerDeveloper(ctx: Context, input: { email: string; password: string; displayName: string }): Promise<AuthResponse> {
  checkPassword(input.password);
  const displayName = input.displayName.trim();
  if (!displayName) throw fail('validation_failed', 'DisplayName must not be blank', { Field: 'DisplayName' });
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  try {
    return await respond(ctx, await developerQueries(ctx.db).insert({ email, displayName, passwordHash, role: 'developer' }));
  } catch (err) {
    if (isUniqueViolation(err, 'developers_email_key')) throw fail('email_taken', 'An account with this email already exists');
    throw err;
  }
}

export async function loginDeveloper(ctx: Context, input: { email: string; password: string }): Promise<AuthResponse> {
  const d = await developerQueries(ctx.db).byEmail(input.email.trim());
  // Unknown accounts cost one Argon2 verification too, so timing tells nothing.
  const ok = await verifyPassword(d?.password_hash ?? (await dummyPasswordHash()), input.password);
  if (!d || !ok) throw invalidCredentials();
  const factors = factorsOf(d);
  if (factors.length) {
    const message = d.totp_on ? 'Enter the code of your authenticator app (or a recovery code)' : 'Confirm with your passkey';
    throw fail('mfa_required', message, { MfaToken: mfaToken(ctx, d.id), Factors: factors });
  }
  return respond(ctx, d);
}

/** The second step of a sign-in with a second factor (services/second-factors.ts). */
export async function loginDeveloperMfa(ctx: Context, input: SecondStepProof & { mfaToken: string }, log: Log): Promise<AuthResponse> {
  return respond(ctx, await completeMfaSignIn(ctx, input, log));
}

/** A sign-in with a passkey alone (services/passkeys.ts): user-verified, no second step. */
export async function loginDeveloperPasskey(ctx: Context, credential: AuthenticationResponseJSON, log: Log): Promise<AuthResponse> {
  return respond(ctx, await passkeySignIn(ctx, credential, log));
}

export async function listDevelopers(ctx: Context): Promise<DeveloperView[]> {
  return (await developerQueries(ctx.db).list()).map(developerView);
}

/**
 * A startup step (before the context exists, hence the database first): makes the configured account the one super-admin, idempotently and safely
 * when several nodes start together (advisory lock). Returns the generated
 * password when one had to be made, so the caller can print it once.
 */
export async function seedSuperAdmin(db: Database, cfg: { email: string; password?: string }): Promise<{ created: boolean; generatedPassword?: string; demoted?: string }> {
  const email = cfg.email.trim().toLowerCase();
  return db.transaction(async (tx) => {
    const q = developerQueries(tx);
    await q.lockSuperAdminSeed();
    let demoted: string | undefined;
    for (const admin of await q.superAdmins()) {
      if (admin.email.toLowerCase() !== email) {
        await q.setRole(admin.id, 'developer');
        demoted = admin.email;
      }
    }
    const existing = await q.byEmail(email);
    if (!existing) {
      const password = cfg.password ?? randomToken(18);
      await q.insert({ email, displayName: 'Super Admin', passwordHash: await hashPassword(password), role: 'super-admin' });
      return { created: true, generatedPassword: cfg.password ? undefined : password, demoted };
    }
    if (existing.role !== 'super-admin') {
      // Promoting an existing account: its password is replaced by the
      // configured (or a freshly generated) one, so its previous holder
      // cannot walk in as super-admin.
      const password = cfg.password ?? randomToken(18);
      await q.setPasswordHash(existing.id, await hashPassword(password));
      await q.setRole(existing.id, 'super-admin');
      return { created: false, generatedPassword: cfg.password ? undefined : password, demoted };
    }
    if (cfg.password && !(await verifyPassword(existing.password_hash, cfg.password))) {
      await q.setPasswordHash(existing.id, await hashPassword(cfg.password));
    }
    return { created: false, demoted };
  });
}
