-- Clear the chat's running mark if it still names this update.
if redis.call('GET', KEY.running) == ARG.update then
  redis.call('DEL', KEY.running)
end
return 1
