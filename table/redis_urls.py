"""The REDIS_URL schemes of a Redis Cluster, and the scheme of one node's URL each stands for.

Apart from the store so the settings check a URL at start-up without importing the Redis
client (README "Exit codes": a wrong setting answered within a second)."""

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
