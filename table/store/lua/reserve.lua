-- One send's slot in each of the windows (a group's minute, then the bot's second;
-- table/store/budget.py): the limits are pairs of a limit and a period (ms), one per window.
local limits = {}
for i = 1, #KEY.windows do
  limits[i] = {ARG.limits[2 * i - 1], ARG.limits[2 * i]}
end
return reserve(KEY.windows, limits, ARG.member)
