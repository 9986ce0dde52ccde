-- Renew the chat's lock if this process still holds it.
if redis.call('GET', KEY.lock) == ARG.token then
  return redis.call('PEXPIRE', KEY.lock, ARG.ttl)
end
return 0
