"""aiogram routers, one per feature; each module exposes ``make_router()``."""
