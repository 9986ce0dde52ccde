-- A tap's step on a flow (table/store/flows.py, FlowStore.advance_flow): a compare-and-set on
-- the version the button was drawn at, with the log lines it writes and, optionally, a new
-- flow it opens (advance_flow_creating), all or nothing. Of two taps carrying the same
-- version exactly one passes, and a lost compare-and-set logs nothing. Replies the flow's
-- hash, or nil for a stale button.
--
-- Once per update: inside one, the journal keeps the step's mark ('cas:FLOW:VERSION'), its
-- value the id of the flow the step opened ('1': none), so the same call sent again (its
-- answer lost), or the update run again after a crash (its new flow drawn with a fresh id),
-- finds the step its own and answers the flow and the flow it opened, after ':opened'.
local function answer(opened)
  local reply = redis.call('HGETALL', KEY.flow)
  reply[#reply + 1] = ':opened'
  reply[#reply + 1] = opened
  return reply
end
if ARG.mark ~= '' then
  local done = redis.call('HGET', KEY.journal, ARG.mark)
  if done then
    return answer(done)
  end
end
local new = next_version(KEY.flow, ARG.expected)
if not new then
  return false
end
redis.call('HSET', KEY.flow, 'version', new, 'data', ARG.data, 'closed', ARG.close,
  'actors', actors_with(KEY.flow, new, ARG.actor), 'screen', ARG.screen)
drop_pieces(KEY.flow)
if ARG.new_fields ~= '' then
  for name, value in pairs(cjson.decode(ARG.new_fields)) do
    redis.call('HSET', KEY.new_flow, name, value)
  end
  redis.call('EXPIRE', KEY.new_flow, tonumber(ARG.new_ttl))
end
if ARG.ends_live == '1' then
  end_live(KEY.live, ARG.flow_id)
end
append_log(KEY.log, KEY.stats, ARG.log_cap, ARG.tally, ARG.entries)
local opened = ARG.new_id ~= '' and ARG.new_id or '1'
if ARG.mark ~= '' then
  redis.call('HSET', KEY.journal, ARG.mark, opened)
end
return answer(opened)
