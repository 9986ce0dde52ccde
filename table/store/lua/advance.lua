-- A tap's step on a flow (table/store/flows.py, FlowStore.advance_flow): a compare-and-set on
-- the version the button was drawn at, with the log lines it writes and, optionally, a new
-- flow it opens (advance_flow_creating), all or nothing. Of two taps carrying the same
-- version exactly one passes, and a lost compare-and-set logs nothing. Replies the flow's
-- hash, or nil for a stale button.
--
-- Once per update: inside one, the journal keeps the step's mark ('cas:FLOW:VERSION'), so
-- the same call sent again (its answer lost) finds the step its own and answers the flow.
if ARG.mark ~= '' and redis.call('HEXISTS', KEY.journal, ARG.mark) == 1 then
  return redis.call('HGETALL', KEY.flow)
end
local new = next_version(KEY.flow, ARG.expected)
if not new then
  return false
end
redis.call('HSET', KEY.flow, 'version', new, 'data', ARG.data, 'closed', ARG.close,
  'actors', actors_with(KEY.flow, new, ARG.actor), 'screen', ARG.screen)
drop_pieces(KEY.flow)
if ARG.new_kind ~= '' then
  redis.call('HSET', KEY.new_flow, 'kind', ARG.new_kind, 'chat_id', ARG.new_chat,
    'owner_id', ARG.new_owner, 'version', 0, 'closed', '0', 'data', ARG.new_data)
  redis.call('EXPIRE', KEY.new_flow, tonumber(ARG.new_ttl))
end
if ARG.ends_live == '1' then
  end_live(KEY.live, ARG.flow_id)
end
append_log(KEY.log, KEY.stats, ARG.log_cap, ARG.tally, ARG.entries)
if ARG.mark ~= '' then
  redis.call('HSET', KEY.journal, ARG.mark, '1')
end
return redis.call('HGETALL', KEY.flow)
