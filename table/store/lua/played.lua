-- The player's last group, on a cluster after the update's finish, whose script cannot reach
-- the player's slot (table/store/inline.py).
play(KEY.plays, ARG.chat, ARG.title, ARG.cap)
return 1
