-- The message now showing the chat's live flow, if the chat's pointer still names that flow.
local raw = redis.call('GET', KEY.live)
if not raw then
  return 0
end
local pointer = cjson.decode(raw)
if pointer['flow'] ~= ARG.flow then
  return 0
end
pointer['message'] = tonumber(ARG.message)
redis.call('SET', KEY.live, cjson.encode(pointer), 'EX', tonumber(ARG.ttl))
return 1
