-- An update met Redis or Telegram away and runs again later (UpdateStore.postpone_update):
-- the run does not count against the tries, the sends it delivered are written in its
-- journal (pairs of a journal field and a message id), the chat's floor is raised, and its
-- running mark goes (it is no dead run: the chat's other updates need not wait for it).
-- The run is given back once: its begin's nonce ('run') becomes 'off', so the same call sent
-- again gives back nothing more (a journal begun before runs kept a nonce has none: given
-- back all the same).
if redis.call('HEXISTS', KEY.journal, 'attempts') == 1 then
  if redis.call('HGET', KEY.journal, 'run') ~= 'off' then
    redis.call('HINCRBY', KEY.journal, 'attempts', -1)
    redis.call('HSET', KEY.journal, 'run', 'off')
  end
  local records = ARG.records
  for i = 1, #records - 1, 2 do
    redis.call('HSET', KEY.journal, records[i], records[i + 1])
  end
end
if redis.call('GET', KEY.running) == ARG.update then
  redis.call('DEL', KEY.running)
end
raise_sent(KEY.sent, ARG.message)
return 1
