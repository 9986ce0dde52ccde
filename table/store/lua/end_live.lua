-- The chat's live flow ended, if the pointer still names it.
local raw = redis.call('GET', KEY.live)
if raw and cjson.decode(raw)['flow'] == ARG.flow then
  redis.call('DEL', KEY.live)
  return 1
end
return 0
