-- A hidden roll and its log line (table/store/hidden.py), once per number: a number already
-- stored (a re-run of the update, or the same call sent again) writes nothing. The rolls
-- older than the last ARG.keep go.
if redis.call('HSETNX', KEY.hidden, ARG.seq, ARG.record) == 0 then
  return 0
end
local floor = tonumber(ARG.seq) - tonumber(ARG.keep)
if floor > 0 then
  for _, name in ipairs(redis.call('HKEYS', KEY.hidden)) do
    local seq = tonumber(string.match(name, '^(%d+)'))
    if seq and seq <= floor then
      redis.call('HDEL', KEY.hidden, name)
    end
  end
end
redis.call('EXPIRE', KEY.hidden, CHAT_TTL)
redis.call('EXPIRE', KEY.hidden_seq, CHAT_TTL)
append_log(KEY.log, KEY.stats, ARG.log_cap, ARG.tally, ARG.entries)
return 1
