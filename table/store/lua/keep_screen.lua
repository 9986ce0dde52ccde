-- What a closed flow's message now shows; only onto a flow that still exists, so an expired
-- one is not brought back as a hash with a screen and nothing else.
if redis.call('EXISTS', KEY.flow) == 1 then
  redis.call('HSET', KEY.flow, 'screen', ARG.screen)
  return 1
end
return 0
