"""How the stored layout is named and bounded: the key prefix, the clocks and the caps
(ARCHITECTURE.md, "The layers": every key has a clock or a cap). Apart from the client so
the Lua scripts' shared constants (table/store/scripts.py) read them without a cycle."""

PREFIX = "sdb"
FLOW_TTL = 86_400
JOURNAL_TTL = 86_400  # Telegram re-sends an unconfirmed update for up to a day
LOG_CAP = 200
# A chat's roll log is forgotten after a quiet season; each roll starts the clock again.
LOG_TTL = 90 * 86_400
# How many of the bot's messages in a chat remember whom they are about (a reply to an
# older one targets nobody): a few evenings of results.
ABOUT_CAP = 500
# A chat's table (settings, sheets, hidden rolls) and a Storyteller's campaign list are
# forgotten after a year without a single update there; every update starts the clock again.
CHAT_TTL = 365 * 86_400
HIDDEN_CAP = 200  # hidden rolls kept per chat: the oldest goes when one more is made
ACTORS_KEPT = 480  # a flow's "version:user" pairs, in characters: the last 20-odd steps
FLOW_ID_BYTES = 9  # token_urlsafe(9) is exactly 12 characters, 72 random bits
