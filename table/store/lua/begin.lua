-- An update's first step (table/store/updates.py, UpdateStore.begin_update): the chat's lock,
-- the update's journal and, read ahead for its handler, the chat's settings, the flow a
-- button names, the sender's (or every) sheet and the chat's live messages; on one server
-- also the update kept in the inbox and its reply's send slot reserved.
--
-- Replies {status, behind, settings, journal, flow, sheets, lives, lease} (the tail only
-- with 'go'): 'done' (finished before), 'busy' (another replica holds the chat), 'behind'
-- with the update whose run died and goes first, 'given-up' (failed too often), 'go'.

local running = redis.call('GET', KEY.running)

-- The update will not run again: out of the inbox, and its running mark goes.
local function leave()
  if ARG.in_inbox == '1' then
    redis.call('HDEL', KEY.inbox, ARG.update)
  end
  if running == ARG.update then
    redis.call('DEL', KEY.running)
  end
end

if redis.call('HEXISTS', KEY.done, ARG.update) == 1
    or redis.call('HGET', KEY.journal, 'done') == '1' then
  leave()
  return {'done'}
end
if ARG.in_inbox == '1' and ARG.inbox_entry ~= '' then
  redis.call('HSET', KEY.inbox, ARG.update, ARG.inbox_entry)
end
local holder = redis.call('GET', KEY.lock)
if holder and holder ~= ARG.token and ARG.force ~= '1' then
  return {'busy'}
end

-- A mark naming another update is that update's if it is still unfinished (its journal,
-- this one's key with its id, counts a run and is not done) and its run was another
-- process's (the journal's 'by'): that run died, as the lock is free or taken over, so it
-- goes first. Otherwise the mark is stale. A run of this process is alive here: the process
-- serialises its chats' updates itself (bot/delivery.py).
if running and running ~= ARG.update then
  local dead = string.sub(KEY.journal, 1, #KEY.journal - #ARG.update) .. running
  if redis.call('HGET', dead, 'by') ~= ARG.token then
    if redis.call('HEXISTS', KEY.done, running) == 0
        and redis.call('HEXISTS', dead, 'attempts') == 1
        and redis.call('HGET', dead, 'done') ~= '1' then
      return {'behind', running}
    end
    redis.call('DEL', KEY.running)
  end
end

-- A run is counted once: 'run' holds the nonce of the call that began it, so the same call
-- sent again (its answer lost) counts no second run.
local attempts
if redis.call('HGET', KEY.journal, 'run') == ARG.run then
  attempts = tonumber(redis.call('HGET', KEY.journal, 'attempts'))
else
  attempts = redis.call('HINCRBY', KEY.journal, 'attempts', 1)
end
if attempts > tonumber(ARG.max_attempts) then
  leave()
  return {'given-up'}
end
redis.call('SET', KEY.lock, ARG.token, 'PX', ARG.lock_ttl)
redis.call('SET', KEY.running, ARG.update, 'EX', ARG.journal_ttl)
redis.call('HSET', KEY.journal, 'by', ARG.token, 'run', ARG.run)
redis.call('HSETNX', KEY.journal, 'seed', ARG.seed)
redis.call('EXPIRE', KEY.journal, ARG.journal_ttl)

-- Read ahead. Every update in a chat renews the clock of the chat's table.
local settings = false
if ARG.read_chat == '1' then
  settings = redis.call('GET', KEY.chat)
  for _, key in ipairs({KEY.chat, KEY.sheets, KEY.hidden, KEY.hidden_seq}) do
    redis.call('EXPIRE', key, CHAT_TTL)
  end
end
local flow = {}
if ARG.read_flow == '1' then
  flow = redis.call('HGETALL', KEY.flow)
end
local sheets = {}
if ARG.all_sheets == '1' then
  sheets = redis.call('HGETALL', KEY.sheets)
elseif #ARG.sheet_fields > 0 then
  sheets = redis.call('HMGET', KEY.sheets, unpack(ARG.sheet_fields))
end
local lives = {}
for _, key in ipairs(KEY.lives) do
  local pointer = redis.call('GET', key)
  local fields = {}
  if pointer then
    local id = string.match(pointer, '"flow"%s*:%s*"([^"]+)"')
    if id then
      fields = redis.call('HGETALL', ARG.flow_prefix .. id)
    end
  end
  lives[#lives + 1] = {pointer or false, fields}
end

-- The reply's send slot: in the group's window (when it has one) and the bot's.
local lease = false
if ARG.lease_member ~= '' then
  local keys, limits = {}, {}
  if ARG.group_limit ~= '' then
    keys[1], limits[1] = KEY.group_budget, {ARG.group_limit, ARG.group_period}
  end
  keys[#keys + 1], limits[#limits + 1] = KEY.bot_budget, {ARG.bot_limit, ARG.bot_period}
  lease = reserve(keys, limits, ARG.lease_member)
end
return {'go', false, settings, redis.call('HGETALL', KEY.journal), flow, sheets, lives, lease}
