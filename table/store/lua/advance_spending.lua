-- A step that pays from a sheet read ahead, in one script (a wound landing from a combat
-- tap; FlowStore.advance_flow_spending): the flow's compare-and-set, the sheet's new value
-- if it is still as read (else 'sheet': the caller reads it again), the NPC's name as typed
-- beside a sheet it makes, what the step spent in the update's journal, a second flow that
-- shows the change (the round tracker) moved if it is still at its version, and the log
-- lines. Replies the flow's hash, nil for a stale step, or 'sheet'.
--
-- Once per update, as advance.lua: the journal's mark says this update took the step.
if ARG.mark ~= '' and redis.call('HEXISTS', KEY.journal, ARG.mark) == 1 then
  return redis.call('HGETALL', KEY.flow)
end
local new = next_version(KEY.flow, ARG.expected)
if not new then
  return false
end
-- A strict second step (a point of Willpower and the round's mark of it): a second flow
-- moved since the read stores nothing, and the caller runs the step again.
if ARG.also_strict == '1' and not next_version(KEY.also, ARG.also_version) then
  return false
end
local current = redis.call('HGET', KEY.sheets, ARG.field)
if (ARG.had == '1' and current ~= ARG.raw) or (ARG.had ~= '1' and current) then
  return 'sheet'
end
redis.call('HSET', KEY.flow, 'version', new, 'data', ARG.data, 'closed', ARG.close,
  'actors', actors_with(KEY.flow, new, ARG.actor), 'screen', ARG.screen)
drop_pieces(KEY.flow)
if ARG.sheet ~= '' then
  redis.call('HSET', KEY.sheets, ARG.field, ARG.sheet)
  if ARG.had ~= '1' and ARG.name_field ~= '' then
    redis.call('HSET', KEY.sheets, ARG.name_field, ARG.name)
  end
end
if ARG.spent_field ~= '' then
  redis.call('HSET', KEY.journal, ARG.spent_field, ARG.spent)
end
-- The second flow's step has no actor: a health line's redraw is nobody's tap.
if ARG.also_version ~= '' then
  local other = next_version(KEY.also, ARG.also_version)
  if other then
    redis.call('HSET', KEY.also, 'version', other, 'data', ARG.also_data,
      'actors', actors_with(KEY.also, other, '0'), 'screen', ARG.also_screen)
    drop_pieces(KEY.also)
  end
end
if ARG.ends_live == '1' then
  end_live(KEY.live, ARG.flow_id)
end
append_log(KEY.log, KEY.stats, ARG.log_cap, ARG.tally, ARG.entries)
if ARG.mark ~= '' then
  redis.call('HSET', KEY.journal, ARG.mark, '1')
end
return redis.call('HGETALL', KEY.flow)
