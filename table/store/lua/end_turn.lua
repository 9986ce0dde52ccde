-- A send in the chat is over (table/store/posts.py): what it posted goes on the chat's
-- register (`message` '' when nothing was posted), with its topic and the update that sent
-- it, the register kept to its newest POSTED_KEPT; the chat's floor is raised over it when
-- asked (a send from another chat's update); the turn is let go if `token` still holds it.
-- Each part is the same done twice.
if ARG.message ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEY.posted, ARG.message, ARG.message)
  redis.call('ZADD', KEY.posted, ARG.message, ARG.message .. ':' .. ARG.thread .. ':' .. ARG.update)
  redis.call('ZREMRANGEBYRANK', KEY.posted, 0, -(POSTED_KEPT + 1))
  redis.call('EXPIRE', KEY.posted, POSTED_TTL)
  if ARG.lift == '1' then
    raise_sent(KEY.sent, ARG.message)
  end
end
if ARG.token ~= '' and redis.call('GET', KEY.turn) == ARG.token then
  redis.call('DEL', KEY.turn)
end
return 1
