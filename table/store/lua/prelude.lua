-- Helpers several of the Store's scripts share. The loader (table/store/scripts.py) puts this
-- file before every script, after the script's named keys and arguments (KEY, ARG) and the
-- constants it shares with the Python side; a script uses what it needs of it.

-- The earliest send slot that keeps every window of `keys` within its limit ({limit, period
-- in ms} each), reserved for `member` in all of them; how long (ms) the send waits for it.
-- The member is unique to one send, so one already there is this very send's slot, reserved
-- by a run of the same call whose answer was lost: it is taken out before the count.
local function reserve(keys, limits, member)
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  local slot = now
  for i, key in ipairs(keys) do
    local limit, period = tonumber(limits[i][1]), tonumber(limits[i][2])
    redis.call('ZREM', key, member)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - period)
    local since = '(' .. (slot - period)
    if redis.call('ZCOUNT', key, since, '+inf') >= limit then
      local kth = redis.call(
        'ZREVRANGEBYSCORE', key, '+inf', since, 'WITHSCORES', 'LIMIT', limit - 1, 1)
      slot = math.max(slot, tonumber(kth[2]) + period)
    end
  end
  for i, key in ipairs(keys) do
    redis.call('ZADD', key, slot, member)
    redis.call('PEXPIRE', key, slot - now + tonumber(limits[i][2]))
  end
  return slot - now
end

-- Add a packed tally (table.store.log.packed: [[field, increment, ...], [field, name, ...]])
-- to the chat's counters for /stats.
local function count(stats, tally)
  local counted = cjson.decode(tally)
  for i = 1, #counted[1], 2 do
    redis.call('HINCRBY', stats, counted[1][i], counted[1][i + 1])
  end
  if #counted[2] > 0 then
    redis.call('HSET', stats, unpack(counted[2]))
  end
  redis.call('EXPIRE', stats, CHAT_TTL)
end

-- Push `entries` (log lines, oldest first) onto the chat's log, capped at `cap` and kept a
-- quiet season, and add their tally to its counters (table.store.log.log_args). No entries:
-- nothing.
local function append_log(log, stats, cap, tally, entries)
  if #entries == 0 then
    return
  end
  for _, line in ipairs(entries) do
    redis.call('LPUSH', log, line)
  end
  redis.call('LTRIM', log, 0, tonumber(cap) - 1)
  redis.call('EXPIRE', log, LOG_TTL)
  count(stats, tally)
end

-- A step wrote a flow's data whole: its pieces beyond the first ("data1", ...) go.
local function drop_pieces(flow)
  local piece = 1
  while redis.call('HDEL', flow, 'data' .. piece) == 1 do
    piece = piece + 1
  end
end

-- The flow's next version if it stands at `expected` and is open; nil otherwise (a stale
-- button, a closed or expired flow).
local function next_version(flow, expected)
  local version = redis.call('HGET', flow, 'version')
  if not version or tonumber(version) ~= tonumber(expected) then
    return nil
  end
  if redis.call('HGET', flow, 'closed') == '1' then
    return nil
  end
  return tonumber(version) + 1
end

-- The flow's last steps' actors ("version:user", the last ACTORS_KEPT characters) with the
-- step to `new` by `actor`: only the same presser's repeat counts as a double tap
-- (bot/runner.py).
local function actors_with(flow, new, actor)
  local list = (redis.call('HGET', flow, 'actors') or '') .. ' ' .. new .. ':' .. actor
  if #list > ACTORS_KEPT then
    list = string.sub(list, string.find(list, ' ', #list - ACTORS_KEPT, true))
  end
  return list
end

-- Raise the chat's floor (its newest known bot message) to `message`; '' raises nothing.
local function raise_sent(key, message)
  if message ~= '' and tonumber(message) > tonumber(redis.call('GET', key) or '0') then
    redis.call('SET', key, message, 'EX', CHAT_TTL)
  end
end

-- Record `campaign` (its key: a chat's id, or `chat:thread` for a forum topic; titled
-- `title`) as the player's last campaign in `plays`; past `cap` campaigns the others are
-- forgotten ('' records nothing: table/store/inline.py).
local function play(plays, campaign, title, cap)
  if campaign == '' then
    return
  end
  redis.call('HSET', plays, 'last', campaign, 'c:' .. campaign, title)
  if redis.call('HLEN', plays) > tonumber(cap) + 1 then
    for _, name in ipairs(redis.call('HKEYS', plays)) do
      if name ~= 'last' and name ~= 'c:' .. campaign then
        redis.call('HDEL', plays, name)
      end
    end
  end
  redis.call('EXPIRE', plays, CHAT_TTL)
end

-- The chat's live message of a kind ended with its flow (a finished fight): the pointer goes,
-- if it still names that flow (another may have been opened since). 1 if it went.
local function end_live(live, flow)
  local raw = redis.call('GET', live)
  if raw and cjson.decode(raw)['flow'] == flow then
    redis.call('DEL', live)
    return 1
  end
  return 0
end
