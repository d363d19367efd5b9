/**
 * The Redis side of the event logs (event-log.ts): two scripts, each one round trip, atomic, on the
 * server's clock. A log is a stream whose entry ids are the sequence's ids (`<ms>-<n>`); an entry written
 * to one log holds its text (`m`), one written to several holds a reference (`r`) to the shared bodies
 * stream. Trimming by count deletes the oldest entries with XDEL, so the stream's `max-deleted-entry-id`
 * tells a read exactly up to where entries are gone; every write sets the log's expiry to the age.
 */

const IDS = `
local function split(id)
  local d = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, d - 1)), tonumber(string.sub(id, d + 1))
end
local function less(a, b)
  local am, an = split(a)
  local bm, bn = split(b)
  return am < bm or (am == bm and an < bn)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

// KEYS: the sequence, the shared bodies, then every append's logs in order.
// ARGV: maxEntries, maxAgeMs, number of appends, then per append: number of logs, entry, message ('' = the
// entry), channel ('' = not published). Returns the ids.
export const LOG_APPEND_SCRIPT = `${IDS}
local maxlen = tonumber(ARGV[1])
local age = tonumber(ARGV[2])
local lastMs, lastN = 0, -1
local last = redis.call('GET', KEYS[1])
if last then lastMs, lastN = split(last) end
local out = {}
local k = 3
local a = 4
for i = 1, tonumber(ARGV[3]) do
  local n = tonumber(ARGV[a])
  local entry = ARGV[a + 1]
  local message = ARGV[a + 2]
  local channel = ARGV[a + 3]
  a = a + 4
  if now > lastMs then lastMs = now; lastN = 0 else lastN = lastN + 1 end
  local id = string.format('%d-%d', lastMs, lastN)
  local field, value = 'm', entry
  if n > 1 then
    redis.call('XADD', KEYS[2], 'MINID', '~', string.format('%d-0', lastMs - age), id, 'm', entry)
    redis.call('PEXPIRE', KEYS[2], age)
    field, value = 'r', ''
  end
  for j = k, k + n - 1 do
    redis.call('XADD', KEYS[j], id, field, value)
    local len = redis.call('XLEN', KEYS[j])
    if len > maxlen then
      for _, e in ipairs(redis.call('XRANGE', KEYS[j], '-', '+', 'COUNT', len - maxlen)) do
        redis.call('XDEL', KEYS[j], e[1])
      end
    end
    redis.call('PEXPIRE', KEYS[j], age)
  end
  k = k + n
  if channel ~= '' then
    if message == '' then message = entry end
    redis.call('PUBLISH', channel, '{"id":"' .. id .. '",' .. string.sub(message, 2))
  end
  out[i] = id
end
redis.call('SET', KEYS[1], string.format('%d-%d', lastMs, lastN))
return out
`;

// KEYS: the sequence, the shared bodies, then the logs read. ARGV: maxAgeMs, limit, then the id after
// which each log is read. Returns {head, then per log: complete (1/0), number of entries, id, text, …}.
export const LOG_READ_SCRIPT = `${IDS}
local minMs = now - tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
-- Before the first append, the first read starts the sequence at its own time: the head it hands out lies within
-- any retention (a resume from it is complete), and every later append's id is larger.
local head = redis.call('GET', KEYS[1])
if not head then
  head = string.format('%d-0', now)
  redis.call('SET', KEYS[1], head)
end
local out = { head }
local function info(key)
  local raw = redis.call('XINFO', 'STREAM', key)
  local m = {}
  for i = 1, #raw, 2 do m[raw[i]] = raw[i + 1] end
  return m
end
for i = 3, #KEYS do
  local key = KEYS[i]
  local after = ARGV[i]
  local floor
  local list = {}
  if redis.call('EXISTS', key) == 0 then
    floor = string.format('%d-0', math.max(0, minMs))
  else
    local s = info(key)
    if tonumber(s['entries-added']) > tonumber(s['length']) then
      floor = s['max-deleted-entry-id']
    else
      local firstMs = split(s['first-entry'][1])
      floor = string.format('%d-0', math.max(0, firstMs - tonumber(ARGV[1])))
    end
    local entries = redis.call('XRANGE', key, '(' .. after, '+', 'COUNT', limit + 1)
    if #entries > limit then floor = entries[#entries][1] end
    for _, e in ipairs(entries) do
      local id = e[1]
      local text = e[2][2]
      if e[2][1] == 'r' then
        local b = redis.call('XRANGE', KEYS[2], id, id)
        if #b == 0 then text = nil else text = b[1][2][2] end
      end
      if text == nil or split(id) < minMs then
        if less(floor, id) then floor = id end
      else
        list[#list + 1] = id
        list[#list + 1] = text
      end
    end
  end
  if less(after, floor) then
    out[#out + 1] = 0
    out[#out + 1] = 0
  else
    out[#out + 1] = 1
    out[#out + 1] = #list / 2
    for _, v in ipairs(list) do out[#out + 1] = v end
  end
end
return out
`;
