"""The runner's refusals, pure (bot/runner.py): one table of who may press what, and when."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import ClassVar

from aiogram import F, Router
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Chat, Message, User

from bot import render
from bot.runner import (
    CLOSED,
    ELSEWHERE,
    INVALID,
    NOT_YOURS,
    REPEATED,
    Gate,
    Outcome,
    Place,
    Refusal,
    Refuse,
    Tap,
    Who,
    admit,
    refuse,
    register,
    repeat,
    typed,
)
from rules.profiles import GameSystem
from table.scope import Campaign
from table.store import Flow, FlowState
from table.store.flows import _document, _flow_from_hash

CHAT = -1001
OWNER, OTHER = 1, 2


class Note(FlowState):
    kind: ClassVar[str] = "runner-note"

    text: str


def flow(
    *, version: int = 3, closed: bool = False, kind: str = Note.kind, chat: int = CHAT
) -> Flow:
    return Flow(
        id="f1",
        kind=kind,
        chat_id=chat,
        owner_id=OWNER,
        version=version,
        data={"text": "hi"},
        closed=closed,
        actors=((2, OWNER), (3, OTHER)),
    )


GATE = Gate(kinds=(Note.kind,))


def test_a_current_press_by_anyone_is_admitted() -> None:
    assert admit(GATE, flow(), CHAT, 3, OTHER, GameSystem.D10) is None


def test_a_missing_or_closed_flow_is_closed_and_the_message_redrawn() -> None:
    assert admit(GATE, None, CHAT, 3, OWNER, GameSystem.D10) is CLOSED
    assert admit(GATE, flow(closed=True), CHAT, 3, OWNER, GameSystem.D10) is CLOSED
    assert CLOSED.heal
    assert CLOSED.answer is render.closed_text


def test_another_chats_or_another_features_flow_is_an_invalid_button() -> None:
    assert admit(GATE, flow(chat=-5), CHAT, 3, OWNER, GameSystem.D10) is INVALID
    assert admit(GATE, flow(kind="team"), CHAT, 3, OWNER, GameSystem.D10) is INVALID


def test_a_version_never_drawn_is_an_invalid_button() -> None:
    assert admit(GATE, flow(), CHAT, 4, OWNER, GameSystem.D10) is INVALID
    assert admit(GATE, flow(), CHAT, -1, OWNER, GameSystem.D10) is INVALID
    unversioned = Gate(kinds=(Note.kind,), versioned=False)
    assert admit(unversioned, flow(), CHAT, 99, OWNER, GameSystem.D10) is None


def test_an_older_drawing_is_a_repeat_only_for_whoever_acted_since() -> None:
    # OTHER made version 3: their press on version 2 is a repeat; OWNER made only version 2.
    assert admit(GATE, flow(), CHAT, 2, OTHER, GameSystem.D10) is REPEATED
    assert admit(GATE, flow(), CHAT, 2, OWNER, GameSystem.D10) is None


def test_an_owners_flow_refuses_everyone_else() -> None:
    mine = Gate(kinds=(Note.kind,), who=Who.OWNER)
    assert admit(mine, flow(), CHAT, 3, OTHER, GameSystem.D10) is NOT_YOURS
    assert admit(mine, flow(), CHAT, 3, OWNER, GameSystem.D10) is None


def test_a_chat_that_switched_games_is_told_so() -> None:
    refused = admit(GATE, flow(), CHAT, 3, OWNER, GameSystem.D6)
    assert refused is not None
    assert refused.answer is render.wrong_system_text
    anywhere = Gate(kinds=(Note.kind,), system=None)
    assert admit(anywhere, flow(), CHAT, 3, OWNER, GameSystem.D6) is None


def test_a_flow_that_does_not_read_as_its_model_is_an_invalid_button() -> None:
    garbled = flow().model_copy(update={"data": {"text": 5, "extra": 1}})
    assert typed(GATE, garbled, Note, 3) is INVALID
    assert typed(GATE, flow(), Note, 3) == Note(text="hi")


def test_a_current_only_step_takes_no_press_on_an_older_drawing() -> None:
    current = Gate(kinds=(Note.kind,), current_only=True)
    assert typed(current, flow(), Note, 2) is REPEATED
    assert isinstance(typed(GATE, flow(), Note, 2), Note)
    assert not isinstance(typed(current, flow(), Note, 3), Refusal)


def test_a_refusal_changes_nothing_and_a_repeat_redraws_quietly() -> None:
    refused = refuse(render.not_yours_text)
    assert isinstance(refused, Refuse)
    assert refused.alert
    assert not refused.heal
    repeated = repeat()
    assert isinstance(repeated, Refuse)
    assert repeated.heal
    assert not repeated.alert
    assert repeated.answer is render.already_done_text


async def test_two_declarations_on_one_callback_data_each_take_only_their_buttons() -> None:
    """``Tap.only``: /r's wizard and its result share one CallbackData."""

    class Act(StrEnum):
        CHOOSE = "c"
        AGAIN = "a"

    class Button(CallbackData, prefix="rn"):
        f: str
        v: int
        a: Act

    tap: Tap[Note, Button, None] = Tap(
        model=Note,
        callback=Button,
        step=lambda state, data, actor, known, rng: Outcome(state=state),
        view=None,
        only=F.a == Act.CHOOSE,
    )
    router = Router()
    register(router, tap)
    (handler,) = router.callback_query.handlers
    user = User(id=OWNER, is_bot=False, first_name="A")
    message = Message(message_id=1, date=datetime.now(UTC), chat=Chat(id=CHAT, type="group"))

    def query(action: Act) -> CallbackQuery:
        data = Button(f="f1", v=0, a=action).pack()
        return CallbackQuery(id="q", from_user=user, chat_instance="c", message=message, data=data)

    taken, _ = await handler.check(query(Act.CHOOSE))
    refused, _ = await handler.check(query(Act.AGAIN))
    assert taken
    assert not refused


