/**
 * POST /games/register-user: resolves a player to a platform account
 * through the auth service (HTTPS, its certificate trusted through
 * REGISTRY_AUTH_CA_FILE) and records the (game, user) registration.
 *
 * Accepted field combinations (DisplayName optional in each):
 *   - Provider + Ticket (+ Nonce): the auth service's platform exchange (/platform);
 *   - Email + Password: sign-in (/login), creating the account (/register) when the email is unknown;
 *   - UserId: an existing account, confirmed by GET /internal/accounts/{id} (X-Internal-Key).
 * Anything else is 400 invalid_combination. Sessions the auth service opens for the
 * sign-in are closed again at once (the registry only needs the subject).
 */
import type { AppError, JsonResponse } from '@platform/kit';
import { authUnavailable, callAuth } from '../adapters/auth-client.js';
import type { Context } from '../context.js';
import { registrationQueries } from '../queries/registrations.js';
import { registrationView, type UserRegistrationView } from './games.js';
import { fail } from '../errors.js';

export interface RegisterUserInput {
  UserId?: string;
  DisplayName?: string;
  Provider?: string;
  ExternalId?: string;
  Ticket?: string;
  Nonce?: string;
  Email?: string;
  Password?: string;
}

export interface RegisterUserResult {
  Registration: UserRegistrationView;
  Sub: string;
  AccountCreated: boolean;
}

export type { AuthClientOptions } from '../adapters/auth-client.js';

/** Which auth answers pass through, under which registry code. */
function mapAuthError(res: JsonResponse): AppError {
  const code: string | undefined = res.body?.code;
  const message: string = typeof res.body?.message === 'string' ? res.body.message : 'The authentication service refused the player';
  const headers: Record<string, string> = {};
  const retry = res.headers['retry-after'];
  if (typeof retry === 'string') headers['retry-after'] = retry;
  switch (res.status) {
    case 400:
      if (code === 'weak_password' || code === 'provider_not_configured') return fail(code, message, res.body?.reason ? { Reason: res.body.reason } : undefined);
      return fail('invalid_player_identity', `The authentication service rejected the player identity: ${message}`);
    case 401:
      if (code === 'invalid_ticket') return fail('invalid_ticket', 'The platform ticket could not be verified');
      return fail('invalid_credentials', 'The email or password is wrong');
    case 403:
      return fail('account_disabled', 'The player account is locked or banned');
    case 409:
      return fail(code === 'email_taken' ? 'email_taken' : 'conflict', message);
    case 423:
      return fail('account_locked', 'The player credential is locked after too many wrong passwords', undefined, { headers });
    case 429:
      return fail('rate_limited', 'Too many sign-in attempts for this player; retry later', undefined, { headers });
    default:
      return authUnavailable(`HTTP ${res.status}`);
  }
}

/** Who a call to auth is for: the game, and the player's address (the game server's when it named none). */
interface Caller {
  gameId: string;
  clientIp: string | undefined;
}

/** A call to auth for a player of `gameId`, from `clientIp` (the player's address, or the game server's when it named none). */
async function call(ctx: Context, method: string, path: string, body: unknown, caller: Caller, internal = false): Promise<JsonResponse> {
  const headers: Record<string, string> = {};
  if (ctx.authClient.internalKey) {
    headers['x-internal-key'] = ctx.authClient.internalKey;
    if (caller.clientIp) headers['x-platform-client-ip'] = caller.clientIp;
    headers['x-platform-game-id'] = caller.gameId;
  } else if (internal) {
    throw authUnavailable('REGISTRY_AUTH_INTERNAL_KEY is not configured');
  }
  return callAuth(ctx.authClient, method, path, { body, headers });
}

/** Closes the session a sign-in opened on our behalf; failures only leave a session to expire. */
async function closeSession(ctx: Context, refreshToken: unknown, clientIp: Caller) {
  if (typeof refreshToken !== 'string') return;
  await call(ctx, 'POST', '/logout', { refresh_token: refreshToken }, clientIp).catch(() => {});
}

async function resolve(ctx: Context, input: RegisterUserInput, clientIp: Caller): Promise<{ sub: string; created: boolean }> {
  const has = (k: keyof RegisterUserInput) => input[k] !== undefined;
  const given = (['UserId', 'Provider', 'ExternalId', 'Ticket', 'Nonce', 'Email', 'Password'] as const).filter(has);
  const only = (...allowed: (keyof RegisterUserInput)[]) => given.every((k) => allowed.includes(k));

  if (has('Provider') && has('Ticket') && only('Provider', 'Ticket', 'Nonce')) {
    const res = await call(ctx, 'POST', '/platform', { provider: input.Provider, ticket: input.Ticket, nonce: input.Nonce }, clientIp);
    if (res.status !== 200) throw mapAuthError(res);
    await closeSession(ctx, res.body.refresh_token, clientIp);
    return { sub: res.body.account_id, created: res.body.account_created === true };
  }
  if (has('Email') && has('Password') && only('Email', 'Password')) {
    const login = await call(ctx, 'POST', '/login', { email: input.Email, password: input.Password }, clientIp);
    if (login.status === 200) {
      await closeSession(ctx, login.body.refresh_token, clientIp);
      return { sub: login.body.account_id, created: false };
    }
    if (login.status !== 401 || login.body?.code !== 'invalid_credentials') throw mapAuthError(login);
    // Unknown email or wrong password: creating tells them apart (an existing email is email_taken).
    const reg = await call(ctx, 'POST', '/register', { email: input.Email, password: input.Password, display_name: input.DisplayName }, clientIp);
    if (reg.status === 201) {
      await closeSession(ctx, reg.body.refresh_token, clientIp);
      return { sub: reg.body.account_id, created: true };
    }
    if (reg.status === 409 && reg.body?.code === 'email_taken') throw mapAuthError(login);
    throw mapAuthError(reg);
  }
  if (has('UserId') && only('UserId')) {
    const res = await call(ctx, 'GET', `/internal/accounts/${encodeURIComponent(input.UserId!)}`, undefined, clientIp, true);
    if (res.status === 404) throw fail('user_not_found', 'No platform account has this UserId');
    if (res.status === 401) throw authUnavailable('the auth service refused the registry internal key');
    if (res.status !== 200) throw mapAuthError(res);
    if (res.body.status !== 'active') throw fail('account_disabled', 'The player account is locked or banned');
    return { sub: res.body.id, created: false };
  }
  throw fail(
    'invalid_combination',
    'Send exactly one of: Provider + Ticket (+ Nonce); Email + Password; UserId. DisplayName is optional with each; ExternalId is not accepted on its own',
    { Given: given },
  );
}

export async function registerPlayer(ctx: Context, gameId: string, input: RegisterUserInput, clientIp: string | undefined): Promise<RegisterUserResult> {
  const { sub, created } = await resolve(ctx, input, { gameId, clientIp });
  const row = await registrationQueries(ctx.db).upsert(gameId, sub, input.DisplayName ?? null);
  return { Registration: registrationView(row), Sub: sub, AccountCreated: created };
}
