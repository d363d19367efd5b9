/**
 * Open parties (docs/social.md, "Open parties"; decision 0029): the leader lists a party in the game of the
 * request with a few attributes; players of that game list the parties that would admit them and join through the
 * party's own join rules. A listing is shown only while its party admits (not full, not Private), and goes with it.
 */
import type { Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { LANGUAGE } from './groups.js';
import { leaderParty } from './party-access.js';
import { fullHandle } from './users.js';
import { deleteListing, listingOf, openParties, upsertListing, type ListingRow } from '../queries/party-listings.js';

/** A mode or region: a short code the game chooses (`ranked`, `eu-west`). */
const ATTRIBUTE = /^[A-Za-z0-9_.:-]{1,32}$/;
const METADATA_MAX_BYTES = 1024;
const CURSOR_KIND = 'open-parties';
const spaceOf = (game: GameContext) => game.gameId ?? '';

export interface ListingInput {
  mode?: string;
  region?: string;
  language?: string;
  metadata?: object;
}

function attribute(field: 'mode' | 'region', v: string | undefined): string | null {
  if (v === undefined) return null;
  if (!ATTRIBUTE.test(v)) throw socialError('validation_failed', `${field} is 1–32 letters, digits, "_", ".", ":" or "-"`, { field });
  return v;
}

export function listingDto(l: ListingRow) {
  return { mode: l.mode, region: l.region, language: l.language, metadata: l.metadata, listedAt: new Date(l.listed_at).toISOString() };
}

/** Lists (or relists, replacing the attributes) the caller's party in the game of the request; leader only. */
export async function listParty(ctx: Ctx, me: UserRow, game: GameContext, partyId: string, input: ListingInput) {
  const p = await leaderParty(ctx.db, me, partyId);
  if (input.language !== undefined && (input.language.length > 35 || !LANGUAGE.test(input.language))) {
    throw socialError('invalid_language', 'language is a language tag such as en or pt-BR', { field: 'language' });
  }
  const metadata = input.metadata === undefined ? null : JSON.stringify(input.metadata);
  if (metadata !== null && Buffer.byteLength(metadata) > METADATA_MAX_BYTES) throw socialError('metadata_too_large', 'metadata is over 1 KiB as JSON', { field: 'metadata' });
  const row = await upsertListing(ctx.db, {
    partyId: p.id,
    gameId: spaceOf(game),
    mode: attribute('mode', input.mode),
    region: attribute('region', input.region),
    language: input.language ?? null,
    metadata,
    at: ctx.now(),
  });
  return listingDto(row);
}

export async function unlistParty(ctx: Ctx, me: UserRow, partyId: string): Promise<void> {
  const p = await leaderParty(ctx.db, me, partyId);
  await deleteListing(ctx.db, p.id);
}

/** The listing of a party the caller is in (export), when listed. */
export async function listingOfParty(db: Queryable, partyId: string) {
  const l = await listingOf(db, partyId);
  return l ? listingDto(l) : undefined;
}

/** The game's listed parties that admit the caller now, newest listing first, one page. */
export async function listOpenParties(ctx: Ctx, me: UserRow, game: GameContext, q: { mode?: string; region?: string; language?: string; limit?: number; cursor?: string }) {
  const limit = q.limit ?? 20;
  let after: { at: string; id: string } | undefined;
  if (q.cursor !== undefined) {
    const [at, id] = ctx.cursors.open(CURSOR_KIND, q.cursor, spaceOf(game))?.split('|') ?? [];
    if (!at || !id) throw socialError('invalid_cursor', 'This cursor was not given by this list');
    after = { at, id };
  }
  const rows = await openParties(ctx.db, {
    viewer: me.id,
    gameId: spaceOf(game),
    ...(q.mode !== undefined ? { mode: q.mode } : {}),
    ...(q.region !== undefined ? { region: q.region } : {}),
    ...(q.language !== undefined ? { language: q.language } : {}),
    ...(after ? { after } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    parties: page.map((r) => ({
      partyId: r.party_id,
      leaderPublicId: r.leader_public_id,
      leaderFullHandle: fullHandle({ display_name: r.leader_display_name, discriminator: r.leader_discriminator }),
      visibility: r.visibility as 'Public' | 'FriendsOnly',
      maxSize: r.max_size,
      memberCount: r.member_count,
      freeSlots: r.max_size - r.member_count,
      ...listingDto(r),
    })),
    nextCursor: rows.length > limit && last ? ctx.cursors.seal(CURSOR_KIND, `${new Date(last.listed_at).toISOString()}|${last.party_id}`, spaceOf(game)) : null,
  };
}
