-- A live message already sent, stored in one step (FlowStore.create_live): its new flow
-- (the fields as pairs) and the chat's pointer at it, only if no other update made the
-- chat's live message since the pointer was read ahead (ARG.expected, '' for none). What
-- happened is recorded in the update's journal (ARG.step, '' outside an update).
--
-- Once: the new pointer names a flow drawn fresh for this call, so a pointer that is the new
-- one already was set by this very call, sent again after its answer was lost.
local now = redis.call('GET', KEY.live) or ''
if now == ARG.pointer then
  return 1
end
local ok = now == ARG.expected
if ok then
  redis.call('HSET', KEY.flow, unpack(ARG.fields))
  redis.call('EXPIRE', KEY.flow, tonumber(ARG.ttl))
  redis.call('SET', KEY.live, ARG.pointer, 'EX', tonumber(ARG.ttl))
end
if ARG.step ~= '' then
  redis.call('HSET', KEY.journal, ARG.step, ok and ARG.success or ARG.failure)
end
if ok then
  return 1
end
return 0
