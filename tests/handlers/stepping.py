"""Helpers for the pure tests of a feature's tap step (bot/runner.py): a flow as stored, what
the chat knows, and dice that fall as told. No Redis, no bot: state and press in, outcome out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from bot.features import FeatureSet
from bot.i18n import load_i18n
from bot.runner import Actor, Known
from rules.profiles import HOUSE_MAGE, Profile
from table.store import Flow, FlowState

GROUP = -1001
ANNA = Actor(id=1, name="Аня")
BORIS = Actor(id=2, name="Борис")


def flow_of(
    state: FlowState, *, owner: int = ANNA.id, version: int = 3, flow_id: str = "f1"
) -> Flow:
    return Flow(
        id=flow_id,
        kind=state.kind,
        chat_id=GROUP,
        owner_id=owner,
        version=version,
        data=state.model_dump(mode="json"),
    )


def known(
    state: FlowState,
    *,
    profile: Profile = HOUSE_MAGE,
    owner: int = ANNA.id,
    features: FeatureSet | None = None,
) -> Known[None]:
    return Known(flow=flow_of(state, owner=owner), profile=profile, read=None, features=features)


class Faces:
    """An rng whose d10s fall as listed, in order (then 1s: a test that rolls more fails)."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0) if self.faces else a
        assert a <= face <= b, f"{face} is no face of a d{b}"
        return face


_I18N = load_i18n()


@contextmanager
def speaking(locale: str = "en") -> Iterator[None]:
    """The catalogues a view draws with, as the update's middleware would set them."""
    with _I18N.context(), _I18N.use_locale(locale):
        yield
