"""The character sheet as a Telegram Mini App (docs/product.md "The Mini App sheet"): a
static page drawn like the paper sheets, and its small JSON API, served by the bot's own
process (:mod:`bot.miniapp.server`) behind the operator's HTTPS."""
