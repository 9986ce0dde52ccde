-- Take the chat's send turn for `token` (table/store/posts.py), or keep it if this token
-- already holds it: redis-py's retry of a call whose answer was lost must not lock its own
-- caller out.
if redis.call('GET', KEY.turn) == ARG.token then
  redis.call('PEXPIRE', KEY.turn, ARG.ttl)
  return 1
end
if redis.call('SET', KEY.turn, ARG.token, 'NX', 'PX', ARG.ttl) then
  return 1
end
return 0
