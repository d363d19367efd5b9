/**
 * A game's credentials: the API secret (server-side, with the ApiKey) and the client key (public, names the
 * game only; docs/client-key.md): their rotation and their validation, the hot path of the other services.
 */
import { randomToken, safeEqual, sha256Hex, type TextFilterSettings } from '@platform/kit';
import type { Context } from '../context.js';
import { gameQueries, type GameRow, type TextFilterColumns } from '../queries/games.js';
import { clientCacheKey } from './api-key-cache.js';
import type { Caller, ValidatedGame } from './auth.js';
import { checkGameId, gameNotFound, gameView, ownerOf, type GameView } from './game-views.js';

const newApiSecret = () => `gs_${randomToken(32)}`;
export const newClientKey = () => `ck_${randomToken(24)}`;

/** Makes a secret, stores its digest through `create`, and shows the secret this once. */
export async function withSecret(view: (row: GameRow) => GameView, create: (secretHash: string) => Promise<GameRow | undefined>) {
  const secret = newApiSecret();
  const row = await create(sha256Hex(secret));
  if (!row) throw gameNotFound();
  return { Game: view(row), ApiSecret: secret };
}

/** A new secret; the previous one is refused at once, here and (through the notice) in the other services. */
export async function regenerateSecret(ctx: Context, caller: Caller, gameId: string) {
  checkGameId(gameId);
  const owner = ownerOf(caller);
  let previous = '';
  const result = await withSecret(gameView, async (hash) => {
    const row = await gameQueries(ctx.db).replaceSecret(gameId, owner, hash);
    previous = row?.previous ?? '';
    return row;
  });
  await ctx.notices.announce({ change: 'secret_replaced', gameId: result.Game.GameId, apiKey: result.Game.ApiKey, revokedSecretDigest: previous });
  return result;
}

export async function regenerateClientKey(ctx: Context, caller: Caller, gameId: string): Promise<GameView> {
  checkGameId(gameId);
  const row = await gameQueries(ctx.db).replaceClientKey(gameId, ownerOf(caller), newClientKey());
  if (!row) throw gameNotFound();
  await ctx.notices.announce({ change: 'client_key_replaced', gameId: row.id, apiKey: row.api_key, clientKey: row.previous });
  return gameView(row);
}

/** What a validation answers with: the game and the context social works in. */
export interface ValidatedGameContext extends ValidatedGame {
  textFilter: TextFilterSettings;
}

/** A game's text filter columns as settings. */
export const textFilterOf = (row: TextFilterColumns): TextFilterSettings => ({
  mode: row.text_filter_mode,
  allowList: row.text_filter_allow,
  denyList: row.text_filter_deny,
  version: row.text_filter_version,
});

/** The game a client key names (no secret: a client key is public by design); counted in the metrics. */
export async function validateClientKey(ctx: Context, clientKey: string): Promise<ValidatedGameContext | undefined> {
  const found = await ctx.keyCache.get(clientCacheKey(clientKey), async () => {
    const row = await gameQueries(ctx.db).byClientKey(clientKey);
    return row && { gameId: row.id, secretHash: '', visibility: row.cross_game_visibility, guestRestricted: row.guest_restricted, groupLimits: row.group_limits, platformFriends: row.platform_friends, textFilter: textFilterOf(row) };
  });
  const result = found && { gameId: found.gameId, visibility: found.visibility, guestRestricted: found.guestRestricted, groupLimits: found.groupLimits, platformFriends: found.platformFriends, textFilter: found.textFilter };
  ctx.metrics.keyValidated('client_key', result !== undefined);
  return result;
}

/** Constant-time check of a game's API key and secret; counted in the metrics. */
export async function validateKey(ctx: Context, apiKey: string, apiSecret: string): Promise<ValidatedGameContext | undefined> {
  const found = await ctx.keyCache.get(apiKey, async () => {
    const row = await gameQueries(ctx.db).byApiKey(apiKey);
    return row && { gameId: row.id, secretHash: row.api_secret_hash, visibility: row.cross_game_visibility, guestRestricted: row.guest_restricted, groupLimits: row.group_limits, platformFriends: row.platform_friends, textFilter: textFilterOf(row) };
  });
  const presented = sha256Hex(apiSecret);
  // Unknown keys compare against a fixed digest so both paths do the same work.
  const ok = safeEqual(presented, found?.secretHash ?? '0'.repeat(64));
  const result = found && ok ? { gameId: found.gameId, visibility: found.visibility, guestRestricted: found.guestRestricted, groupLimits: found.groupLimits, platformFriends: found.platformFriends, textFilter: found.textFilter } : undefined;
  ctx.metrics.keyValidated('api_key', result !== undefined);
  return result;
}
