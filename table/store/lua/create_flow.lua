-- A new flow and its log lines, recorded in the update's journal, in one script (a roll's
-- one write: one command to send and one reply to read, where a MULTI...EXEC is seven of
-- each; FlowStore.create_flow). The fields come as a JSON object of strings.
--
-- Once: the flow's id is drawn fresh for this call, so a flow already there was made by
-- this very call, sent again after its answer was lost; its log lines are in already.
if redis.call('EXISTS', KEY.flow) == 1 then
  return 0
end
local fields = {}
for name, value in pairs(cjson.decode(ARG.fields)) do
  fields[#fields + 1] = name
  fields[#fields + 1] = value
end
redis.call('HSET', KEY.flow, unpack(fields))
redis.call('EXPIRE', KEY.flow, tonumber(ARG.ttl))
if ARG.step ~= '' then
  redis.call('HSET', KEY.journal, ARG.step, ARG.record)
end
append_log(KEY.log, KEY.stats, ARG.log_cap, ARG.tally, ARG.entries)
return 1
