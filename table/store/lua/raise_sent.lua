-- Raise the chat's floor to a message outside an update's finish (bot/sent.py).
raise_sent(KEY.sent, ARG.message)
return 1
