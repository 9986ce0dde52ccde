"""The Store under test: each test runs on fakeredis, one redis-server and a Redis Cluster."""

from __future__ import annotations

import pytest

from table.store import Store


@pytest.fixture(params=["fakeredis", "redis-server", "redis-cluster"])
def store(request: pytest.FixtureRequest) -> Store:
    name = {"fakeredis": "fake_store", "redis-server": "real_store"}.get(
        request.param, "cluster_store"
    )
    return request.getfixturevalue(name)  # type: ignore[no-any-return]
