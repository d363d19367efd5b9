/**
 * The Lua scripts of the Redis adapter (redis.ts): each runs atomically on the server and reads the
 * server's clock, so every node sees the same windows and expiries whatever its own clock says.
 */

// Server time keeps every node's window identical whatever their clocks say.
// KEYS: the windows; ARGV: limit and window (ms) per key, then a unique member id.
// Returns {allowed, count, retryAfterMs} per key, flattened.
export const HIT_ALL_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i, key in ipairs(KEYS) do
  -- One member per window hit: a key listed twice (two requests grouped into one call) counts twice.
  local member = now .. ':' .. ARGV[#ARGV] .. ':' .. i
  local limit = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local retry = window
    if oldest[2] then retry = tonumber(oldest[2]) + window - now end
    if retry < 1 then retry = 1 end
    out[#out + 1] = 0; out[#out + 1] = count; out[#out + 1] = retry
  else
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, window)
    out[#out + 1] = 1; out[#out + 1] = count + 1; out[#out + 1] = 0
  end
end
return out
`;

export const SET_HAS_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(score) > now then return 1 end
return 0
`;

export const INCR_SCRIPT = `
local v = redis.call('INCR', KEYS[1])
if v == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return v
`;

export const SET_ADD_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local exp = now + tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], exp, ARGV[1])
local maxexp = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(maxexp[2]))
return 1
`;