def test_a_flow_is_pressed_only_under_the_message_it_is_drawn_in() -> None:
    bound = flow().model_copy(update={"message": f"{CHAT}:7"})
    at_home = Place(f"{CHAT}:7", frozenset())
    elsewhere = Place(f"{CHAT}:8", frozenset({"hi"}))
    assert admit(GATE, bound, CHAT, 3, OWNER, GameSystem.D10, at_home) is None
    assert admit(GATE, bound, CHAT, 3, OWNER, GameSystem.D10, elsewhere) is ELSEWHERE
    # before anything else: a closed flow pressed elsewhere is not redrawn there
    closed = bound.model_copy(update={"closed": True})
    assert admit(GATE, closed, CHAT, 3, OWNER, GameSystem.D10, elsewhere) is ELSEWHERE
    # a live message posted again: a message whose own keyboard carries the flow holds it
    reposted = Place(f"{CHAT}:9", frozenset({"f1"}))
    assert admit(GATE, bound, CHAT, 3, OWNER, GameSystem.D10, reposted) is None


def test_a_flow_that_recorded_no_message_needs_one_whose_keyboard_carries_it() -> None:
    fresh = flow()
    carried = Place("x:1", frozenset({"f1"}))
    assert admit(GATE, fresh, CHAT, 3, OWNER, GameSystem.D10, carried) is None
    assert (
        admit(GATE, fresh, CHAT, 3, OWNER, GameSystem.D10, Place("x:1", frozenset({"f2"})))
        is ELSEWHERE
    )
    # a message sent in inline mode comes with no keyboard: the first one binds it
    assert admit(GATE, fresh, CHAT, 3, OWNER, GameSystem.D10, Place("inline:a")) is None
    bound = fresh.model_copy(update={"message": "inline:a"})
    assert admit(GATE, bound, CHAT, 3, OWNER, GameSystem.D10, Place("inline:b")) is ELSEWHERE


def test_a_flow_keeps_the_message_it_recorded_beside_its_state() -> None:
    bound = flow().model_copy(update={"message": f"{CHAT}:7"})
    stored = _document(bound, Note(text="hi"))
    fields = {"kind": Note.kind, "owner_id": "1", "version": "3", "data": stored}
    back = _flow_from_hash("f1", fields, Campaign(CHAT))
    assert back.message == f"{CHAT}:7"
    assert back.data == {"text": "hi"}  # the feature's state reads as before
    assert back.state(Note) == Note(text="hi")
