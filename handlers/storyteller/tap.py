"""«Я Рассказчик» / «Забрать роль» as one pure step (bot/runner.py): the presser's real id,
checked, becomes the role's.

Whether the presser is a chat administrator is asked of Telegram before the step, and only
when the step would ask (:func:`read`). The step closes the claim; the one press that closed
it then moves the role with the chat settings' own compare-and-set (its hand-off), so of two
claims at once exactly one wins and the other says the role changed meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import is_chat_admin
from bot.runner import Actor, Drawn, Handoff, HandOver, Known, Outcome, Reading, Tap, refuse
from handlers.storyteller import view
from handlers.storyteller.callbacks import StCallback
from handlers.storyteller.flow import ClaimState
from rules.dice import Rng
from rules.profiles import GameSystem
from table.store import Store


@dataclass(frozen=True)
class Claimant:
    """What the chat knows of the presser: a chat administrator or not, and the chat's title
    (kept with the chat's settings when the role moves)."""

    admin: bool
    title: str


async def read(reading: Reading[ClaimState, StCallback]) -> Claimant:
    chat, user, flow = reading.message.chat, reading.presser, reading.flow
    title = reading.store.at(chat.id).titled(chat.title or str(chat.id))
    asks = flow.owner_id in (0, user.id) and reading.state.expected != user.id
    if not asks or reading.bot is None:
        return Claimant(admin=False, title=title)
    return Claimant(admin=await is_chat_admin(reading.bot, chat.id, user.id), title=title)


def step(
    state: ClaimState, action: StCallback, actor: Actor, known: Known[Claimant], rng: Rng | None
) -> Outcome[ClaimState]:
    d6 = known.profile.system is GameSystem.D6
    if known.flow.owner_id not in (0, actor.id):
        return refuse(view.not_for_you_text)
    if state.expected == actor.id:
        return refuse(lambda: view.storyteller_already_text(d6=d6))
    if not known.read.admin:
        return refuse(lambda: view.storyteller_admins_only_text(d6=d6))
    return HandOver(_take(state, actor, known.read.title, d6))


def _take(state: ClaimState, actor: Actor, title: str, d6: bool) -> Handoff:
    async def take(store: Store, chat_id: int, _owner_id: int) -> Drawn:
        updated = await store.set_storyteller(
            chat_id, expected=state.expected, new_id=actor.id, name=actor.name, title=title
        )
        if updated is None:
            return view.storyteller_changed_text(d6=d6), None
        return view.storyteller_set_text(actor.name, d6=d6), None

    return take


TAP: Tap[ClaimState, StCallback, Claimant] = Tap(
    model=ClaimState,
    callback=StCallback,
    step=step,
    view=None,  # its only step hands the message over
    system=None,
    current_only=True,
    read=read,
)
