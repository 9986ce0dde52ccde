"""A Store bound to an update's scope for a block, as the state middleware binds one
(bot/scope.py): the tests' stand-in for an update's handling."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from table.scope import Scope
from table.store import Store


@contextmanager
def bound_to(store: Store, scope: Scope) -> Iterator[Store]:
    """``store`` bound to ``scope`` inside the block; the shared one stays unbound."""
    yield store.bound(scope)
