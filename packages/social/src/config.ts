/**
 * Social configuration: environment variables named as in every service
 * (`SOCIAL_<SECTION>_<SETTING>`, e.g. SOCIAL_AUTH_JWKS_URL; README.md, "Setting names"), over an optional
 * JSON file (SOCIAL_CONFIG_FILE, nested keys such as {"Social":{"Auth":{"JwksUrl":"…"}}}).
 * Each setting is declared with the spec's path for it (kit specSetting): the spec's `__` spelling
 * (SOCIAL__AUTH__JWKSURL, segments case-insensitive) keeps working as an alias; the house name wins when both are set.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, commonVars, metricsVars, readConfig, specSetting, vars, withSpecNames, type Env } from '@platform/kit';

export const CROSS_GAME_VISIBILITY = ['isolated', 'summary', 'full'] as const;

export const socialVars = {
  ...commonVars,
  metricsPort: specSetting('Social:Metrics:Port', metricsVars('SOCIAL').metricsPort),
  metricsHost: specSetting('Social:Metrics:Host', metricsVars('SOCIAL').metricsHost),
  jwksUrl: specSetting('Social:Auth:JwksUrl', vars.url('SOCIAL_AUTH_JWKS_URL', { protocols: ['http', 'https'], description: 'Social:Auth:JwksUrl — the auth service key set' })),
  issuer: specSetting('Social:Auth:Issuer', vars.string('SOCIAL_AUTH_ISSUER', { default: 'https://localhost:8443' })),
  audience: specSetting('Social:Auth:Audience', vars.string('SOCIAL_AUTH_AUDIENCE', { default: 'game-platform' })),
  authUrl: specSetting('Social:Auth:Url', vars.optionalString('SOCIAL_AUTH_URL', 'Social:Auth:Url — the auth service base URL for moderation actions; default: the origin of SOCIAL_AUTH_JWKS_URL')),
  caFile: specSetting('Social:Auth:CaFile', vars.optionalString('SOCIAL_AUTH_CA_FILE', 'PEM trusted for the JWKS fetch and the auth service calls')),
  apiKey: specSetting('Social:Auth:ApiKey', vars.optionalString('SOCIAL_AUTH_API_KEY', 'Enables server-to-server API-key mode')),
  authInternalKey: specSetting('Social:Auth:InternalKey', vars.optionalString(
    'SOCIAL_AUTH_INTERNAL_KEY',
    'Social:Auth:InternalKey — social\'s secret in the auth service\'s AUTH_INTERNAL_KEYS (sent as X-Internal-Key to ask whether an account is active)',
  )),
  highSecurity: specSetting('Social:Auth:HighSecurity', vars.bool('SOCIAL_AUTH_HIGH_SECURITY', {
    default: false,
    description: 'Social:Auth:HighSecurity — every request and upgrade also reads the revoked sessions from the state store (docs/social.md, "Revocation")',
  })),
  keyCooldownSeconds: specSetting('Social:Auth:KeyCooldownSeconds', vars.int('SOCIAL_AUTH_KEY_COOLDOWN_SECONDS', { default: 30, min: 0, max: 3600 })),
  registryUrl: specSetting('Social:Registry:Url', vars.url('SOCIAL_REGISTRY_URL', { default: 'http://127.0.0.1:3004', protocols: ['http', 'https'] })),
  registryCacheSeconds: specSetting('Social:Registry:CacheSeconds', vars.int('SOCIAL_REGISTRY_CACHE_SECONDS', { default: 10, min: 0, max: 300 })),
  presenceTtlSeconds: specSetting('Social:Presence:TtlSeconds', vars.int('SOCIAL_PRESENCE_TTL_SECONDS', { default: 60, min: 1, max: 86_400 })),
  inviteTtlSeconds: specSetting('Social:Invites:TtlSeconds', vars.int('SOCIAL_INVITES_TTL_SECONDS', { default: 300, min: 10, max: 7 * 86_400 })),
  chatEnabled: specSetting('Social:Chat:Enabled', vars.bool('SOCIAL_CHAT_ENABLED', { default: true })),
  chatRetentionDays: specSetting('Social:Chat:RetentionDays', vars.int('SOCIAL_CHAT_RETENTION_DAYS', { default: 30, min: 1, max: 3650 })),
  notificationsRetentionDays: specSetting('Social:Notifications:RetentionDays', vars.int('SOCIAL_NOTIFICATIONS_RETENTION_DAYS', { default: 90, min: 1, max: 3650, description: 'Social:Notifications:RetentionDays — how long a notification is kept' })),
  notificationsMaxPerUser: specSetting('Social:Notifications:MaxPerUser', vars.int('SOCIAL_NOTIFICATIONS_MAX_PER_USER', { default: 500, min: 10, max: 100_000, description: 'Social:Notifications:MaxPerUser — the newest a user keeps; older ones are deleted' })),
  chatMaxLength: specSetting('Social:Chat:MaxLength', vars.int('SOCIAL_CHAT_MAX_LENGTH', { default: 2000, min: 1, max: 10_000 })),
  partyDefaultMaxSize: specSetting('Social:Parties:DefaultMaxSize', vars.int('SOCIAL_PARTIES_DEFAULT_MAX_SIZE', { default: 4, min: 2, max: 100 })),
  partyMaxSizeLimit: specSetting('Social:Parties:MaxSizeLimit', vars.int('SOCIAL_PARTIES_MAX_SIZE_LIMIT', { default: 16, min: 2, max: 100 })),
  // Rate limits are <SERVICE>_RATE_… in every service; SOCIAL_LIMITS_… are their older names (deprecated aliases).
  chatPerMinute: specSetting('Social:Limits:ChatPerMinute', vars.int('SOCIAL_RATE_CHAT_PER_MINUTE', { default: 60, min: 1, max: 100_000 }), 'SOCIAL_LIMITS_CHAT_PER_MINUTE'),
  actionsPerMinute: specSetting(
    'Social:Limits:ActionsPerMinute',
    vars.int('SOCIAL_RATE_ACTIONS_PER_MINUTE', { default: 30, min: 1, max: 100_000 }),
    'SOCIAL_LIMITS_ACTIONS_PER_MINUTE',
  ),
  searchesPerMinute: specSetting(
    'Social:Limits:SearchesPerMinute',
    vars.int('SOCIAL_RATE_SEARCHES_PER_MINUTE', { default: 30, min: 1, max: 100_000, description: 'User searches per user and minute' }),
    'SOCIAL_LIMITS_SEARCHES_PER_MINUTE',
  ),
  groupSearchesPerMinute: specSetting(
    'Social:Limits:GroupSearchesPerMinute',
    vars.int('SOCIAL_RATE_GROUP_SEARCHES_PER_MINUTE', { default: 60, min: 1, max: 100_000, description: 'Group searches (GET /v1/groups) per user and minute' }),
  ),
  guestStandingCacheSeconds: specSetting(
    'Social:Guests:StandingCacheSeconds',
    vars.int('SOCIAL_GUEST_STANDING_CACHE_SECONDS', { default: 60, min: 0, max: 3600, description: "How long a guest's standing (auth's guest abuse score level) is kept before auth is asked again" }),
  ),
  guestSlowActionsPerHour: specSetting(
    'Social:Guests:SlowActionsPerHour',
    vars.int('SOCIAL_GUEST_SLOW_ACTIONS_PER_HOUR', { default: 10, min: 1, max: 100_000, description: 'Sensitive actions per feature and hour of a guest whose abuse score is at the slow level; past it 429 rate_limited' }),
  ),
  reportMergeHours: specSetting('Social:Reports:MergeHours', vars.int('SOCIAL_REPORTS_MERGE_HOURS', {
    default: 24,
    min: 1,
    max: 720,
    description: 'Social:Reports:MergeHours — a reporter\'s repeated report about the same target within this time, while the first is open, is merged into it',
  })),
  guestRestricted: specSetting('Social:Guests:Restricted', vars.guestFeatures('SOCIAL_GUEST_RESTRICTED', 'social', {
    default: ['friend_requests_over_limit', 'reports', 'group_create'],
    description:
      'Social:Guests:Restricted — features refused to guest accounts until they upgrade (comma list of friend_requests_over_limit, reports, party_chat, party_create, group_create, group_chat; none for none); a game\'s GuestRestricted replaces it',
  })),
  guestFriendRequestsPerDay: specSetting('Social:Guests:FriendRequestsPerDay', vars.int('SOCIAL_GUEST_FRIEND_REQUESTS_PER_DAY', {
    default: 10,
    min: 0,
    max: 100_000,
    description: 'Social:Guests:FriendRequestsPerDay — friend requests a guest sends per 24 hours while friend_requests_over_limit is restricted',
  })),
  searchMinPrefix: specSetting('Social:Search:MinPrefix', vars.int('SOCIAL_SEARCH_MIN_PREFIX', { default: 2, min: 1, max: 32, description: 'Shortest name prefix a search accepts (an exact Name#1234 always)' })),
  tlsMode: specSetting('Social:Tls:Mode', vars.oneOf('SOCIAL_TLS_MODE', ['https', 'http'] as const, { default: 'https' })),
  tlsCertFile: specSetting('Social:Tls:CertFile', vars.optionalString('SOCIAL_TLS_CERT_FILE')),
  tlsKeyFile: specSetting('Social:Tls:KeyFile', vars.optionalString('SOCIAL_TLS_KEY_FILE')),
  schema: specSetting('Social:Database:Schema', vars.string('SOCIAL_DB_SCHEMA', { default: 'social', description: 'Social:Database:Schema — PostgreSQL schema owned by the social service' })),
  port: specSetting('Social:Listen:Port', vars.int('SOCIAL_PORT', { default: 9443, min: 0, max: 65535 })),
  // WebSocket channel (docs/social-realtime.md).
  presenceSweepMs: specSetting('Social:Presence:SweepMilliseconds', vars.int('SOCIAL_PRESENCE_SWEEP_MS', { default: 5000, min: 50, max: 600_000 })),
  wsMaxFrameBytes: specSetting('Social:Realtime:MaxFrameBytes', vars.int('SOCIAL_REALTIME_MAX_FRAME_BYTES', { default: 16_384, min: 256, max: 1_048_576 })),
  wsFramesPerSecond: specSetting('Social:Realtime:FramesPerSecond', vars.int('SOCIAL_REALTIME_FRAMES_PER_SECOND', { default: 20, min: 1, max: 10_000 })),
  wsSendBufferBytes: specSetting('Social:Realtime:SendBufferBytes', vars.int('SOCIAL_REALTIME_SEND_BUFFER_BYTES', { default: 1_048_576, min: 1024, max: 268_435_456 })),
  wsPingSeconds: specSetting('Social:Realtime:PingSeconds', vars.int('SOCIAL_REALTIME_PING_SECONDS', { default: 30, min: 1, max: 3600 })),
  wsMaxSocketsPerUser: specSetting('Social:Realtime:MaxSocketsPerUser', vars.int('SOCIAL_REALTIME_MAX_SOCKETS_PER_USER', { default: 10, min: 1, max: 10_000, description: 'Open sockets per user and node' })),
  wsMaxSocketsPerAddress: specSetting('Social:Realtime:MaxSocketsPerAddress', vars.int('SOCIAL_REALTIME_MAX_SOCKETS_PER_ADDRESS', {
    default: 200,
    min: 1,
    max: 1_000_000,
    description: 'Open sockets per remote address and node (a NAT or a proxy shares one address)',
  })),
  wsMaxPendingUpgrades: specSetting('Social:Realtime:MaxPendingUpgrades', vars.int('SOCIAL_REALTIME_MAX_PENDING_UPGRADES', {
    default: 256,
    min: 1,
    max: 100_000,
    description: 'Social:Realtime:MaxPendingUpgrades — WebSocket upgrades a node authenticates at once; more are refused 503 server_busy (a reconnect storm is shed, not queued)',
  })),
  friendsMax: specSetting('Social:Friends:Max', vars.int('SOCIAL_FRIENDS_MAX', {
    default: 1000,
    min: 1,
    max: 100_000,
    description: 'Social:Friends:Max — friends a player may have (accepting past it is refused 409 friend_limit_reached); it bounds a presence change\'s fan-out',
  })),
  groupsDefaultMemberLimit: specSetting('Social:Groups:DefaultMemberLimit', vars.int('SOCIAL_GROUPS_DEFAULT_MEMBER_LIMIT', {
    default: 100,
    min: 2,
    max: 5000,
    description: 'Social:Groups:DefaultMemberLimit — a new group\'s member limit when its creator names none',
  })),
  groupsMaxMemberLimit: specSetting('Social:Groups:MaxMemberLimit', vars.int('SOCIAL_GROUPS_MAX_MEMBER_LIMIT', {
    default: 5000,
    min: 2,
    max: 5000,
    description: 'Social:Groups:MaxMemberLimit — the highest member limit a group may set (it bounds a group event\'s fan-out)',
  })),
  groupsPerPlayer: specSetting('Social:Groups:PerPlayer', vars.int('SOCIAL_GROUPS_PER_PLAYER', {
    default: 20,
    min: 1,
    max: 1000,
    description: 'Social:Groups:PerPlayer — groups a player may belong to in one game (1: one clan per player); past it 409 group_limit_reached',
  })),
  groupsCreatedPerDay: specSetting('Social:Groups:CreatedPerDay', vars.int('SOCIAL_GROUPS_CREATED_PER_DAY', {
    default: 5,
    min: 0,
    max: 10_000,
    description: 'Social:Groups:CreatedPerDay — groups a player may create per 24 hours; past it 429 rate_limited',
  })),
  groupInviteTtlSeconds: specSetting('Social:Groups:InviteTtlSeconds', vars.int('SOCIAL_GROUPS_INVITE_TTL_SECONDS', {
    default: 7 * 86_400,
    min: 60,
    max: 30 * 86_400,
    description: 'Social:Groups:InviteTtlSeconds — how long a group invite stays usable',
  })),
  replayEntries: specSetting('Social:Realtime:ReplayEntries', vars.int('SOCIAL_REALTIME_REPLAY_ENTRIES', {
    default: 1000,
    min: 0,
    max: 100_000,
    description: 'Social:Realtime:ReplayEntries — events kept per user and per party for a reconnecting socket (0: no replay log, no event ids)',
  })),
  replaySeconds: specSetting('Social:Realtime:ReplaySeconds', vars.int('SOCIAL_REALTIME_REPLAY_SECONDS', {
    default: 600,
    min: 1,
    max: 86_400,
    description: 'Social:Realtime:ReplaySeconds — how long an event stays replayable',
  })),
  relationsCacheMs: specSetting('Social:Realtime:RelationsCacheMilliseconds', vars.int('SOCIAL_REALTIME_RELATIONS_CACHE_MS', {
    default: 5000,
    min: 100,
    max: 600_000,
    description: 'Social:Realtime:RelationsCacheMilliseconds — how stale a node may hold a chat author\'s mutes and blocks if an invalidation is lost',
  })),
  presenceGraceMs: specSetting('Social:Presence:GraceMilliseconds', vars.int('SOCIAL_PRESENCE_GRACE_MS', {
    default: 5000,
    min: 0,
    max: 600_000,
    description: 'Social:Presence:GraceMilliseconds — how long a user whose last socket closed stays online (0: offline at once)',
  })),
  tokenGraceSeconds: specSetting('Social:Realtime:TokenGraceSeconds', vars.int('SOCIAL_REALTIME_TOKEN_GRACE_SECONDS', {
    default: 60,
    min: 0,
    max: 86_400,
    description: 'Social:Realtime:TokenGraceSeconds — how long past its access token\'s exp a socket stays open without re-authenticating (then close 4004)',
  })),
  recentPlayersMax: specSetting('Social:RecentPlayers:Max', vars.int('SOCIAL_RECENT_PLAYERS_MAX', {
    default: 50,
    min: 1,
    max: 1000,
    description: 'Social:RecentPlayers:Max — the newest players a player keeps per game in their recent players',
  })),
  recentPlayersRetentionDays: specSetting('Social:RecentPlayers:RetentionDays', vars.int('SOCIAL_RECENT_PLAYERS_RETENTION_DAYS', {
    default: 30,
    min: 1,
    max: 3650,
    description: 'Social:RecentPlayers:RetentionDays — how long a match roster and its recent players are kept',
  })),
  declineDays: specSetting('Social:Suggestions:DeclineDays', vars.int('SOCIAL_SUGGESTIONS_DECLINE_DAYS', {
    default: 30,
    min: 0,
    max: 3650,
    description: 'Social:Suggestions:DeclineDays — how long a declined friend request keeps the pair out of each other\'s suggestions',
  })),
  // Platform friends (docs/social.md, "Platform friends"): off until a Steam Web API key is set.
  steamApiKey: specSetting('Social:PlatformFriends:SteamApiKey', vars.optionalString(
    'SOCIAL_PLATFORM_FRIENDS_STEAM_API_KEY',
    'Social:PlatformFriends:SteamApiKey — the Steam Web API key for ISteamUser/GetFriendList (secret; never logged); unset: no platform friends are imported',
  )),
  steamApiUrl: specSetting('Social:PlatformFriends:SteamApiUrl', vars.url('SOCIAL_PLATFORM_FRIENDS_STEAM_API_URL', {
    default: 'https://api.steampowered.com',
    protocols: ['http', 'https'],
    description: 'Social:PlatformFriends:SteamApiUrl — the Steam Web API base URL',
  })),
  steamProvider: specSetting('Social:PlatformFriends:SteamProvider', vars.string('SOCIAL_PLATFORM_FRIENDS_STEAM_PROVIDER', {
    default: 'store_a',
    description: 'Social:PlatformFriends:SteamProvider — the auth provider whose user ids are steamid64s (docs/auth-providers.md)',
  })),
  platformFriendsRefreshSeconds: specSetting('Social:PlatformFriends:RefreshSeconds', vars.int('SOCIAL_PLATFORM_FRIENDS_REFRESH_SECONDS', {
    default: 86_400,
    min: 60,
    max: 30 * 86_400,
    description: 'Social:PlatformFriends:RefreshSeconds — a player\'s platform friends are fetched again at their first request in a game after this long',
  })),
  platformFriendsTimeoutMs: specSetting('Social:PlatformFriends:TimeoutMs', vars.int('SOCIAL_PLATFORM_FRIENDS_TIMEOUT_MS', {
    default: 5000,
    min: 100,
    max: 60_000,
    description: 'Social:PlatformFriends:TimeoutMs — how long the platform\'s friends API is waited for',
  })),
};

export type SocialConfig = ReturnType<typeof readConfig<typeof socialVars>> & { ca?: string };

/** The file's settings overlaid by the environment, with SOCIAL__ keys upper-cased (kit withSpecNames). */
export function mergedEnv(env: Env): Env {
  return withSpecNames(env, { prefix: 'SOCIAL', fileVar: 'SOCIAL_CONFIG_FILE' });
}

