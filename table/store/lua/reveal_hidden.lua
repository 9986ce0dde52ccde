-- Reveal a hidden roll and count it in the chat's counters: -1 no such roll, 0 revealed
-- before, 1 now. HSETNX makes the reveal happen once, whoever of two taps or two /reveal (or
-- the same call sent again) gets there first: 'c' marks a reveal counted so (an older
-- version wrote '1').
if redis.call('HEXISTS', KEY.hidden, ARG.seq) == 0 then
  return -1
end
if redis.call('HSETNX', KEY.hidden, ARG.seq .. ':r', 'c') == 0 then
  return 0
end
count(KEY.stats, ARG.tally)
return 1
