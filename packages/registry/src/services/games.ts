/**
 * Games: developer-scoped CRUD, API credentials and key validation.
 */
import { randomToken } from '@platform/kit';
import type { Context } from '../context.js';
import { newClientKey, withSecret } from './game-keys.js';
import { gameQueries, type GamePatch, type GameRow } from '../queries/games.js';
import { moduleQueries } from '../queries/modules.js';
import { registrationQueries } from '../queries/registrations.js';
import { checkGameId, gameNotFound, gameView, ownerOf, registrationView, type GameView, type UserRegistrationView } from './game-views.js';
import type { Caller } from './auth.js';
import { fail } from '../errors.js';

export const SETTINGS_MAX_BYTES = 16 * 1024;

export { gameView, registrationView, gameNotFound, ownerOf, checkGameId, type GameView, type UserRegistrationView } from './game-views.js';

const newApiKey = () => `gk_${randomToken(24)}`;

function checkSettings(settings: Record<string, unknown>): void {
  if (Buffer.byteLength(JSON.stringify(settings)) > SETTINGS_MAX_BYTES) {
    throw fail('settings_too_large', `Settings must serialise to at most ${SETTINGS_MAX_BYTES} bytes of JSON`);
  }
}

function nonBlank(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  if (!t) throw fail('validation_failed', `${name} must not be blank`, { Field: name });
  return t;
}

export async function createGame(ctx: Context, caller: Caller, input: { displayName: string; launchCommand?: string }) {
  const displayName = nonBlank('DisplayName', input.displayName)!;
  return withSecret(gameView, (apiSecretHash) =>
    gameQueries(ctx.db).insert({ developerId: caller.id, displayName, launchCommand: input.launchCommand ?? null, apiKey: newApiKey(), clientKey: newClientKey(), apiSecretHash }),
  );
}

export async function listGames(ctx: Context, caller: Caller): Promise<GameView[]> {
  return (await gameQueries(ctx.db).list(ownerOf(caller))).map(gameView);
}

/** The game when the caller may see it; 404 otherwise. */
export async function getGame(ctx: Context, caller: Caller, gameId: string): Promise<GameRow> {
  checkGameId(gameId);
  const g = await gameQueries(ctx.db).get(gameId, ownerOf(caller));
  if (!g) throw gameNotFound();
  return g;
}

export async function updateGame(ctx: Context, caller: Caller, gameId: string, patch: GamePatch): Promise<GameView> {
  checkGameId(gameId);
  const displayName = nonBlank('DisplayName', patch.displayName);
  if (patch.settings !== undefined) checkSettings(patch.settings);
  const limits = patch.groupLimits;
  if (limits?.DefaultMemberLimit !== undefined && limits.MaxMemberLimit !== undefined && limits.DefaultMemberLimit > limits.MaxMemberLimit) {
    throw fail('validation_failed', 'GroupLimits.DefaultMemberLimit is above GroupLimits.MaxMemberLimit', { field: 'GroupLimits' });
  }
  const g = await gameQueries(ctx.db).update(gameId, ownerOf(caller), { ...patch, displayName });
  if (!g) throw gameNotFound();
  // A game context social caches (its visibility, guest restrictions, group limits, platform friends) changed: the
  // notice drops it everywhere.
  const context = [patch.crossGameVisibility, patch.guestRestricted, patch.groupLimits, patch.platformFriends];
  if (context.some((v) => v !== undefined)) {
    await ctx.notices.announce({ change: 'visibility_changed', gameId: g.id, apiKey: g.api_key, clientKey: g.client_key });
  }
  return gameView(g);
}

export async function removeGame(ctx: Context, caller: Caller, gameId: string): Promise<void> {
  checkGameId(gameId);
  const deleted = await gameQueries(ctx.db).delete(gameId, ownerOf(caller));
  if (!deleted) throw gameNotFound();
  await ctx.notices.announce({ change: 'game_deleted', gameId: deleted.game.id, apiKey: deleted.game.api_key, clientKey: deleted.game.client_key });
  // Drop blobs no other build references; the lock keeps a concurrent
  // upload of the same bytes from losing its blob.
  for (const sha of deleted.shas) {
    await ctx.db.transaction(async (tx) => {
      const q = moduleQueries(tx);
      await q.lockBlob(sha);
      if ((await q.referencesTo(sha)) === 0) await ctx.blobs.delete(sha);
    });
  }
}

export async function gameUsers(ctx: Context, caller: Caller, gameId: string): Promise<UserRegistrationView[]> {
  const g = await getGame(ctx, caller, gameId);
  return (await registrationQueries(ctx.db).byGame(g.id)).map(registrationView);
}

export async function allUsers(ctx: Context): Promise<UserRegistrationView[]> {
  return (await registrationQueries(ctx.db).all()).map(registrationView);
}
