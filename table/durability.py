"""What the Redis server promises to keep through a power cut (README "Durability").

The server's own configuration is where this is set (``appendonly yes``, ``appendfsync
always|everysec``; docker-compose.yml passes ``REDIS_APPENDFSYNC`` on to it), not a CONFIG SET
from the bot: a setting made with CONFIG SET lasts only until the server restarts, and a
restart after a crash is exactly when it matters; managed servers refuse CONFIG anyway. So
the bot only looks, once at start, and says in its log what a power cut would lose, warning
when the server keeps less than REDIS_APPENDFSYNC promises.
"""

from __future__ import annotations

import logging
from typing import Any

from table.store import REDIS_ERRORS, client_faults

log = logging.getLogger(__name__)


async def check_durability(redis: Any, promised: str | None) -> str | None:
    """The server's ``appendfsync`` with AOF on (``"off"`` without AOF), logged; None if it
    could not be asked (CONFIG refused or renamed, Redis away, a cluster's nodes differing)."""
    try:
        with client_faults():
            config = await redis.config_get("append*")
    except REDIS_ERRORS as error:
        log.info('Redis durability not checked (%s): see README "Durability"', error)
        return None
    if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
        log.info("Redis durability not checked: the answer to CONFIG GET was %r", config)
        return None
    aof = config.get("appendonly") == "yes"
    fsync = config.get("appendfsync", "") if aof else "off"
    if not aof:
        log.warning(
            "Redis keeps no append-only file: a crash loses everything since its last "
            'snapshot (README "Durability"; set appendonly yes in the server\'s config)'
        )
    elif promised is not None and fsync != promised:
        log.warning(
            "REDIS_APPENDFSYNC=%s, but the Redis server writes its AOF with appendfsync %s: "
            'set it in the server\'s config (README "Durability")',
            promised,
            fsync,
        )
    else:
        log.info("Redis durability: AOF with appendfsync %s", fsync)
    return fsync
