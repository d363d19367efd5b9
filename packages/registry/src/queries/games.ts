import type { PlatformFriendsMode, Queryable, TextFilterMode } from '@platform/kit';

/** A game's GroupLimits as the API shows them and the column keeps them (a limit left out: the deployment's). */
export interface GroupLimitsView {
  PerPlayer?: number;
  CreatedPerDay?: number;
  DefaultMemberLimit?: number;
  MaxMemberLimit?: number;
}

export type CrossGameVisibility = 'isolated' | 'summary' | 'full';

/** A game's text filter columns (migration 0003). */
export interface TextFilterColumns {
  text_filter_mode: TextFilterMode;
  text_filter_allow: string[];
  text_filter_deny: string[];
  text_filter_version: number;
}

export interface GameRow {
  id: string;
  developer_id: string;
  display_name: string;
  launch_command: string | null;
  api_key: string;
  client_key: string;
  api_secret_hash: string;
  settings: Record<string, unknown>;
  cross_game_visibility: CrossGameVisibility;
  /** The social features refused to guests in this game; null: the deployment's SOCIAL_GUEST_RESTRICTED. */
  guest_restricted: string[] | null;
  /** The group limits its developers set, as the API shows them (PascalCase); null: the deployment's. */
  group_limits: GroupLimitsView | null;
  /** What social does with a player's platform friends in this game (migration 0008; default 'suggest'). */
  platform_friends: PlatformFriendsMode;
  created_at: Date;
  updated_at: Date;
}

/** What validate-key and validate-client-key answer with: the game context social works in. */
export type GameContextRow = Pick<GameRow, 'id' | 'cross_game_visibility' | 'guest_restricted' | 'group_limits' | 'platform_friends'> & TextFilterColumns;
const CONTEXT_COLUMNS = 'id, cross_game_visibility, guest_restricted, group_limits, platform_friends, text_filter_mode, text_filter_allow, text_filter_deny, text_filter_version';

export interface GamePatch {
  displayName?: string;
  launchCommand?: string | null;
  settings?: Record<string, unknown>;
  crossGameVisibility?: CrossGameVisibility;
  /** null: back to the deployment's list. */
  guestRestricted?: string[] | null;
  /** null: back to the deployment's limits. */
  groupLimits?: GroupLimitsView | null;
  platformFriends?: PlatformFriendsMode;
}

const COLUMNS = 'id, developer_id, display_name, launch_command, api_key, client_key, api_secret_hash, settings, cross_game_visibility, guest_restricted, group_limits, platform_friends, created_at, updated_at';
/** The same columns of `games g`, where another relation of the statement has some of the same names. */
const QUALIFIED = COLUMNS.split(', ').map((c) => `g.${c}`).join(', ');

/** Credential replacements, each returning the game and the credential it replaced. */
function credentialWrites(db: Queryable) {
  /** A new value of the credential `column`; returns the game and the value it replaces (the row is locked between the two). */
  async function replace(column: 'api_secret_hash' | 'client_key', id: string, owner: string | null, value: string): Promise<(GameRow & { previous: string }) | undefined> {
    const r = await db.query<GameRow & { previous: string }>(
      `UPDATE games g SET ${column} = $3, updated_at = now()
         FROM (SELECT id, ${column} FROM games WHERE id = $1 AND ($2::uuid IS NULL OR developer_id = $2::uuid) FOR UPDATE) old
         WHERE g.id = old.id
         RETURNING ${QUALIFIED}, old.${column} AS previous`,
      [id, owner, value],
    );
    return r.rows[0];
  }
  return {
    /** A new secret digest; returns the game and the digest it replaces. */
    replaceSecret: (id: string, owner: string | null, apiSecretHash: string) => replace('api_secret_hash', id, owner, apiSecretHash),
    /** A new client key; the old one stops naming the game at once. Returns the game and the key it replaces. */
    replaceClientKey: (id: string, owner: string | null, clientKey: string) => replace('client_key', id, owner, clientKey),
  };
}

