-- The player's last campaign, on a cluster after the update's finish, whose script cannot reach
-- the player's slot (table/store/inline.py).
play(KEY.plays, ARG.campaign, ARG.title, ARG.cap)
return 1
