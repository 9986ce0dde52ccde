-- An update is finished (table/store/updates.py, UpdateStore.finish_update). Its journal goes;
-- only its id and when it finished stay in the chat's finished updates, all a redelivery
-- needs (the seed and the writes' results were most of what an update left behind,
-- bench/footprint.py). Those older than a redelivery can come (a day) are swept as the hash
-- grows, and the whole hash goes with a quiet chat. Then: whom the messages it sent are about,
-- the chat's floor, the sender's campaign, its untaken send slot handed back, the update out of
-- the inbox, its running mark and the lock released. Each of these is the same done twice.
redis.call('DEL', KEY.journal)
local clock = tonumber(redis.call('TIME')[1])
redis.call('HSET', KEY.done, ARG.update, clock)
if redis.call('HLEN', KEY.done) % DONE_SWEEP == 0 then
  local finished = redis.call('HGETALL', KEY.done)
  for i = 1, #finished, 2 do
    if tonumber(finished[i + 1]) < clock - JOURNAL_TTL then
      redis.call('HDEL', KEY.done, finished[i])
    end
  end
end
redis.call('EXPIRE', KEY.done, JOURNAL_TTL)
play(KEY.plays, ARG.played_campaign, ARG.played_title, ARG.plays_cap)
if ARG.lease_member ~= '' then
  redis.call('ZREM', KEY.group_budget, ARG.lease_member)
  redis.call('ZREM', KEY.bot_budget, ARG.lease_member)
end
-- Pairs of a message id and whom it is about (table.store.updates.about_member).
local about = ARG.about_pairs
if #about > 0 then
  for i = 1, #about - 1, 2 do
    redis.call('ZREMRANGEBYSCORE', KEY.about, about[i], about[i])
    redis.call('ZADD', KEY.about, about[i], about[i + 1])
  end
  redis.call('ZREMRANGEBYRANK', KEY.about, 0, -(ABOUT_CAP + 1))
  redis.call('EXPIRE', KEY.about, LOG_TTL)
end
raise_sent(KEY.sent, ARG.sent_message)
if ARG.in_inbox == '1' then
  redis.call('HDEL', KEY.inbox, ARG.update)
end
if redis.call('GET', KEY.running) == ARG.update then
  redis.call('DEL', KEY.running)
end
if redis.call('GET', KEY.lock) == ARG.token then
  redis.call('DEL', KEY.lock)
end
return 1