/** `owner` null means unrestricted (super-admin); otherwise rows of that developer only. */
export function gameQueries(db: Queryable) {
  return {
    ...credentialWrites(db),
    async insert(g: { developerId: string; displayName: string; launchCommand: string | null; apiKey: string; clientKey: string; apiSecretHash: string }): Promise<GameRow> {
      const r = await db.query<GameRow>(
        `INSERT INTO games (developer_id, display_name, launch_command, api_key, client_key, api_secret_hash) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [g.developerId, g.displayName, g.launchCommand, g.apiKey, g.clientKey, g.apiSecretHash],
      );
      return r.rows[0];
    },
    async get(id: string, owner: string | null): Promise<GameRow | undefined> {
      const r = await db.query<GameRow>(`SELECT ${COLUMNS} FROM games WHERE id = $1 AND ($2::uuid IS NULL OR developer_id = $2::uuid)`, [id, owner]);
      return r.rows[0];
    },
    async list(owner: string | null): Promise<GameRow[]> {
      const r = await db.query<GameRow>(
        `SELECT ${COLUMNS} FROM games WHERE ($1::uuid IS NULL OR developer_id = $1::uuid) ORDER BY created_at, id`,
        [owner],
      );
      return r.rows;
    },
    async update(id: string, owner: string | null, p: GamePatch): Promise<GameRow | undefined> {
      const r = await db.query<GameRow>(
        `UPDATE games SET
           display_name = COALESCE($3, display_name),
           launch_command = CASE WHEN $4::boolean THEN $5 ELSE launch_command END,
           settings = COALESCE($6::jsonb, settings),
           cross_game_visibility = COALESCE($7, cross_game_visibility),
           guest_restricted = CASE WHEN $8::boolean THEN $9::text[] ELSE guest_restricted END,
           group_limits = CASE WHEN $10::boolean THEN $11::jsonb ELSE group_limits END,
           platform_friends = COALESCE($12, platform_friends),
           updated_at = now()
         WHERE id = $1 AND ($2::uuid IS NULL OR developer_id = $2::uuid)
         RETURNING ${COLUMNS}`,
        [
          id,
          owner,
          p.displayName ?? null,
          p.launchCommand !== undefined,
          p.launchCommand ?? null,
          p.settings === undefined ? null : JSON.stringify(p.settings),
          p.crossGameVisibility ?? null,
          p.guestRestricted !== undefined,
          p.guestRestricted ?? null,
          p.groupLimits !== undefined,
          p.groupLimits ? JSON.stringify(p.groupLimits) : null,
          p.platformFriends ?? null,
        ],
      );
      return r.rows[0];
    },
    /** The hot path of /auth/validate-client-key: one lookup on the unique client_key index. */
    async byClientKey(clientKey: string): Promise<GameContextRow | undefined> {
      const r = await db.query<GameContextRow>(`SELECT ${CONTEXT_COLUMNS} FROM games WHERE client_key = $1`, [clientKey]);
      return r.rows[0];
    },
    /** Deletes the game (its builds and registrations cascade); returns the row and its build digests. */
    async delete(id: string, owner: string | null): Promise<{ game: GameRow; shas: string[] } | undefined> {
      const shas = await db.query<{ sha256: string }>(`SELECT DISTINCT sha256 FROM module_builds WHERE game_id = $1 AND sha256 IS NOT NULL`, [id]);
      const r = await db.query<GameRow>(
        `DELETE FROM games WHERE id = $1 AND ($2::uuid IS NULL OR developer_id = $2::uuid) RETURNING ${COLUMNS}`,
        [id, owner],
      );
      return r.rows[0] ? { game: r.rows[0], shas: shas.rows.map((s) => s.sha256) } : undefined;
    },
    /** The hot path of /auth/validate-key: one lookup on the unique api_key index. */
    async byApiKey(apiKey: string): Promise<(GameContextRow & Pick<GameRow, 'api_secret_hash'>) | undefined> {
      const r = await db.query<GameContextRow & Pick<GameRow, 'api_secret_hash'>>(
        `SELECT ${CONTEXT_COLUMNS}, api_secret_hash FROM games WHERE api_key = $1`,
        [apiKey],
      );
      return r.rows[0];
    },
  };
}

/** A game's text filter (migration 0003; `owner` as in gameQueries). */
export function textFilterQueries(db: Queryable) {
  return {
    /** The game's text filter (owner null: any game). */
    async textFilter(id: string, owner: string | null): Promise<(TextFilterColumns & Pick<GameRow, 'id' | 'api_key' | 'client_key'>) | undefined> {
      const r = await db.query<TextFilterColumns & Pick<GameRow, 'id' | 'api_key' | 'client_key'>>(
        `SELECT id, api_key, client_key, text_filter_mode, text_filter_allow, text_filter_deny, text_filter_version FROM games
          WHERE id = $1 AND ($2::uuid IS NULL OR developer_id = $2::uuid)`,
        [id, owner],
      );
      return r.rows[0];
    },
    /** Replaces the game's text filter; its version grows by one. */
    async setTextFilter(
      id: string,
      owner: string | null,
      f: { mode: TextFilterMode; allowList: string[]; denyList: string[] },
    ): Promise<(TextFilterColumns & Pick<GameRow, 'id' | 'api_key' | 'client_key'>) | undefined> {
      const r = await db.query<TextFilterColumns & Pick<GameRow, 'id' | 'api_key' | 'client_key'>>(
        `UPDATE games SET text_filter_mode = $3, text_filter_allow = $4::jsonb, text_filter_deny = $5::jsonb,
                text_filter_version = text_filter_version + 1, updated_at = now()
          WHERE id = $1 AND ($2::uuid IS NULL OR developer_id = $2::uuid)
          RETURNING id, api_key, client_key, text_filter_mode, text_filter_allow, text_filter_deny, text_filter_version`,
        [id, owner, f.mode, JSON.stringify(f.allowList), JSON.stringify(f.denyList)],
      );
      return r.rows[0];
    },
  };
}