export function readSocialConfig(env: Env = process.env): SocialConfig {
  const merged = mergedEnv(env);
  const config = readConfig(socialVars, merged) as SocialConfig;
  const problems: string[] = [];
  if (!config.jwksUrl && !config.apiKey) problems.push('SOCIAL_AUTH_JWKS_URL (SOCIAL__AUTH__JWKSURL, Social:Auth:JwksUrl) is required unless SOCIAL_AUTH_API_KEY (Social:Auth:ApiKey) is set');
  if (config.apiKey !== undefined && config.apiKey.length < 16) problems.push('SOCIAL_AUTH_API_KEY (SOCIAL__AUTH__APIKEY, Social:Auth:ApiKey) must have at least 16 characters');
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(config.schema)) problems.push('SOCIAL_DB_SCHEMA (SOCIAL__DATABASE__SCHEMA, Social:Database:Schema) must be a lower-case SQL identifier');
  if (config.partyDefaultMaxSize > config.partyMaxSizeLimit) problems.push('SOCIAL_PARTIES_DEFAULT_MAX_SIZE (SOCIAL__PARTIES__DEFAULTMAXSIZE) must not exceed SOCIAL_PARTIES_MAX_SIZE_LIMIT (SOCIAL__PARTIES__MAXSIZELIMIT)');
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) problems.push('SOCIAL_TLS_CERT_FILE and SOCIAL_TLS_KEY_FILE (SOCIAL__TLS__CERTFILE, SOCIAL__TLS__KEYFILE) go together');
  if (config.authUrl !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(config.authUrl).protocol);
    } catch {
      /* reported below */
    }
    if (!ok) problems.push('SOCIAL_AUTH_URL (SOCIAL__AUTH__URL, Social:Auth:Url) must be an http(s) URL');
  }
  if (config.caFile) {
    try {
      config.ca = readFileSync(config.caFile, 'utf8');
    } catch (err) {
      problems.push(`SOCIAL_AUTH_CA_FILE (SOCIAL__AUTH__CAFILE, Social:Auth:CaFile): cannot read ${config.caFile}: ${(err as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}
