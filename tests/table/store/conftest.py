"""The Store under test: each test runs on fakeredis, one redis-server and a Redis Cluster.

The redis-server and the cluster are the session's (one per xdist worker), emptied before
each test; a test that stops or breaks its server asks for ``redis_server`` itself."""

from __future__ import annotations

import pytest

from table.store import Store


@pytest.fixture(params=["fakeredis", "redis-server", "redis-cluster"])
def store(request: pytest.FixtureRequest) -> Store:
    name = {"fakeredis": "fake_store", "redis-server": "shared_real_store"}.get(
        request.param, "cluster_store"
    )
    return request.getfixturevalue(name)  # type: ignore[no-any-return]
