-- A tally added to the chat's counters, inside a transaction that writes log lines
-- (table/store/log.py): the transaction itself is what runs once.
count(KEY.stats, ARG.tally)
return 1
